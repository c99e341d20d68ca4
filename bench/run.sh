#!/usr/bin/env bash
# One command: build hdstream (with the micro-benchmarks), run it side by side with iperf3 and
# ffmpeg, and write docs/PERFORMANCE.md + docs/images/*.png. Extra arguments go to bench/run.py
# (--quick for a short smoke run, --reps N).
#   bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build build --target hdstream hdstream_micro
# Debian's python3 has matplotlib (python3-matplotlib); a pyenv python3 first on PATH may not.
python=/usr/bin/python3
[ -x "$python" ] || python=python3
exec "$python" bench/run.py "$@"
