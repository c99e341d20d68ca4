#!/usr/bin/env bash
# Runs every WAN scenario (full durations by default, --short for the ctest ones), measures the
# emulator's ceiling, and writes docs/SCENARIOS.md (seed figure vs hdstream figure per run) and
# docs/images/wan-*.png via bench/wan_report.py. `bench/wan` builds first and then calls this.
#   tests/wan/run_full.sh [--short] [build-dir]       (root; ~10 min full, ~2 min short)
# The raw results stay in <build-dir>/wan-results.jsonl, the processes' stats in
# <build-dir>/wan-work/.
set -euo pipefail
mode=--full; [ "${1:-}" = "--short" ] && { mode=""; shift; }
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
results=$build/wan-results.jsonl; ceiling=$build/wan-ceiling.md
rm -f "$results"
"$src/tests/wan/linkemu_ceiling.sh" "$build/tools/linkemu/linkemu" 8 >"$ceiling"
status=0
for scenario in "$src"/tests/wan/*.toml; do
  name=$(basename "$scenario" .toml)
  "$build/tests/wan/wan_runner" --scenario "$scenario" --hdstream "$build/app/hdstream" \
    --results "$results" --work-dir "$build/wan-work/$name" $mode || status=1
done
# Debian's python3 has matplotlib (python3-matplotlib); a pyenv python3 first on PATH may not.
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" "$src/bench/wan_report.py" "$results" "$ceiling" "$([ -n "$mode" ] && echo full || echo short)" \
  >"$src/docs/SCENARIOS.md.new"
mv "$src/docs/SCENARIOS.md.new" "$src/docs/SCENARIOS.md"
echo "wrote $src/docs/SCENARIOS.md and docs/images/wan-*.png (exit $status: 1 if any run failed)"
exit $status
