#!/usr/bin/env bash
# Installs every Debian 12 package hdstream needs to build, test and benchmark.
# Idempotent. Robust to this image's apt quirk (downloaded .debs are deleted after each
# dpkg call, so one big install can stop half-way): packages go in small groups, each
# retried until apt reports nothing left to do.
set -euo pipefail

groups=(
  "build-essential cmake ninja-build pkg-config clang-format"
  "libboost-dev libcli11-dev libspdlog-dev libfmt-dev libtomlplusplus-dev nlohmann-json3-dev libxxhash-dev libgnutls28-dev"
  "libgtest-dev libgmock-dev libbenchmark-dev"
  "clang libclang-rt-14-dev"
  "libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libx11-dev"
  "gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav gstreamer1.0-tools gstreamer1.0-x"
  # x264enc: the GStreamer encoder the MPEG-TS ingest test sends with (gst-libav 1.22.0's
  # avenc_mpeg2video is broken against FFmpeg 5.1; see tests/app/ts_interop_test.cpp)
  "gstreamer1.0-plugins-ugly"
  "libavcodec-dev libavformat-dev libavutil-dev libswscale-dev"
  "libsrt-gnutls-dev srt-tools"
  "qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev"
  "iperf3 ffmpeg xvfb iproute2 python3 procps python3-prometheus-client"
  "python3-matplotlib valgrind"
  # systemd-analyze: the install test verifies the installed units (no running systemd needed)
  "systemd"
)

missing() {
  local pkg out=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || out+=("$pkg")
  done
  echo "${out[*]:-}"
}

all=$(missing ${groups[*]})
if [ -z "$all" ]; then
  echo "install-deps: all packages present"
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
