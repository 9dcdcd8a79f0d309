#!/usr/bin/env bash
# Sets everything up, builds optrace (release) and runs the demo on built-in data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
exec build/release/bin/optrace demo "$@"
