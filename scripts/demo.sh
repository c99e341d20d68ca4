#!/usr/bin/env bash
# The main job out of the box: five 270 Mbps feeds over loopback TCP, live stats, a verdict.
#   scripts/demo.sh                     # arguments go to `hdstream demo`, e.g. --duration 60s
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec build/app/hdstream demo "$@"
