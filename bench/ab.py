#!/usr/bin/python3
"""Before/after of a change: two or more hdstream binaries on loopback, interleaved
repetitions, median goodput and CPU seconds per GB (sender + receiver, wait4). Bulk:
`hdstream bench` unpaced; --paced: `send`/`recv` of 270 Mbps feeds (the paced row of
docs/PERFORMANCE.md), with the receiver's drops.

    bench/ab.py /tmp/hdstream.before build/app/hdstream --reps 3 --streams 5 --duration 4
    bench/ab.py /tmp/hdstream.before build/app/hdstream --paced --duration 10
    bench/ab.py /tmp/before/hdstream build/app/hdstream --paced --clip /tmp/uyvy1080.mov
    bench/ab.py build/app/hdstream --chunk-sizes 64K,256K,1M   # one binary, chunk sizes A/B
"""

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import Runner  # noqa: E402


def clip_format(clip):
    """The --format preset a clip's name starts with (bench/limits.py names uyvy1080.mov)."""
    for preset in ("uyvy1080", "v210-1080p60", "dnxhd220"):
        if Path(clip).name.startswith(preset):
            return preset
    sys.exit(f"{clip}: name it after its preset (uyvy1080…, v210-1080p60…, dnxhd220…)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--streams", type=int, default=5)
    parser.add_argument("--duration", type=int, default=4)
    parser.add_argument("--chunk-size", default=None)
    parser.add_argument("--chunk-sizes", default=None,
                        help="comma-separated: every binary runs with each chunk size")
    parser.add_argument("--paced", action="store_true",
                        help="send/recv at 270 Mbps a feed instead of unpaced bench")
    parser.add_argument("--clip", default=None,
                        help="with --paced: feeds from this clip (--source file:CLIP, its own "
                             "format and rate, e.g. uyvy1080) instead of synthetic frames")
    args = parser.parse_args()
    if args.clip and not args.paced:
        parser.error("--clip needs --paced")
    if args.paced and (args.chunk_size or args.chunk_sizes):
        parser.error("--paced runs the default chunk size")

    sizes = args.chunk_sizes.split(",") if args.chunk_sizes else [args.chunk_size]
    variants = [(b, size) for b in args.binaries for size in sizes]
    results = {f"{b} --chunk-size {size}" if size else b: [] for b, size in variants}
    for rep in range(args.reps):
        # Alternate the order: the run right after another one is measurably slower here (7 %
        # in bulk goodput on a 2-core machine), which fixed order would charge to one binary.
        order = list(zip(variants, results))
        for (binary, size), key in (order if rep % 2 == 0 else order[::-1]):
            extra = ("--chunk-size", size) if size else ()
            runner = Runner(binary, [])
            if args.paced and args.clip:
                r = runner.hdstream_paced(args.streams, args.duration, rate=None,
                                          fmt=clip_format(args.clip),
                                          extra=("--source", f"file:{args.clip}"))
            elif args.paced:
                r = runner.hdstream_paced(args.streams, args.duration)
            else:
                r = runner.hdstream_bulk(args.streams, args.duration, extra)
            gb = r["bytes"] / 1e9
            results[key].append((r["mbps"] or 0, r["cpu_s"] / gb if gb else 0))
            drops = f", drops {r['drops']}" if args.paced else ""
            print(f"rep {rep} {key}: {r['mbps']} Mbps, {r['cpu_s'] / gb if gb else 0:.3f} "
                  f"CPU s/GB{drops}", file=sys.stderr, flush=True)
    print("| binary | goodput Gbps, median (min–max) | CPU s/GB, median (min–max) |")
    print("|---|---|---|")
    for binary, rows in results.items():
        mbps = [m for m, _ in rows]
        cpu = [c for _, c in rows]
        print(f"| {binary} | {statistics.median(mbps) / 1e3:.2f} ({min(mbps) / 1e3:.2f}–"
              f"{max(mbps) / 1e3:.2f}) | {statistics.median(cpu):.3f} ({min(cpu):.3f}–"
              f"{max(cpu):.3f}) |")


if __name__ == "__main__":
    main()
