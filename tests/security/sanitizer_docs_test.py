#!/usr/bin/env python3
"""Pins docs/SECURITY.md to what actually runs: every fuzz target (tests/fuzz, fuzz/), every
binary the ASan and TSan stages of scripts/test.sh build (scripts/build-sanitizers.sh), and every
test pattern of scripts/asan-integration-tests.txt and scripts/tsan-tests.txt must be named in it.
   python3 tests/security/sanitizer_docs_test.py SOURCE_DIR"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
doc = (root / "docs/SECURITY.md").read_text()
problems = []


def named(text, where):
    if f"`{text}`" not in doc:
        problems.append(f"docs/SECURITY.md does not name `{text}` ({where})")


def readable(pattern):
    """A ctest -R pattern as the doc writes it: ^Faults\\. -> Faults.*, ^X\\.Y$ -> X.Y"""
    text = pattern.strip().removeprefix("^")
    if text.endswith("$"):
        text = text[:-1]
    elif text.endswith("\\."):
        text = text[:-2] + ".*"
    elif text.endswith("/"):
        text += "*"
    return text.replace("\\.", ".")


def build_targets(script, preset):
    """The targets of `tree PRESET "NAME" TARGET...`, over continuation lines."""
    match = re.search(rf'tree {preset} "[^"]*" ((?:.*\\\n)*.*)', script)
    if not match:
        problems.append(f"scripts/build-sanitizers.sh builds no {preset} tree")
        return []
    return match.group(1).replace("\\\n", " ").split()


for listing in ["asan-integration-tests.txt", "tsan-tests.txt"]:
    for line in (root / "scripts" / listing).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            named(readable(line), f"scripts/{listing}: {line}")

builds = (root / "scripts/build-sanitizers.sh").read_text()
for preset in ["asan", "tsan"]:
    for target in build_targets(builds, preset):
        named(target, f"scripts/build-sanitizers.sh, {preset} tree")
script = (root / "scripts/test.sh").read_text()
for excluded in re.findall(r"-E '\^\(?([^']*?)\)?\$?'", script):
    for pattern in excluded.split("|"):
        named(readable("^" + pattern), "scripts/test.sh, excluded from the asan stage")

replays = re.search(r"set\(fuzz_targets ([^)]*)\)", (root / "tests/fuzz/CMakeLists.txt").read_text())
fuzzers = re.search(r"foreach\(target ([^)]*)\)", (root / "fuzz/CMakeLists.txt").read_text())
if not replays or not fuzzers or sorted(replays.group(1).split()) != sorted(fuzzers.group(1).split()):
    problems.append("tests/fuzz/CMakeLists.txt and fuzz/CMakeLists.txt list different fuzz targets")
for target in replays.group(1).split() if replays else []:
    named(f"fuzz_{target}", "tests/fuzz/CMakeLists.txt")
    named(f"fuzz_replay_{target}", "tests/fuzz/CMakeLists.txt")
    corpus = root / "fuzz/corpus" / target
    if not corpus.is_dir() or not any(corpus.iterdir()):
        problems.append(f"fuzz/corpus/{target}/ is missing or empty")

for problem in problems:
    print(problem)
print(f"{'ok' if not problems else 'FAILED'}: docs/SECURITY.md against the sanitizer and fuzz lists")
sys.exit(1 if problems else 0)
