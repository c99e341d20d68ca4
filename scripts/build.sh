#!/usr/bin/env bash
# Installs every Debian package hdstream needs (once), then configures and builds everything in
# build/: the hdstream binary, tests, fuzzers, benchmarks.
#   scripts/build.sh            # RelWithDebInfo, tests included, warnings are errors
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The fuzzers default to on only when clang++ was present at the first configure; a build/ first
# configured by scripts/demo.sh (no clang yet) would otherwise keep them off.
cmake --preset default -DHDSTREAM_FUZZ=ON >/dev/null
cmake --build --preset default
