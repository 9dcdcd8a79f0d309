// Compile test: the device API with the AscendC backend, against the emulator's kernel_operator.h
// (run view, or one device half with -D__DAV_C220_CUBE__ / -D__DAV_C220_VEC__).
#include "kernel_operator.h"
#include "optrace/trace.h"

extern "C" __global__ __aicore__ void traced_kernel(GM_ADDR x, GM_ADDR profiling) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
#if ENABLE_MOE_PROFILING_GM_BUFFER
  OPTRACE_KERNEL_BEGIN_GM(profiling);  // GM-buffer mode: no stack buffer
#else
  OPTRACE_KERNEL_BEGIN();
#endif
  MoeTracing(TRACE_POINT("processing", "B"));
  if ASCEND_IS_AIC {
    MoeTracing(TRACE_POINT("compute aic", "B"), static_cast<uint32_t>(AscendC::GetBlockIdx()));
    MoeTracing(TRACE_POINT("compute aic", "E"), static_cast<uint32_t>(AscendC::GetBlockIdx()));
  } else {
    MoeTracing<false>(TRACE_POINT("compute aiv", "B"), 0u, static_cast<uint32_t>(AscendC::GetSubBlockIdx()));
    MoeTracing<false>(TRACE_POINT("compute aiv", "E"), 0u, static_cast<uint32_t>(AscendC::GetSubBlockIdx()));
  }
  MoeTracing(TRACE_POINT("processing", "E"));
  (void)x;
  OPTRACE_KERNEL_END(profiling);
}
