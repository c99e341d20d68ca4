#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time over the committed seeds.
#   fuzz/run.sh BINARY SEED_DIR WORK_DIR SECONDS
# New inputs go to WORK_DIR (never into the committed corpus); a crash leaves
# WORK_DIR/crash-* and a non-zero exit. Copy a crash into fuzz/corpus/<target>/ once fixed:
# the replay tests (fuzz_replay_<target>) then keep it as a regression test.
set -euo pipefail
binary=$1 seeds=$2 work=$3 seconds=$4
mkdir -p "$work"
exec "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work" "$seeds"
