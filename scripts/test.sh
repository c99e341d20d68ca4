#!/usr/bin/env bash
# Sets everything up and runs the whole test suite (unit and loopback integration tests), then
# the unit and loopback tests again under ASan + UBSan and under TSan. Prints each stage's time
# at the end, passed or not.
#   scripts/test.sh                     # extra arguments go to the first ctest, e.g. -L unit
#   HDSTREAM_SKIP_ASAN=1 HDSTREAM_SKIP_TSAN=1 scripts/test.sh   # the normal stage alone
set -euo pipefail
cd "$(dirname "$0")/.."

# Every run starts from an empty media cache inside its build tree, as a fresh machine does:
# the sample clips are made by the tests that need them (a developer's ~/.cache/hdstream is not
# consulted).
export HDSTREAM_MEDIA_CACHE="$PWD/build/media-cache"
rm -rf "$HDSTREAM_MEDIA_CACHE"

# A stage that fails does not stop the run: the later stages still say what they find, and the
# run fails at the end, naming every stage that failed.
stages=()
failed=0
stage() {  # stage NAME COMMAND...: runs it and records its wall time and outcome
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  stages+=("$(printf '%-34s %6d s' "$name" $((SECONDS - start)))$([ $status -eq 0 ] || echo '  FAILED')")
  [ $status -eq 0 ] || failed=1
}
report() {
  local status=$?
  # The background builds do not outlive a run that stopped early.
  if [ -n "${builds:-}" ]; then
    kill -- -"$builds" 2>/dev/null || true
    kill -CONT -- -"$builds" 2>/dev/null || true  # a paused build ends once it runs again
  fi
  echo
  echo "test.sh: stage times (wall, $(nproc) cores)"
  for line in "${stages[@]}"; do echo "  $line"; done
  echo "  $(printf '%-34s %6d s' total "$SECONDS")  $([ $status -eq 0 ] && echo passed || echo FAILED)"
}
trap report EXIT

stage "packages + build (normal)" bash scripts/build.sh
[ $failed -eq 0 ] || exit 1

# The sanitizer trees build while the normal stage's pairable tests run: those move frames in
# real time and leave much of the CPU idle, and the builds take only what is idle (SCHED_IDLE and
# nice 19, in a session of their own whose scheduling group, its autogroup, has the lowest
# weight). The tests that need the whole machine (label "serial": linkemu at full rate, the demo,
# the screens) run after them with the builds paused, since a compiler beside them, even at idle
# priority, once made linkemu late (SrtFecWan, 7,293 late packets). Then the builds finish: the
# ASan tree first, whose tests run while the TSan tree completes.
sanitizers=1
if [ "${HDSTREAM_SKIP_ASAN:-0}" = 1 ] && [ "${HDSTREAM_SKIP_TSAN:-0}" = 1 ]; then sanitizers=0; fi
times=build/sanitizer-build-times.txt
rm -f "$times"
if [ $sanitizers = 1 ]; then
  setsid bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null || true
                  exec chrt --idle 0 nice -n 19 bash scripts/build-sanitizers.sh' \
    >build/sanitizer-builds.log 2>&1 &
  builds=$!
fi
built() {  # built NAME: waits until the background builds finished the tree NAME
  local start=$SECONDS
  while ! grep -q "^$1"$'\t' "$times" 2>/dev/null; do
    if ! kill -0 "$builds" 2>/dev/null; then
      wait "$builds" || true
      tail -40 build/sanitizer-builds.log
      echo "test.sh: the sanitizer builds failed; see build/sanitizer-builds.log"
      exit 1
    fi
    sleep 1
  done
  local seconds
  seconds=$(sed -n "s/^$1"$'\t'"//p" "$times")
  stages+=("$(printf '%-34s %6d s  (%d s waited for)' "$1" "$seconds" $((SECONDS - start)))")
}

pause_builds() {  # pause_builds STOP|CONT
  [ $sanitizers = 0 ] || kill -"$1" -- -"$builds" 2>/dev/null || true
}
stage "tests (normal, pairable)" ctest --preset default -j "$(nproc)" -LE serial "$@"
pause_builds STOP
stage "tests (normal, the whole machine)" ctest --preset default -j "$(nproc)" -L serial "$@"
pause_builds CONT

# The unit and loopback integration tests again under ASan + UBSan (build-asan/, preset asan).
# HDSTREAM_SKIP_ASAN=1 skips this stage.
if [ "${HDSTREAM_SKIP_ASAN:-0}" != 1 ]; then
  built "build (ASan + UBSan)"
  # Every unit test, GStreamer's included (their LeakSanitizer set-up: GSTREAMER in
  # tests/CMakeLists.txt, lsan.supp). The micro-benchmark smoke run is not built here; it runs in
  # the normal build above.
  stage "tests (ASan + UBSan, unit)" ctest --preset asan -j "$(nproc)" -L unit \
    -E '^micro_bench_smoke$'
  stage "tests (ASan + UBSan, loopback)" ctest --preset asan \
    -R "$(paste -sd'|' scripts/asan-integration-tests.txt)"
fi

# The transport tests and a few loopback process tests again under ThreadSanitizer (build-tsan/,
# preset tsan; suppressions in tsan.supp). A data race aborts the process (halt_on_error), so the
# test fails with the report in its output. HDSTREAM_SKIP_TSAN=1 skips this stage.
if [ "${HDSTREAM_SKIP_TSAN:-0}" != 1 ]; then
  built "build (TSan)"
  stage "tests (TSan)" ctest --preset tsan -R "$(grep -v '^#' scripts/tsan-tests.txt | paste -sd'|')"
fi

exit $failed
