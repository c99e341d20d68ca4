#!/usr/bin/python3
"""The three transports side by side at 5 x 270 Mbps paced feeds on loopback: goodput, drops
and CPU seconds per GB of sender + receiver, each against `iperf3 -b 270M -P 5` run just
before it (the same peer as docs/PERFORMANCE.md's paced row). Both sides run cubic (what
`--cc auto` picks on loopback; srt is UDP and has its own control). Prints a Markdown table.

    bench/transports.py [--build build] [--reps 2] [--duration 10]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import HOST, PACED_CC, Proc, Runner, cpu_per_gb, free_port  # noqa: E402

TRANSPORTS = {"tcp": [], "mtcp": ["--transport", "mtcp", "--conns", "4"],
              "srt": ["--transport", "srt"]}


def paced(runner, args, duration_s):
    """hdstream send/recv over one transport; receiver summary and CPU of both processes."""
    port = free_port()
    recv_args = [a for a in args if a not in ("--conns", "4")]
    rx = Proc([runner.hdstream, "recv", "--listen", f"{HOST}:{port}", "--streams", "5",
               "--stats", "json", "--log-level", "warn", *recv_args]).start()
    time.sleep(0.3)  # the listener's bind, not synchronisation of the measurement
    tx = Proc([runner.hdstream, "send", "--dest", f"{HOST}:{port}", "--streams", "5",
               "--rate", "270M", "--duration", f"{duration_s}s", "--stats", "json",
               "--log-level", "warn", "--cc", PACED_CC, *args]).start()
    tx.wait(duration_s + 60)
    rx.wait(30)
    summary = (rx.json_lines("summary") or [{}])[-1]
    return {"mbps": summary.get("mbps"), "drops": summary.get("drops"),
            "bytes": summary.get("bytes", 0), "cpu_s": tx.cpu_s + rx.cpu_s,
            "tx_cpu_s": tx.cpu_s, "rx_cpu_s": rx.cpu_s, "rc": (tx.rc, rx.rc)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--duration", type=int, default=10)
    options = parser.parse_args()
    runner = Runner(Path(options.build) / "app" / "hdstream", [])
    rows = {name: [] for name in TRANSPORTS}
    for rep in range(options.reps):
        for name, args in TRANSPORTS.items():  # each right after its own iperf3 run
            peer = runner.iperf3(5, options.duration, rate="270M", cc=PACED_CC)
            run = paced(runner, args, options.duration)
            ratio = (cpu_per_gb(run) / cpu_per_gb(peer)
                     if cpu_per_gb(run) and cpu_per_gb(peer) else None)
            runner.note(f"rep {rep} {name}: {run} / iperf3 {peer['cpu_s']:.2f} s -> {ratio}")
            rows[name].append({**run, "ratio": ratio, "peer_cpu_per_gb": cpu_per_gb(peer)})
    print("| transport | goodput Mbps (receiver) | drops | sender CPU s | receiver CPU s "
          "| CPU s / GB | ÷ iperf3 -b 270M -P 5 -C cubic |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, runs in rows.items():
        def median(key):
            values = [r[key] for r in runs if r.get(key) is not None]
            return statistics.median(values) if values else float("nan")
        print(f"| {name} | {median('mbps'):.1f} | {max(r['drops'] or 0 for r in runs)} "
              f"| {median('tx_cpu_s'):.2f} | {median('rx_cpu_s'):.2f} "
              f"| {statistics.median(cpu_per_gb(r) or 0 for r in runs):.3f} "
              f"| {median('ratio'):.2f} |")


if __name__ == "__main__":
    main()
