#!/usr/bin/env bash
# Sets up, builds only the optrace binary (release; no tests, benchmarks or CUDA example) and runs
# the demo on built-in data: 236 build steps, about 18 minutes on 2 cores from a fresh clone
# (measured on the same targets: docs/release.md), seconds once built.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release -DOPTRACE_WITH_CUDA=OFF >/dev/null
cmake --build --preset release --target optrace
exec build/release/bin/optrace demo "$@"
