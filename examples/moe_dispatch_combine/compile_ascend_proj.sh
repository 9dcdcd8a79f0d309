#!/bin/bash
# Builds the moe_dispatch_combine custom-op package (OPP) and its pybind wheel.
# Usage: compile_ascend_proj.sh [SOC_VERSION]   (needs the CANN toolkit: ASCEND_HOME_PATH)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOC_VERSION="${1:-ascend910b}"
BUILD_DIR="${SCRIPT_DIR}/build_out"
OP_NAME=moe_dispatch_combine

rm -rf "${BUILD_DIR}"
msopgen gen -i "${SCRIPT_DIR}/op_host/${OP_NAME}.json" -c "ai_core-${SOC_VERSION}" -lan cpp -out "${BUILD_DIR}"

# copy operator sources into the generated project
cp -rf "${SCRIPT_DIR}/op_host/." "${BUILD_DIR}/op_host/"
cp -rf "${SCRIPT_DIR}/op_kernel/." "${BUILD_DIR}/op_kernel/"

cd "${BUILD_DIR}"
./build.sh
./build_out/custom_opp_*.run --install-path="${ASCEND_HOME_PATH}/opp/vendors"

cd "${SCRIPT_DIR}/pybind"
python3 setup.py bdist_wheel
