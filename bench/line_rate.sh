#!/usr/bin/env bash
# Uncompressed HD at line rate through the link emulator: N v210 1080p59.94 feeds (2.65 Gbps
# each) from a raw clip, over an emulated 10 Gbps, 4 ms, MTU 9000 path, every byte verified,
# beside the emulator's own ceiling measured in the same run (iperf3 through the same path).
# The capacity figure that tests/wan/line_rate_test.cpp keeps out of the test suite (its test
# carries 2 x 1 Gbps, a third of the ceiling). Needs root and /dev/net/tun; ~40 s.
#   bench/line_rate.sh [build-dir] [feeds] [seconds]      # defaults: build 2 10
# Prints one markdown table row: feeds, Gbps carried, frames, drops, checksum errors, linkemu's
# iperf3 ceiling, and the CPU model.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
feeds=${2:-2}
secs=${3:-10}
linkemu=$build/tools/linkemu/linkemu
hdstream=$build/app/hdstream
tmp=$(mktemp -d)
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  "$linkemu" down --prefix hdsrate- >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# 30 frames of v210 1080p59.94 (166 MB), looped from the page cache.
clip=$tmp/v210.mov
ffmpeg -hide_banner -loglevel error -f lavfi -i "smptehdbars=size=1920x1080:rate=60000/1001" \
  -frames:v 30 -c:v v210 "$clip"

"$linkemu" up --prefix hdsrate- --rtt 4ms --rate 10G --mtu 9000 --queue 20M \
  --stats-file "$tmp/le.jsonl" --ready-file "$tmp/ready" >"$tmp/le.log" 2>&1 &
for _ in $(seq 100); do [ -f "$tmp/ready" ] && break; sleep 0.1; done
[ -f "$tmp/ready" ] || { cat "$tmp/le.log" >&2; exit 1; }

# The emulator's ceiling on this path, this run: iperf3, one stream.
ip netns exec hdsrate-b iperf3 -s -1 -B 198.18.1.1 >/dev/null 2>&1 &
for _ in $(seq 50); do ip netns exec hdsrate-b ss -ltn | grep -q ":5201" && break; sleep 0.1; done
ip netns exec hdsrate-a iperf3 -c 198.18.1.1 -t 5 -J >"$tmp/iperf.json"
ceiling=$(python3 -c "import json;print('%.2f'%(json.load(open('$tmp/iperf.json'))['end']['sum_received']['bits_per_second']/1e9))")

ip netns exec hdsrate-b "$hdstream" recv --listen 198.18.1.1:9300 --streams "$feeds" \
  --stats json --stats-file "$tmp/recv.jsonl" >/dev/null 2>"$tmp/recv.err" &
recv=$!
for _ in $(seq 100); do grep -q "listening on" "$tmp/recv.err" && break; sleep 0.1; done
ip netns exec hdsrate-a "$hdstream" send --dest 198.18.1.1:9300 --streams "$feeds" \
  --format v210-1080p60 --source "file:$clip" --rtt 4ms --latency 400ms --duration "${secs}s" \
  --stats json --stats-file "$tmp/send.jsonl" >/dev/null 2>"$tmp/send.err" || true
wait $recv || true

python3 - "$tmp/recv.jsonl" "$feeds" "$ceiling" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
s = [l for l in lines if l.get("type") == "summary"][-1]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print("| feeds | carried (Gbps) | frames | drops | checksum errors | linkemu ceiling, iperf3 (Gbps) | CPU |")
print("|---|---|---|---|---|---|---|")
print(f"| {sys.argv[2]} x v210-1080p60 | {s['mbps']/1e3:.2f} | {s['frames']} | {s['drops']} | "
      f"{s['checksum_errors']} | {sys.argv[3]} | {cpu} |")
PY
