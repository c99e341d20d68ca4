#!/usr/bin/env bash
# Measures linkemu's own ceiling against a veth pair in the same run (iperf3, 0 ms, no rate cap,
# MTU 1500 and 9000). Prints one markdown table row per case. Needs root; takes ~45 s.
#   tests/wan/linkemu_ceiling.sh build/tools/linkemu/linkemu [seconds]
set -euo pipefail
linkemu=${1:?path of the linkemu binary}
secs=${2:-8}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; ip netns del hdsceil-va 2>/dev/null || true; ip netns del hdsceil-vb 2>/dev/null || true; "$linkemu" down --prefix hdsceil- >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

iperf_between() {  # ns_a ns_b address -> "sender_mbps retransmits"
  ip netns exec "$2" iperf3 -s -1 -B "$3" >/dev/null 2>&1 &
  local server=$!
  for _ in $(seq 50); do ip netns exec "$2" ss -ltn | grep -q ":5201" && break; sleep 0.1; done
  ip netns exec "$1" iperf3 -c "$3" -t "$secs" -J >"$tmp/out.json"
  wait $server || true
  python3 -c "import json;e=json.load(open('$tmp/out.json'))['end'];print('%.0f %d'%(e['sum_received']['bits_per_second']/1e6,e['sum_sent'].get('retransmits',0)))"
}

echo "| MTU | veth pair (Mbps) | linkemu (Mbps) | ratio | linkemu drops (own / kernel) | late > 1 ms |"
echo "|---|---|---|---|---|---|"
for mtu in 1500 9000; do
  ip netns add hdsceil-va; ip netns add hdsceil-vb
  ip link add hdsceil0 netns hdsceil-va type veth peer name hdsceil1 netns hdsceil-vb
  ip -n hdsceil-va addr add 198.18.0.1/24 dev hdsceil0; ip -n hdsceil-vb addr add 198.18.0.2/24 dev hdsceil1
  ip -n hdsceil-va link set hdsceil0 mtu $mtu up; ip -n hdsceil-vb link set hdsceil1 mtu $mtu up
  veth=$(iperf_between hdsceil-va hdsceil-vb 198.18.0.2)
  ip netns del hdsceil-va; ip netns del hdsceil-vb

  "$linkemu" up --prefix hdsceil- --mtu $mtu --stats-file "$tmp/le.jsonl" --ready-file "$tmp/ready" \
    >"$tmp/le.log" 2>&1 &
  le=$!
  for _ in $(seq 100); do [ -f "$tmp/ready" ] && break; sleep 0.1; done
  emu=$(iperf_between hdsceil-a hdsceil-b 198.18.1.1)
  kill $le; wait $le || true; rm -f "$tmp/ready"
  counters=$(python3 -c "
import json
d=json.loads(open('$tmp/le.jsonl').read().splitlines()[-1])['directions']
own=sum(x['overload_drops'] for x in d); kern=sum(x['kernel_drops'] for x in d)
late=sum(x['late_packets'] for x in d); fwd=sum(x['packets_forwarded'] for x in d)
print('%d / %d|%.2f%%'%(own,kern,100.0*late/max(fwd,1)))")
  v=${veth% *}; e=${emu% *}
  echo "| $mtu | $v | $e | $(python3 -c "print('%.2f'%($e/$v))") | ${counters%|*} | ${counters#*|} |"
done
