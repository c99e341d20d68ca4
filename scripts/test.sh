#!/usr/bin/env bash
# Sets everything up and runs the whole test suite (unit and loopback integration tests).
#   scripts/test.sh                     # extra arguments go to ctest, e.g. -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --preset default -j "$(nproc)" "$@"

# The unit and loopback integration tests again under ASan + UBSan (build-asan/, preset asan).
# HDSTREAM_SKIP_ASAN=1 skips this stage.
if [ "${HDSTREAM_SKIP_ASAN:-0}" != 1 ]; then
  cmake --preset asan >/dev/null
  # Only what these tests need (the Qt panel tests, WAN runner and link emulator are skipped).
  cmake --build --preset asan --target hdstream protocol_tests transport_tests presets_tests \
    fuzz_regressions_tests stats_tests common_tests pipeline_tests media_tests telemetry_tests \
    fuzz_replay_wire_reassembler fuzz_replay_handshake fuzz_replay_receiver_reports \
    fuzz_replay_presets fuzz_replay_audio_block security_process_tests loopback_tests mux_tests mux_unit_tests feedback_tests \
    display_layout_tests acceptance_tests
  # Every unit test, GStreamer's included (their LeakSanitizer set-up: GSTREAMER in
  # tests/CMakeLists.txt, lsan.supp). The micro-benchmark smoke run is not built here; it runs in
  # the normal build above.
  ctest --preset asan -j "$(nproc)" -L unit -E '^micro_bench_smoke$'

  ctest --preset asan -R "$(cat scripts/asan-integration-tests.txt | paste -sd'|')"
fi

# The transport tests and a few loopback process tests again under ThreadSanitizer (build-tsan/,
# preset tsan; suppressions in tsan.supp). A data race aborts the process (halt_on_error), so the
# test fails with the report in its output. HDSTREAM_SKIP_TSAN=1 skips this stage.
if [ "${HDSTREAM_SKIP_TSAN:-0}" != 1 ]; then
  cmake --preset tsan >/dev/null
  cmake --build --preset tsan --target hdstream common_tests transport_tests mtcp_transport_tests \
    loopback_tests security_process_tests feedback_tests check_probe_tests
  ctest --preset tsan -R "$(grep -v '^#' scripts/tsan-tests.txt | paste -sd'|')"
fi
