#!/usr/bin/env python3
"""An acceptance run (`hdstream check --acceptance`: a ramp, then a short soak) over each seed
path of docs/SCENARIOS.md, emulated by linkemu from the same tests/wan/*.toml. Writes each
report to docs/acceptance/<seed>.html, the table of verdicts and figures to
docs/acceptance/runs.md (also put into docs/SCENARIOS.md, between its acceptance markers; a
regenerated SCENARIOS.md keeps it: bench/wan_report.py), and the SC99 report's first screen as
docs/images/acceptance-report.png for the README.

    sudo /usr/bin/python3 bench/acceptance_seeds.py [--build build] [--step 10s] [--soak 60s]

Root (network namespaces); about 15 minutes on 2 cores. Run it on a quiet machine: the link
emulator and both ends share the CPU.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OUT = DOCS / "acceptance"
BEGIN, END = "<!-- acceptance runs: begin -->", "<!-- acceptance runs: end -->"
PORT = 9000

# The service each seed path would be accepted for: SC99's 270 Mbps contribution feeds, as many
# as the path carries with room to spare, over the transport that suits it. `latency` is the
# sender's budget (SC99's 500 ms for BBR's PROBE_RTT; srt's 1 s on the lossy path, as its run).
PLANS = {
    "sc99": dict(transport="tcp", streams=5, rate="270M", cc="bbr", latency="500ms",
                 why="SC99 itself: five feeds on the shared OC-48"),
    "sc99_protected": dict(transport="tcp", streams=5, rate="270M", cc="bbr", latency="500ms",
                           why="SC99 over two paths: each path accepted on its own"),
    "lsr2000": dict(transport="tcp", streams=3, rate="270M", cc="bbr", latency="500ms",
                    why="three feeds (810 Mbps) on the 1 Gbps record path"),
    "sanet2": dict(transport="tcp", streams=3, rate="270M", cc="cubic", latency="120ms",
                   why="three feeds on the 1 Gbps, 3 ms path, hdstream's default budget"),
    "geneva2004": dict(transport="tcp", streams=5, rate="270M", cc="bbr", latency="1000ms",
                       why="five feeds across 264 ms: a budget of about four RTTs"),
    "lossy": dict(transport="srt", streams=1, rate="270M", cc="auto", latency="1000ms",
                  why="one feed over srt through 0.1 % random loss"),
}


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    sys.exit(f"acceptance_seeds: {what} within {timeout} s")


def stop(process, sig=signal.SIGINT, timeout=30):
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_seed(name, topology, plan, args, work):
    linkemu = args.build / "tools/linkemu/linkemu"
    hdstream = args.build / "app/hdstream"
    sites = [site["name"] for site in topology["site"]]
    prefix = "acc-"
    ready = work / f"{name}.up"
    ready.unlink(missing_ok=True)
    emulator = subprocess.Popen(
        [linkemu, "up", "--config", ROOT / "tests/wan" / f"{name}.toml", "--prefix", prefix,
         "--ready-file", ready], stdout=subprocess.DEVNULL,
        stderr=open(work / f"{name}.linkemu.err", "w"))
    try:
        wait_for(ready.exists, 30, f"linkemu did not bring up {name}")
        recv_err = work / f"{name}.recv.err"
        recv_args = ["ip", "netns", "exec", prefix + sites[1], hdstream, "recv", "--listen",
                     f"0.0.0.0:{PORT}", "--streams", str(plan["streams"]), "--transport",
                     plan["transport"], "--latency", plan["latency"], "--stats-file", "/dev/null"]
        receiver = subprocess.Popen(recv_args, stdout=subprocess.DEVNULL,
                                    stderr=open(recv_err, "w"))
        try:
            wait_for(lambda: "listening on" in recv_err.read_text(), 30,
                     f"the receiver of {name} did not listen")
            report = OUT / f"{name}.html"
            check = ["ip", "netns", "exec", prefix + sites[0], hdstream, "check",
                     "--dest", f"198.18.1.1:{PORT}", "--streams", str(plan["streams"]),
                     "--rate", plan["rate"], "--transport", plan["transport"], "--cc", plan["cc"],
                     "--rtt", topology["link"]["rtt"], "--latency", plan["latency"],
                     "--acceptance", "--steps", "25,50,75,100", "--step-duration", args.step,
                     "--soak", args.soak, "--one-way-delay", "--stats", "json",
                     "--report", report, "--engineer", "bench/acceptance_seeds.py",
                     "--link-id", f"{name} (linkemu)",
                     "--sign-off", f"Seed path {name} emulated by linkemu on one machine: "
                                   f"{plan['why']}. Both ends share this machine's clock, "
                                   "so frame delay is measured one way."]
            if "path_b" in topology:
                check[check.index("--streams"):check.index("--streams")] = [
                    "--dest-b", f"198.19.1.1:{PORT}"]
            done = subprocess.run(check, capture_output=True, text=True,
                                  timeout=3600)
            (work / f"{name}.check.err").write_text(done.stderr)
            if done.returncode not in (0, 3):
                sys.exit(f"acceptance_seeds: check on {name} exited {done.returncode}:\n"
                         f"{done.stderr[-2000:]}")
            lines = [json.loads(line) for line in done.stdout.splitlines()
                     if line.startswith("{")]
            result = [line for line in lines if line.get("type") == "acceptance"][-1]
            return result
        finally:
            stop(receiver)
    finally:
        stop(emulator)


def fmt(value, spec, unit=""):
    return "-" if value is None else f"{value:{spec}}{unit}"


def summary_rows(name, topology, plan, result):
    link = topology["link"]
    path = f"{link['rtt']} RTT, {link['rate']}bps, MTU {link.get('mtu', 1500)}"
    if link.get("loss"):
        path += f", loss {link['loss'] * 100:g} %"
    if "path_b" in topology:
        path = f"A: {path}; B: {topology['path_b']['rtt']} RTT"
    steps = [p for p in result["phases"] if p["kind"] == "step"]
    rows = []
    for soak in (p for p in result["phases"] if p["kind"] == "soak"):
        label = soak["name"].split(": ")[0] + ": " if ": " in soak["name"] else ""
        path_steps = [s for s in steps if s["name"].startswith(label)]
        ramp = ", ".join(f"{s['rate_mbps'] / s['offered_mbps'] * 100:.0f}" for s in path_steps)
        variation = soak["delay_variation_ms"] or {}
        rows.append(
            f"| [{name}](acceptance/{name}.html) {label.rstrip(': ')} | {path} "
            f"| {plan['streams']} × {plan['rate']} {plan['transport']}"
            f"{'/' + plan['cc'] if plan['transport'] != 'srt' else ''}, {plan['latency']} "
            f"| {ramp} | {fmt(soak['rate_mbps'], '.1f')} of {soak['offered_mbps']:.0f} "
            f"| {fmt(soak['delay_ms'], '.1f')} | {fmt(variation.get('p99'), '.2f')} "
            f"| {soak['frames_lost']} of {soak['frames_offered']} "
            f"| {fmt(soak['retransmission_ratio'], '.2e')} "
            f"| {soak['errored_seconds']} / {soak['severely_errored_seconds']} "
            f"| {soak['availability'] * 100:.2f} % "
            f"| {'PASS' if soak['pass'] else 'FAIL'} | {failed(result, label)} |")
    return rows


def failed(result, label):
    """The criteria any phase of this path failed, with the value furthest past the threshold:
    'frame delay variation (p99): 3 phase(s), up to 526.551 ms (≤ 10.000 ms)'."""
    worst = {}
    for phase in result["phases"]:
        if not phase["name"].startswith(label):
            continue
        for c in phase["criteria"]:
            if not c["pass"]:
                worst.setdefault(c["name"], []).append(c)
    parts = []
    for name, fails in worst.items():
        worst_fail = min(fails, key=lambda c: float(re.match(r"[-+\d.e]+", c["margin"] or "0")[0]))
        parts.append(f"{name}: {len(fails)} phase(s), up to {worst_fail['measured']} "
                     f"({worst_fail['threshold']})")
    return "; ".join(parts) or "none"


def section(rows, args, machine):
    return "\n".join([
        BEGIN,
        "## Acceptance runs (`hdstream check --acceptance`)",
        "",
        f"Generated by `bench/acceptance_seeds.py` on {time.strftime('%Y-%m-%d')}, {machine}. "
        f"Each seed path, emulated by linkemu as above, accepted for the service in the plan "
        f"column (the plans and why: the script's PLANS): a ramp of 25, 50, 75 and 100 % of the "
        f"planned rate, {args.step} each, then a {args.soak} soak, against the default criteria "
        "(docs/ACCEPTANCE.md). Both ends run on this machine, so frame delay is one way "
        "(`--one-way-delay`). The soak's figures below; every step's, every criterion with its "
        "margin and the plots are in the linked report.",
        "",
        "| seed path (report) | path | plan | ramp: rate verified, % of offered "
        "| soak Mbps | delay ms | DV p99 ms | frames lost | retransmission ratio "
        "| ES / SES | availability | soak verdict | criteria failed (ramp and soak) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        END,
    ])


def place_in_scenarios(text):
    scenarios = DOCS / "SCENARIOS.md"
    current = scenarios.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    updated = (pattern.sub(lambda _: text, current) if pattern.search(current)
               else current.replace("\n## Land-speed-record metric",
                                    "\n" + text + "\n\n## Land-speed-record metric", 1))
    scenarios.write_text(updated)


def screenshot(report, image):
    subprocess.run(["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--window-size=1000,1300", f"--screenshot={image}",
                    report.as_uri()], check=True, capture_output=True, timeout=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=ROOT / "build")
    parser.add_argument("--step", default="10s")
    parser.add_argument("--soak", default="60s")
    parser.add_argument("--only", help="one seed (a tests/wan/*.toml name)")
    parser.add_argument("--table-only", action="store_true",
                        help="rebuild the table and docs from the last runs' results")
    args = parser.parse_args()
    args.build = args.build.resolve()
    if os.geteuid() != 0:
        sys.exit("acceptance_seeds: run as root (linkemu makes network namespaces)")
    OUT.mkdir(exist_ok=True)
    work = args.build / "acceptance-seeds"
    work.mkdir(exist_ok=True)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), "unknown CPU")
    machine = f"{os.cpu_count()} cores ({cpu})"

    rows, outcomes = [], {}
    for name, plan in PLANS.items():
        if args.only and name != args.only:
            continue
        topology = tomllib.loads((ROOT / "tests/wan" / f"{name}.toml").read_text())
        saved = work / f"{name}.result.json"
        if args.table_only:
            result = json.loads(saved.read_text())
        else:
            print(f"acceptance_seeds: {name} ...", flush=True)
            result = run_seed(name, topology, plan, args, work)
            saved.write_text(json.dumps(result, indent=1))
        outcomes[name] = result["verdict"]
        rows += summary_rows(name, topology, plan, result)
        print(f"acceptance_seeds: {name}: {result['verdict']}", flush=True)
    text = section(rows, args, machine)
    if not args.only:
        (OUT / "runs.md").write_text(text + "\n")
        place_in_scenarios(text)
        screenshot(OUT / "sc99.html", DOCS / "images" / "acceptance-report.png")
    print(text)
    print(json.dumps(outcomes))


if __name__ == "__main__":
    main()
