#!/usr/bin/env bash
# Configures and builds what the sanitizer stages of scripts/test.sh run, and nothing else:
# build-asan/ (ASan + UBSan: the unit tests and the loopback tests of asan-integration-tests.txt)
# and build-tsan/ (TSan: the tests of tsan-tests.txt). Each tree's wall time goes to
# build/sanitizer-build-times.txt, one "name<TAB>seconds" line each.
#   scripts/build-sanitizers.sh          # both; HDSTREAM_SKIP_ASAN=1 / HDSTREAM_SKIP_TSAN=1 skip one
set -euo pipefail
cd "$(dirname "$0")/.."

times=build/sanitizer-build-times.txt
mkdir -p build
: >"$times"

tree() {  # tree PRESET NAME TARGET...: configures and builds one tree, and records its time
  local preset=$1 name=$2 start=$SECONDS
  shift 2
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" --target "$@"
  printf '%s\t%d\n' "$name" $((SECONDS - start)) >>"$times"
}

if [ "${HDSTREAM_SKIP_ASAN:-0}" != 1 ]; then
  # The Qt panel tests, the WAN runner and the link emulator are not built: no ASan test runs them.
  tree asan "build (ASan + UBSan)" hdstream protocol_tests transport_tests \
    transport_factory_tests presets_tests \
    fuzz_regressions_tests stats_tests common_tests cpu_room_tests pipeline_tests media_tests \
    telemetry_tests \
    request_guard_tests web_config_tests \
    fuzz_replay_wire_reassembler fuzz_replay_handshake fuzz_replay_receiver_reports \
    fuzz_replay_presets fuzz_replay_audio_block security_process_tests loopback_tests mux_tests \
    mux_unit_tests feedback_tests display_layout_tests acceptance_tests
fi
if [ "${HDSTREAM_SKIP_TSAN:-0}" != 1 ]; then
  tree tsan "build (TSan)" hdstream common_tests transport_tests mtcp_transport_tests \
    loopback_tests security_process_tests feedback_tests check_probe_tests
fi
