// Kernel entry of the moe_dispatch_combine operator (a mixed 1C2V AscendC kernel).
// profiling_data is the last data output (seed 000, gate G2): blockDim * 3 slots of
// PROF_SIZE_PER_CORE int64 words, written back by OPTRACE_KERNEL_END.
#include "moe_dispatch_combine.h"

extern "C" __global__ __aicore__ void moe_dispatch_combine(GM_ADDR x, GM_ADDR expertIds, GM_ADDR weight,
                                                           GM_ADDR windows, GM_ADDR y, GM_ADDR profilingData,
                                                           GM_ADDR workspace, GM_ADDR tiling) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  OPTRACE_KERNEL_BEGIN();
  MoeDispatchCombineImpl::MoeDispatchCombine op;
  op.Init(x, expertIds, weight, windows, y, workspace, tiling);
  op.Process();
  OPTRACE_KERNEL_END(profilingData);
}
