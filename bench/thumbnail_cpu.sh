#!/usr/bin/env bash
# What the panel's thumbnails cost on the receiving host, against ffmpeg making the same
# thumbnails in the same run. Per 1080 DNxHD 220 picture (testsrc2, decoded 4:2:2 8-bit):
#   - hdstream: pipeline/thumbnails (one libswscale pass to 128x72 BGRA) and its JPEG, from
#     build/bench/micro/hdstream_micro, with decoding the same frame beside them;
#   - ffmpeg: `-vf scale=128:72:flags=bilinear,format=bgra` over the same decoded pictures, read
#     raw and looped, minus the same run without the filter (reading them).
# A feed makes at most 5 thumbnails a second and decodes 29.97 pictures: the last column is what
# one feed's thumbnails take of a core. Interleaved repetitions; min-max shown.
#   bench/thumbnail_cpu.sh [build-dir] [reps]      (prints a Markdown table)
set -euo pipefail
build=${1:-build}
reps=${2:-3}
micro="$(realpath "$build/bench/micro/hdstream_micro")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -loglevel error -f lavfi -i "testsrc2=size=1920x1080:rate=30000/1001" -frames:v 30 \
  -pix_fmt yuv422p -f rawvideo "$work/pictures.yuv"
loops=20  # 30 pictures x 21 passes = 630 pictures
pictures=$((30 * (loops + 1)))

cpu_of() {  # user + system CPU seconds of the command
  /usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>&1
  awk '{ print $1 + $2 }' "$work/time"
}
ffmpeg_pass() {  # extra ffmpeg arguments: CPU seconds for the looped pictures
  cpu_of ffmpeg -nostdin -threads 1 -filter_threads 1 -stream_loop "$loops" -f rawvideo \
    -pix_fmt yuv422p -s 1920x1080 -i "$work/pictures.yuv" "$@" -f null -
}
ms_of() {  # benchmark name: ms per call from one hdstream_micro run's JSON
  python3 -c 'import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
print([r["real_time"] for r in runs if r["name"] == sys.argv[2]][0])' "$work/micro.json" "$1"
}

thumb=(); jpeg=(); decode=(); peer=()
for _ in $(seq "$reps"); do
  "$micro" --benchmark_filter='Decode1080Dnxhd|ThumbnailOf1080|ThumbnailJpeg' \
    --benchmark_min_time=1 --benchmark_format=json >"$work/micro.json" 2>/dev/null
  thumb+=("$(ms_of BM_ThumbnailOf1080)")
  jpeg+=("$(ms_of BM_ThumbnailJpeg)")
  decode+=("$(ms_of BM_Decode1080Dnxhd)")
  plain=$(ffmpeg_pass)
  scaled=$(ffmpeg_pass -vf "scale=128:72:flags=bilinear,format=bgra")
  peer+=("$(awk -v a="$plain" -v b="$scaled" -v n="$pictures" 'BEGIN { print (b - a) / n * 1000 }')")
done

echo "| per 1080 picture | hdstream (ms) | ffmpeg scale=128:72 (ms) | ratio hdstream / ffmpeg (min–max) | one feed at 5 a second, % of a core |"
echo "|---|---:|---:|---:|---:|"
awk -v t="${thumb[*]}" -v j="${jpeg[*]}" -v d="${decode[*]}" -v p="${peer[*]}" 'BEGIN {
  n = split(t, th, " "); split(j, jp, " "); split(d, de, " "); split(p, pe, " ")
  lo = 1e9; hi = 0
  for (i = 1; i <= n; i++) {
    st += th[i]; sj += jp[i]; sd += de[i]; sp += pe[i]
    r = th[i] / pe[i]; if (r < lo) lo = r; if (r > hi) hi = r
  }
  printf "| thumbnail (libswscale to 128x72 BGRA) | %.3f | %.3f | %.2f (%.2f–%.2f) | %.2f |\n",
    st / n, sp / n, st / sp, lo, hi, st / n * 5 / 10
  printf "| its JPEG (only when a monitor asks) | %.3f | — | — | %.2f |\n", sj / n, sj / n * 5 / 10
  printf "| decoding the picture (every one, 29.97 a second) | %.3f | — | — | %.1f |\n",
    sd / n, sd / n * 29.97 / 10
}'
