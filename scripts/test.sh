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

stages=()
stage() {  # stage NAME COMMAND...: runs it and records its wall time
  local name=$1 start=$SECONDS
  shift
  "$@"
  stages+=("$(printf '%-34s %6d s' "$name" $((SECONDS - start)))")
}
report() {
  local status=$?
  echo
  echo "test.sh: stage times (wall, $(nproc) cores)"
  for line in "${stages[@]}"; do echo "  $line"; done
  echo "  $(printf '%-34s %6d s' total "$SECONDS")  $([ $status -eq 0 ] && echo passed || echo FAILED)"
}
trap report EXIT

stage "packages + build (normal)" bash scripts/build.sh
stage "tests (normal)" ctest --preset default -j "$(nproc)" "$@"

# The unit and loopback integration tests again under ASan + UBSan (build-asan/, preset asan).
# HDSTREAM_SKIP_ASAN=1 skips this stage.
if [ "${HDSTREAM_SKIP_ASAN:-0}" != 1 ]; then
  cmake --preset asan >/dev/null
  # Only what these tests need (the Qt panel tests, WAN runner and link emulator are skipped).
  stage "build (ASan + UBSan)" cmake --build --preset asan --target hdstream protocol_tests \
    transport_tests presets_tests fuzz_regressions_tests stats_tests common_tests \
    pipeline_tests media_tests telemetry_tests \
    fuzz_replay_wire_reassembler fuzz_replay_handshake fuzz_replay_receiver_reports \
    fuzz_replay_presets fuzz_replay_audio_block security_process_tests loopback_tests mux_tests \
    mux_unit_tests feedback_tests display_layout_tests acceptance_tests
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
  cmake --preset tsan >/dev/null
  stage "build (TSan)" cmake --build --preset tsan --target hdstream common_tests \
    transport_tests mtcp_transport_tests loopback_tests security_process_tests feedback_tests \
    check_probe_tests
  stage "tests (TSan)" ctest --preset tsan -R "$(grep -v '^#' scripts/tsan-tests.txt | paste -sd'|')"
fi
