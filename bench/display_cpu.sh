#!/usr/bin/env bash
# What showing pictures costs, against GStreamer showing the same decoded clip in the same run:
# CPU seconds (user + system) of the receiving side for 10 s of 1080p29.97 DNxHD 220 under Xvfb
# (1920x1080), interleaved repetitions.
#   - one feed fullscreen: `hdstream recv --output screen:0` fed over loopback by `hdstream send`
#     (network receive, verify, decode, libswscale to RGB, Qt paint), against
#     `gst-launch-1.0 filesrc ! qtdemux ! avdec_dnxhd ! videoconvert ! ximagesink` playing the
#     same clip (autovideosink picks ximagesink under Xvfb: no Xv);
#   - five feeds in a multiview: `--output multiview`, against five such gst-launch windows;
#   - the decode-only receiver (`--output null`) in the same run, so the display's own share
#     is the difference.
#   bench/display_cpu.sh [build-dir] [reps]      (prints a Markdown table)
set -euo pipefail
build=${1:-build}
reps=${2:-3}
hdstream="$(realpath "$build/app/hdstream")"
work=$(mktemp -d)
trap 'kill $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
clip="$work/clip.mov"
ffmpeg -loglevel error -f lavfi -i "testsrc2=size=1920x1080:rate=30000/1001" -t 10 \
  -c:v dnxhd -b:v 220M -pix_fmt yuv422p "$clip"
Xvfb :73 -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
sleep 1
export DISPLAY=:73

cpu_of() {  # user + system CPU seconds of the command, from /usr/bin/time
  /usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>&1 || true
  awk '{ print $1 + $2 }' "$work/time"
}
hdstream_recv() {  # feeds output: CPU seconds of the receiver for 10 s
  local port=$((20000 + RANDOM % 20000))
  "$hdstream" send --dest "127.0.0.1:$port" --streams "$1" --format dnxhd220 \
    --source "file:$clip" --duration 10s --log-level warn >/dev/null 2>&1 &
  local sender=$!
  cpu_of "$hdstream" recv --listen "127.0.0.1:$port" --streams "$1" --output "$2" \
    --log-level warn --stats-file /dev/null
  wait $sender || true
}
gst_play() {  # feeds: CPU seconds of that many gst-launch players of the clip, summed
  local total=0 pids=() i
  for i in $(seq "$1"); do
    /usr/bin/time -f "%U %S" -o "$work/gst$i" gst-launch-1.0 -q filesrc location="$clip" ! \
      qtdemux ! avdec_dnxhd ! videoconvert ! autovideosink >/dev/null 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || true
  for i in $(seq "$1"); do total=$(awk -v t="$total" '{ print t + $1 + $2 }' "$work/gst$i"); done
  echo "$total"
}

echo "| shown | hdstream recv (CPU s / 10 s) | hdstream decode only (\`--output null\`) | gst-launch … ! autovideosink | ratio hdstream / gst-launch (min–max) |"
echo "|---|---:|---:|---:|---:|"
for case in "1 screen:0" "5 multiview"; do
  read -r feeds output <<<"$case"
  shown=(); null=(); gst=()
  for _ in $(seq "$reps"); do  # interleaved, so drifting machine load hits all alike
    shown+=("$(hdstream_recv "$feeds" "$output")")
    null+=("$(hdstream_recv "$feeds" null)")
    gst+=("$(gst_play "$feeds")")
  done
  awk -v name="$feeds × 1080 DNxHD 220, --output $output" -v a="${shown[*]}" -v b="${null[*]}" \
    -v c="${gst[*]}" 'BEGIN {
    n = split(a, x, " "); split(b, y, " "); split(c, z, " ")
    lo = 1e9; hi = 0
    for (i = 1; i <= n; i++) {
      sa += x[i]; sb += y[i]; sc += z[i]; r = x[i] / z[i]
      if (r < lo) lo = r; if (r > hi) hi = r
    }
    printf "| %s | %.2f | %.2f | %.2f | %.2f (%.2f–%.2f) |\n", name, sa / n, sb / n, sc / n,
           sa / sc, lo, hi }'
done
