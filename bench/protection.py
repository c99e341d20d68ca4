#!/usr/bin/python3
"""What two-path protection costs: 5 x 270 Mbps paced feeds on loopback, each feed sent over
two legs (`send --dest-b`, both legs to the same receiver) against the same feeds on one path,
run alternately in the same script, on tcp, mtcp and srt. The figure is CPU seconds (sender +
receiver) per GB of feed delivered, so a protected feed's second copy counts as cost, not as
goodput; the ratio protected / one path is the price of protection, merge included, and
protected / (2 x one path) what the merge and the second leg's bookkeeping add to sending every
byte twice. Prints a Markdown table with the machine, every repetition and the spread.

    bench/protection.py [--build build] [--reps 3] [--duration 10]
"""

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import HOST, PACED_CC, Proc, cpu_per_gb, free_port  # noqa: E402

TRANSPORTS = {"tcp": [], "mtcp": ["--transport", "mtcp", "--conns", "4"],
              "srt": ["--transport", "srt"]}


def run(hdstream, transport_args, duration_s, protected):
    port = free_port()
    recv_args = [a for a in transport_args if a not in ("--conns", "4")]
    rx = Proc([hdstream, "recv", "--listen", f"{HOST}:{port}", "--streams", "5", "--stats", "json",
               "--log-level", "warn", *recv_args]).start()
    time.sleep(0.3)  # the listener's bind, not synchronisation of the measurement
    dest = f"{HOST}:{port}"
    tx = Proc([hdstream, "send", "--dest", dest, *(["--dest-b", dest] if protected else []),
               "--streams", "5", "--rate", "270M", "--duration", f"{duration_s}s", "--stats",
               "json", "--log-level", "warn", "--cc", PACED_CC, *transport_args]).start()
    tx.wait(duration_s + 60)
    rx.wait(30)
    summary = (rx.json_lines("summary") or [{}])[-1]
    protected_frames = sum(line.get("protected", 0) for line in rx.json_lines("protection")[-5:])
    return {"bytes": summary.get("bytes", 0), "drops": summary.get("drops"),
            "cpu_s": tx.cpu_s + rx.cpu_s, "rc": (tx.rc, rx.rc), "protected": protected_frames}


def machine():
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                  if line.startswith("model name")), "?")
    return (f"{model}, {os.cpu_count()} cores, kernel {platform.release()}, "
            f"load {os.getloadavg()[0]:.2f} at start")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10)
    args = parser.parse_args()
    hdstream = str(Path(args.build) / "app" / "hdstream")
    print(f"Machine: {machine()}\n")
    print("| transport | one path CPU s/GB | two paths CPU s/GB | two ÷ one (median, min–max) | "
          "two ÷ (2 × one) | drops one / two | protected frames |")
    print("|---|---|---|---|---|---|---|")
    for name, transport_args in TRANSPORTS.items():
        one, two, ratios, drops, protected = [], [], [], [], []
        for _ in range(args.reps):
            a = run(hdstream, transport_args, args.duration, protected=False)
            b = run(hdstream, transport_args, args.duration, protected=True)
            ca, cb = cpu_per_gb(a), cpu_per_gb(b)
            one.append(ca)
            two.append(cb)
            ratios.append(cb / ca if ca and cb else float("nan"))
            drops.append(f"{a['drops']}/{b['drops']}")
            protected.append(b["protected"])
        print(f"| {name} | {' '.join(f'{v:.2f}' for v in one)} | "
              f"{' '.join(f'{v:.2f}' for v in two)} | {statistics.median(ratios):.2f} "
              f"({min(ratios):.2f}–{max(ratios):.2f}) | {statistics.median(ratios) / 2:.2f} | "
              f"{', '.join(drops)} | "
              f"{', '.join(map(str, protected))} |", flush=True)


if __name__ == "__main__":
    main()
