#!/usr/bin/env bash
# What a cut costs each transport, as both ends count it: two 200 Mbps feeds between two linkemu
# sites (4 ms RTT, 1 Gbps, MTU 9000); after 5 s the cable is pulled (nothing arrives, nothing is
# reset; every transport's session breaks after 5 s of silence) for each length given, then put
# back. Prints, per transport and feed, both ends' "outage" lines: how long the session was
# down, the frames lost and, from them, when the feed resumed after the path's return. Needs root
# and /dev/net/tun; about (cut + 25 s) x 3 per length.
#   sudo bench/outage.sh 4 60                       # cut lengths in seconds
#   sudo TRANSPORTS="tcp mtcp" bench/outage.sh 10   # some transports only
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" -gt 0 ] || set -- 4 60
[ -f build/build.ninja ] || cmake --preset default >/dev/null
cmake --build build -j2 --target hdstream linkemu >/dev/null
bin=$PWD/build/app/hdstream
linkemu=$PWD/build/tools/linkemu/linkemu
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; "$linkemu" down --prefix cut- >/dev/null 2>&1 || true' EXIT

wait_for() {  # wait_for FILE TEXT: until FILE contains TEXT (at most 20 s)
  for _ in $(seq 200); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for '$2' in $1" >&2
  return 1
}

for cut in "$@"; do
  for transport in ${TRANSPORTS:-tcp mtcp srt}; do
    run=$work/$transport-$cut
    mkdir -p "$run"
    "$linkemu" up --rtt 4ms --rate 1G --mtu 9000 --prefix cut- --ready-file "$run/up" \
      >"$run/linkemu.out" 2>&1 &
    lemu=$!
    wait_for "$run/up" .
    ip netns exec cut-b "$bin" recv --listen 198.18.1.1:9000 --streams 2 --transport "$transport" \
      --stats json --interval 1s >"$run/recv.jsonl" 2>"$run/recv.err" &
    recv=$!
    wait_for "$run/recv.err" "listening on"
    ip netns exec cut-a "$bin" send --dest 198.18.1.1:9000 --streams 2 --transport "$transport" \
      --rate 200M --rtt 4ms --duration "$((cut + 20))s" --stats json --interval 1s \
      >"$run/send.jsonl" 2>"$run/send.err" &
    send=$!
    sleep 5             # the feeds run before the cut
    kill -USR1 "$lemu"  # cable out
    sleep "$cut"
    kill -USR2 "$lemu"  # and back
    wait "$send" || true
    # The receiver ends once its feeds have ended; one still waiting for a sender that failed
    # would wait forever (as it should): it is stopped after 30 s.
    (sleep 30 && kill -INT "$recv" 2>/dev/null) &
    watchdog=$!
    wait "$recv" || true
    kill "$watchdog" 2>/dev/null || true
    kill "$lemu"
    wait "$lemu" || true
    python3 - "$transport" "$cut" "$run" <<'EOF'
import json, sys
transport, cut, run = sys.argv[1], float(sys.argv[2]), sys.argv[3]
for end in ("send", "recv"):
    last = {}
    for line in open(f"{run}/{end}.jsonl"):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if j.get("type") == "outage":
            last[j["stream"]] = j
    for stream in sorted(last):
        o = last[stream]
        # The session breaks only after its timeout, so the outage is shorter than the cut; the
        # frames lost span the whole cut and the time to resume after it.
        lost_s = o['frames_lost'] / 29.97
        print(f"{transport:4} cut {cut:4.0f} s  {end}  stream {stream}: outages {o['outages']}, "
              f"session down {o['outage_s']:.2f} s, {o['frames_lost']} frames lost "
              f"({lost_s:.2f} s of frames: resumed {lost_s - cut:+.2f} s after the path)")
    if not last:
        print(f"{transport:4} cut {cut:4.0f} s  {end}: no outage line (see {run})")
EOF
  done
done
