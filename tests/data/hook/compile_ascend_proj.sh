#!/bin/bash
# Real-looking compile script of a communication operator package (UMDK-style layout).
set -e

CURRENT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")"; pwd)
BUILD_DIR=${CURRENT_DIR}/build_out
OPS_SRC_DIR=${CURRENT_DIR}/../../../src/cam/comm_operator/ascend_kernels
SOC_VERSION=${SOC_VERSION:-Ascend910_9391}

function copy_ops() {
    local op_name=$1
    mkdir -p ${BUILD_DIR}/op_host ${BUILD_DIR}/op_kernel
    cp -rf ${OPS_SRC_DIR}/${op_name}/op_host/* ${BUILD_DIR}/op_host/
    cp -rf ${OPS_SRC_DIR}/${op_name}/op_kernel/* \
        ${BUILD_DIR}/op_kernel/
}

rm -rf ${BUILD_DIR}
msopgen gen -i ${CURRENT_DIR}/cam_ops.json -c ai_core-${SOC_VERSION} -f pytorch -lan cpp -out ${BUILD_DIR}
for op in moe_dispatch_combine fused_deep_moe; do
    copy_ops ${op}
done

cd ${BUILD_DIR}
sed -i 's/"ENABLE_BINARY_PACKAGE": true/"ENABLE_BINARY_PACKAGE": false/' CMakePresets.json
./build.sh -j16
if [ $? -ne 0 ]; then
    echo "build custom op package failed"
    exit 1
fi
echo "build custom op package success"
