#!/usr/bin/python3
"""The three transports side by side at 5 x 270 Mbps paced feeds on loopback: goodput, drops
and CPU seconds per GB of sender + receiver, each against `iperf3 -b 270M -P 5` run just
before it (the same peer as docs/PERFORMANCE.md's paced row). Both sides run cubic (what
`--cc auto` picks on loopback; srt is UDP and has its own control). srt is also measured
against libsrt's own tool, five srt-live-transmit pairs carrying the same 5 x 270 Mbps.
Then one feed striped over K SRT connections (`send --transport srt --conns K`: 1.2 Gbps over
3 stripes, and the v210-1080p60 rate, 2.65 Gbps, over 3) against K srt-live-transmit pairs
carrying the same bytes (one pair per stripe, each rate / K). Prints Markdown tables.

    bench/transports.py [--build build] [--reps 2] [--duration 10] [--stripes-only] [--quick]
"""

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
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


def srt_live_transmit(duration_s, feeds=5, rate_bps=270e6):
    """The SRT peer: per feed, one srt-live-transmit reads the feed from stdin (written here at
    rate_bps) and sends it over SRT, another receives it to /dev/null. Same 120 ms latency and
    1456-byte packets as hdstream's srt; it neither verifies nor reassembles frames, and paces
    at libsrt's default ceiling (1 Gbps a socket; hdstream's is 1.5 x the feed's rate). Bytes
    are the receivers' own payload counts (their last stats line, at most 1000 packets before
    the end)."""
    base = free_port()
    stats_dir = tempfile.TemporaryDirectory()
    receivers, senders = [], []
    for k in range(feeds):
        uri = f"srt://{HOST}:{base + k}?latency=120"
        receivers.append(Proc(["srt-live-transmit", "-q", "-a:no", "-s:1000", "-pf:json", "-f",
                               f"-statsout:{stats_dir.name}/{k}.json", uri + "&mode=listener",
                               "file://con"], stdout=subprocess.DEVNULL).start())
    time.sleep(0.3)  # the listeners' bind, not synchronisation of the measurement
    for k in range(feeds):
        senders.append(Proc(["srt-live-transmit", "-q", "-a:no", "file://con",
                             f"srt://{HOST}:{base + k}?latency=120&mode=caller"],
                            stdin=subprocess.PIPE).start())

    def feed(sender):  # paced in 2 ms steps; the pipe's own back-pressure does the rest
        block = bytes(1456 * 64)
        start, written = time.monotonic(), 0
        while (elapsed := time.monotonic() - start) < duration_s:
            while written < elapsed * rate_bps / 8:
                sender.popen.stdin.write(block)
                written += len(block)
            time.sleep(0.002)
        sender.popen.stdin.close()

    writers = [threading.Thread(target=feed, args=(sender,)) for sender in senders]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    time.sleep(0.5)  # the last packets reach their receivers (120 ms latency)
    for sender in senders:  # srt-live-transmit does not end at the end of its input
        sender.popen.send_signal(signal.SIGINT)
    for proc in senders + receivers:
        proc.wait(30)
    received = 0
    for k in range(feeds):
        lines = Path(stats_dir.name, f"{k}.json").read_text().splitlines()
        last = json.loads(lines[-1].rstrip(",")) if lines else {}
        recv = last.get("recv", {})
        # libsrt's byte counters include 44 bytes of headers per packet (SRT 16, UDP 8, IPv4 20).
        received += recv.get("bytesUnique", 0) - 44 * recv.get("packetsUnique", 0)
    stats_dir.cleanup()
    return {"mbps": received * 8 / duration_s / 1e6, "drops": None, "bytes": received,
            "cpu_s": sum(p.cpu_s for p in senders + receivers),
            "tx_cpu_s": sum(p.cpu_s for p in senders), "rx_cpu_s": sum(p.cpu_s for p in receivers)}


# One feed striped over K SRT connections: (rate, K). srt-live-transmit carries ~2.2 Gbps a
# connection here, so the v210 rate needs several.
STRIPED = [("1200M", 1.2e9, 3), ("2650M", 2.65e9, 3)]


