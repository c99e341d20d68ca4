#!/usr/bin/env bash
# What a feed's sound costs: one 1080 29.97 DNxHD 220 feed carried 10 s over loopback and decoded
# at the far end, with 8 channels of 24-bit sound and without, CPU seconds of sender + receiver
# together; against ffmpeg carrying the same clip the same way in the same run (stream copy into
# Matroska over TCP, the receiver decoding picture and sound into -f null, one decoder thread as
# hdstream's). hdstream's receiver also meters the sound and plays it to a clocked sink
# (--audio-output null); ffmpeg's only decodes it. Interleaved repetitions; min-max shown.
#   bench/audio_cpu.sh [build-dir] [reps]      (prints a Markdown table)
set -euo pipefail
build=${1:-build}
reps=${2:-3}
hdstream="$(realpath "$build/app/hdstream")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds=10

# 30 frames (1.001 s: 48,048 samples, whole cadences, so it loops without a seam) of testsrc2 as
# DNxHD 220 and 8 channels of tone under noise, each its own.
exprs=""
for c in 0 1 2 3 4 5 6 7; do
  exprs+="${exprs:+|}0.5*sin(2*PI*$((97 * (c + 1)))*t)+0.2*(random($c)-0.5)"
done
ffmpeg -loglevel error -f lavfi -i "testsrc2=size=1920x1080:rate=30000/1001" \
  -f lavfi -i "aevalsrc=exprs='$exprs':s=48000" -t 1.001 -c:v dnxhd -b:v 220M -pix_fmt yuv422p \
  -c:a pcm_s24le "$work/clip.mov"

cpu_of() {  # user + system CPU seconds of a finished command, from its time file
  awk '{ print $1 + $2 }' "$1"
}
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

hdstream_run() {  # extra send arguments: CPU seconds of send + recv
  local p; p=$(port)
  /usr/bin/time -f "%U %S" -o "$work/recv.time" "$hdstream" recv --listen "127.0.0.1:$p" \
    --output null --audio-output null >"$work/recv.out" 2>"$work/recv.err" &
  local recv=$!
  for _ in $(seq 50); do grep -q listening "$work/recv.err" && break; sleep 0.1; done
  /usr/bin/time -f "%U %S" -o "$work/send.time" "$hdstream" send --dest "127.0.0.1:$p" \
    --format dnxhd220 --source "file:$work/clip.mov" --duration "${seconds}s" "$@" \
    >/dev/null 2>"$work/send.err"
  wait "$recv"
  # Every frame delivered and decoded, or the figure means nothing.
  grep -q "$(awk -v s="$seconds" 'BEGIN { printf "%.0f", s * 30000 / 1001 }') frames, [0-9.]* Mbps, 0 drops" \
    "$work/recv.out" ||
    { echo "hdstream lost frames: $(tail -1 "$work/recv.out")" >&2; exit 1; }
  awk -v a="$(cpu_of "$work/send.time")" -v b="$(cpu_of "$work/recv.time")" \
    'BEGIN { print a + b }'
}

ffmpeg_run() {  # extra sender arguments: CPU seconds of sender + receiver
  local p; p=$(port)
  /usr/bin/time -f "%U %S" -o "$work/recv.time" ffmpeg -nostdin -loglevel error -threads 1 \
    -i "tcp://127.0.0.1:$p?listen=1" -f null - 2>"$work/ffrecv.err" &
  local recv=$!
  sleep 0.5
  /usr/bin/time -f "%U %S" -o "$work/send.time" ffmpeg -nostdin -loglevel error -re \
    -stream_loop $((seconds - 1)) -i "$work/clip.mov" -c copy "$@" -f matroska \
    "tcp://127.0.0.1:$p" 2>"$work/ffsend.err"
  wait "$recv"
  awk -v a="$(cpu_of "$work/send.time")" -v b="$(cpu_of "$work/recv.time")" \
    'BEGIN { print a + b }'
}

ours=(); ours_mute=(); peer=(); peer_mute=()
for _ in $(seq "$reps"); do
  ours+=("$(hdstream_run)")
  ours_mute+=("$(hdstream_run --audio-source none)")
  peer+=("$(ffmpeg_run)")
  peer_mute+=("$(ffmpeg_run -an)")
done

echo "| one 1080 DNxHD 220 feed, 10 s, send + recv | hdstream (CPU s) | ffmpeg (CPU s) | ratio hdstream / ffmpeg (min–max) |"
echo "|---|---:|---:|---:|"
awk -v a="${ours[*]}" -v b="${ours_mute[*]}" -v c="${peer[*]}" -v d="${peer_mute[*]}" 'BEGIN {
  n = split(a, oa, " "); split(b, ob, " "); split(c, pa, " "); split(d, pb, " ")
  lo1 = lo2 = lo3 = 1e9; hi1 = hi2 = hi3 = -1e9
  for (i = 1; i <= n; i++) {
    sa += oa[i]; sb += ob[i]; sc += pa[i]; sd += pb[i]
    r = oa[i] / pa[i]; if (r < lo1) lo1 = r; if (r > hi1) hi1 = r
    r = ob[i] / pb[i]; if (r < lo2) lo2 = r; if (r > hi2) hi2 = r
    m = oa[i] - ob[i]; if (m < lo3) lo3 = m; if (m > hi3) hi3 = m
    q = pa[i] - pb[i]; if (q < lo4 || i == 1) lo4 = q; if (q > hi4 || i == 1) hi4 = q
  }
  printf "| with 8 channels of 24-bit sound | %.2f | %.2f | %.2f (%.2f–%.2f) |\n",
    sa / n, sc / n, sa / sc, lo1, hi1
  printf "| the same picture without sound | %.2f | %.2f | %.2f (%.2f–%.2f) |\n",
    sb / n, sd / n, sb / sd, lo2, hi2
  printf "| the sound alone (with − without; min–max) | %.2f (%.2f–%.2f) | %.2f (%.2f–%.2f) | — |\n",
    (sa - sb) / n, lo3, hi3, (sc - sd) / n, lo4, hi4
}'
