// Reduced from dispatch_ffn_combine_w4a8/op_kernel/dispatch_ffn_combine_w4_a8.cpp (CANN Open Software):
// the kernel entry builds the operator object for one tiling key and runs it.
#include "kernel_operator.h"
#include "dispatch_ffn_combine_w4_a8.h"

using namespace AscendC;
using namespace DispatchFFNCombineW4A8Impl;

extern "C" __global__ __aicore__ void dispatch_ffn_combine_w4_a8(GM_ADDR x, GM_ADDR w1, GM_ADDR w2, GM_ADDR c,
    GM_ADDR workspaceGM, GM_ADDR tilingGM)
{
    REGISTER_TILING_DEFAULT(DispatchFFNCombineW4A8TilingData);
    if (TILING_KEY_IS(1000010)) {
        KERNEL_TASK_TYPE(1000010, KERNEL_TYPE_MIX_AIC_1_2);
        DispatchFFNCombineW4A8<DTYPE_A, DTYPE_W1, DTYPE_OUT, false, true> op;
        op.Init(x, w1, w2, c, workspaceGM, tilingGM);
        op.Process();
    }
}