def striped(runner, rate, stripes, duration_s):
    """One synthetic feed at `rate` over `stripes` SRT connections, every byte verified."""
    port = free_port()
    rx = Proc([runner.hdstream, "recv", "--listen", f"{HOST}:{port}", "--streams", "1",
               "--transport", "srt", "--stats", "json", "--log-level", "warn"]).start()
    time.sleep(0.3)  # the listener's bind, not synchronisation of the measurement
    tx = Proc([runner.hdstream, "send", "--dest", f"{HOST}:{port}", "--streams", "1",
               "--transport", "srt", "--conns", str(stripes), "--rate", rate,
               "--duration", f"{duration_s}s", "--stats", "json", "--log-level", "warn"]).start()
    tx.wait(duration_s + 60)
    rx.wait(30)
    summary = (rx.json_lines("summary") or [{}])[-1]
    sent = (tx.json_lines("summary") or [{}])[-1]
    return {"mbps": summary.get("mbps"), "drops": summary.get("drops"),
            "send_drops": sent.get("drops"), "checksum_errors": summary.get("checksum_errors"),
            "bytes": summary.get("bytes", 0), "cpu_s": tx.cpu_s + rx.cpu_s,
            "tx_cpu_s": tx.cpu_s, "rx_cpu_s": rx.cpu_s, "rc": (tx.rc, rx.rc)}


def run_striped(runner, reps, duration_s, cases):
    rows = []
    for label, rate_bps, stripes in cases:
        for rep in range(reps):
            run = striped(runner, label, stripes, duration_s)
            tool = srt_live_transmit(duration_s, feeds=stripes, rate_bps=rate_bps / stripes)
            ratio = (cpu_per_gb(run) / cpu_per_gb(tool)
                     if cpu_per_gb(run) and cpu_per_gb(tool) else None)
            runner.note(f"rep {rep} srt {label} / {stripes} stripes: {run} / "
                        f"srt-live-transmit x {stripes}: {tool} -> {ratio}")
            rows.append((label, stripes, run, tool, ratio))
    print("| one srt feed striped | goodput Mbps (receiver) | drops (recv / send) | checksum errors "
          "| CPU s / GB | srt-live-transmit pairs: Mbps | their CPU s / GB | ÷ srt-live-transmit |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, stripes, run, tool, ratio in rows:
        print(f"| {label} over {stripes} stripes | {run['mbps'] or 0:.1f} "
              f"| {run['drops']} / {run['send_drops']} | {run['checksum_errors']} "
              f"| {cpu_per_gb(run) or float('nan'):.3f} | {tool['mbps']:.1f} "
              f"| {cpu_per_gb(tool) or float('nan'):.3f} "
              f"| {ratio if ratio is not None else float('nan'):.2f} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--stripes-only", action="store_true",
                        help="only the striped srt rows")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test of the harness: the striped rows, 3 s, one rep, "
                             "1.2 Gbps only")
    options = parser.parse_args()
    runner = Runner(Path(options.build) / "app" / "hdstream", [])
    if options.quick:
        run_striped(runner, 1, 3, STRIPED[:1])
        return
    if options.stripes_only:
        run_striped(runner, options.reps, options.duration, STRIPED)
        return
    rows = {name: [] for name in TRANSPORTS}
    srt_pairs = []
    for rep in range(options.reps):
        for name, args in TRANSPORTS.items():  # each right after its own iperf3 run
            peer = runner.iperf3(5, options.duration, rate="270M", cc=PACED_CC)
            run = paced(runner, args, options.duration)
            ratio = (cpu_per_gb(run) / cpu_per_gb(peer)
                     if cpu_per_gb(run) and cpu_per_gb(peer) else None)
            runner.note(f"rep {rep} {name}: {run} / iperf3 {peer['cpu_s']:.2f} s -> {ratio}")
            rows[name].append({**run, "ratio": ratio, "peer_cpu_per_gb": cpu_per_gb(peer)})
            if name == "srt":  # and right after it, libsrt's own tool
                tool = srt_live_transmit(options.duration)
                runner.note(f"rep {rep} srt-live-transmit: {tool}")
                srt_pairs.append((run, tool))
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
    print()
    print("| srt, 5 x 270 Mbps | goodput Mbps (receiver) | sender CPU s | receiver CPU s "
          "| CPU s / GB | ÷ srt-live-transmit |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, side in (("hdstream --transport srt", 0), ("5 x srt-live-transmit pairs", 1)):
        runs = [pair[side] for pair in srt_pairs]
        ratios = [cpu_per_gb(pair[side]) / cpu_per_gb(pair[1]) for pair in srt_pairs
                  if cpu_per_gb(pair[side]) and cpu_per_gb(pair[1])]
        print(f"| {name} | {statistics.median(r['mbps'] or 0 for r in runs):.1f} "
              f"| {statistics.median(r['tx_cpu_s'] for r in runs):.2f} "
              f"| {statistics.median(r['rx_cpu_s'] for r in runs):.2f} "
              f"| {statistics.median(cpu_per_gb(r) or 0 for r in runs):.3f} "
              f"| {statistics.median(ratios) if ratios else float('nan'):.2f} |")
    print()
    run_striped(runner, options.reps, options.duration, STRIPED)


if __name__ == "__main__":
    main()
