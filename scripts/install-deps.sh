#!/usr/bin/env bash
# Installs the Debian 12 packages hdstream needs.
#   scripts/install-deps.sh        # everything: build, demo, tests, fuzzing, benchmarks
#   scripts/install-deps.sh demo   # only what configuring the tree and `hdstream demo` need
# Idempotent. Robust to this image's apt quirk (downloaded .debs are deleted after each
# dpkg call, so one big install can stop half-way): packages go in small groups, each
# retried until apt reports nothing left to do.
set -euo pipefail

case ${1:-all} in
  demo | all) scope=${1:-all} ;;
  *)
    echo "usage: install-deps.sh [demo|all]" >&2
    exit 2
    ;;
esac

# Configuring needs every library the tree names, the test frameworks included (tests/ and
# bench/micro are part of the one CMake project); the demo builds only the hdstream target.
groups=(
  "build-essential cmake ninja-build pkg-config"
  "libboost-dev libcli11-dev libspdlog-dev libfmt-dev libtomlplusplus-dev nlohmann-json3-dev libxxhash-dev libgnutls28-dev"
  # Telemetry's TLS (OpenSSL, through Asio), web config files (YAML) and bcrypt (libcrypt).
  "libssl-dev libyaml-cpp-dev libcrypt-dev"
  "libgtest-dev libgmock-dev libbenchmark-dev"
  "libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libx11-dev"
  # Run time: test sources, conversion and appsrc/appsink (base), windows (good, x), fullscreen
  # waylandsink/kmssink (bad).
  "gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-x"
  "libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libswresample-dev"
  "libsrt-gnutls-dev"
  "qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev"
  # Qt's Wayland platform: screen outputs and the panel under a Wayland compositor.
  "qt6-wayland"
)
if [ "$scope" = all ]; then
  groups+=(
    # The fuzz targets (fuzz/, clang's libFuzzer) and formatting.
    "clang libclang-rt-14-dev clang-format"
    # x264enc: the GStreamer encoder the MPEG-TS ingest test sends with (gst-libav 1.22.0's
    # avenc_mpeg2video is broken against FFmpeg 5.1; see tests/mux/ts_interop_test.cpp);
    # gst-launch-1.0 and srt-live-transmit are the interop tests' peers.
    "gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-tools"
    "srt-tools"
    "iperf3 ffmpeg xvfb iproute2 python3 procps python3-prometheus-client"
    # One X screen with two RandR monitors for the screen-output tests (Xorg's dummy driver).
    "xserver-xorg-video-dummy x11-xserver-utils"
    # A Wayland compositor for the same tests (headless, its screenshots).
    "weston"
    "python3-matplotlib valgrind"
    # check --acceptance's report: its JSON validated against docs/acceptance.schema.json, its
    # HTML page rendered and printed to PDF by a real browser (tests/report, tests/app).
    "python3-jsonschema chromium"
    # systemd-analyze: the install test verifies the installed units (no running systemd needed)
    "systemd"
    # A real Prometheus scrapes the telemetry over TLS with basic auth (tests/telemetry).
    "prometheus"
  )
fi

missing() {
  local pkg out=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || out+=("$pkg")
  done
  echo "${out[*]:-}"
}

all=$(missing ${groups[*]})
if [ -z "$all" ]; then
  echo "install-deps: all packages present ($scope)"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
for group in "${groups[@]}"; do
  for attempt in 1 2 3 4 5; do
    todo=$(missing $group)
    [ -z "$todo" ] && break
    echo "install-deps: installing $todo (attempt $attempt)"
    $sudo apt-get install -y -qq --no-install-recommends $todo || true
  done
  todo=$(missing $group)
  if [ -n "$todo" ]; then
    echo "install-deps: could not install: $todo" >&2
    exit 1
  fi
done
echo "install-deps: done"
