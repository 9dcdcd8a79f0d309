#!/usr/bin/env bash
# Sets everything up, builds with ASan+UBSan and runs every test (ctest prints the summary).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci -j2 "$@"
