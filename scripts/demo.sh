#!/usr/bin/env bash
# The main job out of the box: five studio feeds (DNxHD 220) over loopback, live stats, a verdict.
#   scripts/demo.sh                     # arguments go to `hdstream demo`, e.g. --duration 60s
# Installs only the packages the demo needs and builds only the hdstream binary (not the tests:
# scripts/test.sh builds and runs everything, in the same build/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh demo
cmake --preset default >/dev/null
cmake --build --preset default --target hdstream
exec build/app/hdstream demo "$@"
