// Must compile in every view: the forms the real headers accept, as real kernels write them.
#include "kernel_operator.h"

static_assert(PIPE_S == 0 && PIPE_V == 1 && PIPE_M == 2 && PIPE_MTE1 == 3 && PIPE_MTE2 == 4 && PIPE_MTE3 == 5 &&
                  PIPE_ALL == 6 && PIPE_FIX == 10,
              "pipe_t in the order of the CANN documentation");

__aicore__ inline int64_t Touch(AscendC::GlobalTensor<int64_t>& t, GM_ADDR raw) {
  t.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(raw), 8);
  t.SetValue(0, t.GetValue(1));
  const __gm__ int64_t* base = t.GetPhyAddr();
  __gm__ int64_t* second = t.GetPhyAddr(1);
  AscendC::DataCacheCleanAndInvalid<int64_t, AscendC::CacheLine::SINGLE_CACHE_LINE>(t);
#if OPTRACE_EMU_CANN >= 900
  int64_t ratio = AscendC::GetTaskRatio() + AscendC::GetTaskRation();
#else
  int64_t ratio = AscendC::GetTaskRation();
#endif
  AscendC::PipeBarrier<PIPE_ALL>();
  if ASCEND_IS_AIC {
    ratio += 1;
  } else if ASCEND_IS_AIV {
    ratio += 2;
  }
  if ASCEND_IS_NOT_AIV {
    return ratio + (base == second ? 1 : 0) + AscendC::GetSystemCycle();
  }
  return ratio + (g_coreType == AscendC::AIV ? 1 : 0);
}
