#!/usr/bin/env python3
"""DNxHD 220 decode on the content the product shows: the demo's own bars clip, beside a harder
one (noise) and an easier one (testsrc2), each against ffmpeg decoding the same clip the way
hdstream does (-threads 1 -idct xvid) in the same run.

  bench/decode_clips.py [--build build] [--feeds 5] [--seconds 8] [--reps 3]

For each clip and rep: N feeds of it through `hdstream send --source file:` into
`hdstream recv --output null` (every chunk verified, every frame decoded), then N ffmpeg
sender/receiver pairs (-c copy over NUT/TCP, the receivers decoding to -f null). Compared: the
receiving processes' CPU (user + system, start-up included) per decoded frame. Prints a Markdown
table per clip and the feeds two cores would decode in real time at that cost (derived)."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import ROOT, Runner, ffmpeg_feeds, hdstream_media, machine, make_dnxhd_clip  # noqa: E402

FPS = 30000 / 1001


def lavfi_clip(work, name, source):
    clip = Path(work) / f"{name}.mov"
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source,
                    "-frames:v", "60", "-c:v", "dnxhd", "-b:v", "220M", "-pix_fmt", "yuv422p",
                    str(clip)], check=True, timeout=300)
    return clip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--feeds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    hdstream = str(Path(args.build) / "app" / "hdstream")
    runner = Runner(hdstream, [])
    info = machine()
    print(f"Machine: {info['cpu']}, {info['nproc']} cores; load at start "
          f"{os.getloadavg()[0]:.2f}. {args.feeds} feeds, {args.seconds} s, {args.reps} reps.\n")
    with tempfile.TemporaryDirectory() as work:
        size = "size=1920x1080:rate=30000/1001"
        clips = [
            ("bars (the demo's own, hdstream demo's feed 0)", make_dnxhd_clip(hdstream, work)),
            ("noise (harder)", lavfi_clip(work, "noise", f"nullsrc={size},geq=random(1)*255:128:128")),
            ("testsrc2 (easier)", lavfi_clip(work, "testsrc2", f"testsrc2={size}")),
        ]
        print("| clip | rep | hdstream ms/frame | decoded | ffmpeg -threads 1 -idct xvid ms/frame "
              "| decoded | ratio | hdstream real time |")
        print("|---|---:|---:|---|---:|---|---:|---|")
        summary = []
        for name, clip in clips:
            ratios, costs = [], []
            for rep in range(args.reps):
                h = hdstream_media(runner, clip, args.feeds, args.seconds)
                f = ffmpeg_feeds(clip, args.feeds, args.seconds, ("-threads", "1", "-idct", "xvid"))
                hm, fm = h["rx_cpu_ms_per_frame"], f["rx_cpu_ms_per_frame"]
                ratio = hm / fm if hm and fm else None
                if ratio:
                    ratios.append(ratio)
                    costs.append(hm)
                print(f"| {name} | {rep} | {hm or 0:.2f} | {h['decoded']} of {h['sent']} | "
                      f"{fm or 0:.2f} | {f['decoded']} | {ratio or 0:.2f} | "
                      f"{'yes' if h['real_time'] else 'NO'} |", flush=True)
            if costs:
                summary.append((name, statistics.median(costs), min(ratios), max(ratios)))
        print("\n| clip | hdstream receiver ms/frame (median) | ratio to ffmpeg (range) | "
              "feeds two idle cores decode at 29.97 fps (derived) |")
        print("|---|---:|---|---:|")
        for name, cost, low, high in summary:
            print(f"| {name} | {cost:.2f} | {low:.2f}-{high:.2f} | "
                  f"{2 * 1000 / (cost * FPS):.1f} |")


if __name__ == "__main__":
    main()
