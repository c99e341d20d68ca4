#!/usr/bin/env python3
"""Every link in the README and docs/ resolves, and every file they name exists.

Links: a relative link's file must exist, and its #anchor must be a heading of that file (GitHub's
slugs). Names: a path in backticks under one of the tree's folders (`transport/leg_merge.cpp`,
`tests/wan/`, `protocol/reassembler`: a source's stem) must exist. Prints one line per problem
(file:line: what) and exits 1 when there is any.
  python3 tests/docs/docs_links_test.py [REPO]
"""
import pathlib
import re
import sys

REPO = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
        REPO / "packaging/systemd/README.md", REPO / "media-samples/README.md",
        REPO / "tools/linkemu/README.md"]
FOLDERS = ("app", "common", "protocol", "stats", "transport", "mux", "media", "pipeline",
           "display", "presets", "report", "telemetry", "gui", "media_module", "tools", "bench",
           "tests", "scripts", "packaging", "fuzz", "docs", "cmake", "media-samples", "acceptance")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, counts = set(), {}
    in_code = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        base = slug(line.lstrip("#"))
        n = counts.get(base, 0)
        counts[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def names_a_file(name):
    name = re.sub(r":\d+(-\d+)?$", "", name.split("#")[0])
    if not name.split("/")[0] in FOLDERS or "/" not in name:
        return None
    if any(c in name for c in "{}*<>$|"):
        return None
    return name


def defines(folder, name):
    """Whether a header in `folder` declares class or struct `name`."""
    pattern = re.compile(rf"\b(class|struct)\s+{re.escape(name)}\b")
    return folder.is_dir() and any(pattern.search(h.read_text(errors="replace"))
                                   for h in folder.glob("*.hpp"))


def check(path):
    problems = []
    in_code = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        where = f"{path.relative_to(REPO)}:{number}"
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                problems.append(f"{where}: link to {target}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                problems.append(f"{where}: link to {target}: no such heading")
        for code in CODE.findall(line):
            name = names_a_file(code)
            if not name or "/X/" in f"/{name}":  # tests/X/: a placeholder
                continue
            folder, _, last = name.rpartition("/")
            if last[:1].isupper() and "." not in last:  # display/VideoWall::heard: a class
                if not defines(REPO / folder, last.split("::")[0]):
                    problems.append(f"{where}: names {code}, which no file there defines")
                continue
            candidates = [REPO / name, REPO / (name + ".cpp"), REPO / (name + ".hpp")]
            if not any(c.exists() for c in candidates):
                problems.append(f"{where}: names {code}, which does not exist")
    return problems


def catches_what_it_should():
    """The checker itself, on a tree made for it: each kind of problem is found, nothing else."""
    import tempfile
    global REPO
    real = REPO
    with tempfile.TemporaryDirectory() as tmp:
        REPO = pathlib.Path(tmp)
        (REPO / "docs").mkdir()
        (REPO / "transport").mkdir()
        (REPO / "transport/real.hpp").write_text("class RealThing {};\n")
        (REPO / "docs/a.md").write_text("# A heading\n")
        doc = REPO / "README.md"
        doc.write_text("# Top\n[ok](docs/a.md#a-heading) [ok](#top) `transport/real` "
                       "`transport/RealThing`\n[bad](docs/b.md) [bad](docs/a.md#nowhere) "
                       "`transport/gone.cpp` `transport/GoneThing`\n")
        found = check(doc)
    REPO = real
    expected = ["README.md:3: link to docs/b.md: no such file",
                "README.md:3: link to docs/a.md#nowhere: no such heading",
                "README.md:3: names transport/gone.cpp, which does not exist",
                "README.md:3: names transport/GoneThing, which no file there defines"]
    return found == expected, found


def main():
    ok, found = catches_what_it_should()
    if not ok:
        print("the checker is broken; on its own test tree it found:", *found, sep="\n  ")
        return 1
    problems = [p for doc in DOCS if doc.exists() for p in check(doc)]
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s) in {len(DOCS)} documents")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
