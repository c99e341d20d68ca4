#!/usr/bin/env bash
# What the live Qt panel costs: CPU seconds of `hdstream demo` with the panel (offscreen, 10 Hz)
# minus the same demo without it, for 5 and 16 feeds, in the same run. The feeds are light
# (synthetic, 10 Mbps): the panel's cost does not depend on the feed rate.
#   bench/panel_cpu.sh [build-dir] [reps]      (prints a Markdown table)
set -euo pipefail
build=${1:-build}
reps=${2:-3}
hdstream="$build/app/hdstream"
cpu_seconds() {  # user + system CPU seconds of one 10 s demo
  QT_QPA_PLATFORM=offscreen /usr/bin/time -f "%U %S" "$hdstream" demo --streams "$1" --rate 10M \
    --format synthetic --duration 10s --output null "$2" --stats-file /dev/null \
    --log-level warn 2>&1 >/dev/null | tail -1 | awk '{ print $1 + $2 }'
}
echo "| feeds | demo without panel (CPU s / 10 s) | with panel | panel alone, % of one core |"
echo "|---:|---:|---:|---:|"
for feeds in 5 16; do
  without=(); with=()
  for _ in $(seq "$reps"); do  # interleaved, so drifting machine load hits both alike
    without+=("$(cpu_seconds "$feeds" --no-gui)")
    with+=("$(cpu_seconds "$feeds" --gui)")
  done
  awk -v feeds="$feeds" -v without="${without[*]}" -v with="${with[*]}" 'BEGIN {
    n = split(without, a, " "); split(with, b, " ")
    for (i = 1; i <= n; i++) { sa += a[i]; sb += b[i] }
    printf "| %d | %.2f | %.2f | %.1f |\n", feeds, sa / n, sb / n, (sb - sa) / n * 10 }'
done
