#!/usr/bin/env bash
# Sets everything up and runs the whole test suite (unit and loopback integration tests).
#   scripts/test.sh                     # extra arguments go to ctest, e.g. -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --preset default -j "$(nproc)" "$@"
