#!/usr/bin/env bash
# Installs the Debian packages hdstream needs (once), then configures and builds it in build/.
#   scripts/build.sh            # RelWithDebInfo, tests included, warnings are errors
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
