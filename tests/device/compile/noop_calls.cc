// Object-code test, with tracing: must compile to the same machine code as noop_baseline.cc.
#define ENABLE_MOE_PROFILING 0
#ifdef OPTRACE_TEST_ASCENDC
#include "kernel_operator.h"
#endif
#include "optrace/trace.h"

extern "C" int TracedWork(int64_t* profiling, int x) {
#ifdef OPTRACE_TEST_ASCENDC
  OPTRACE_KERNEL_BEGIN();
#else
  OPTRACE_KERNEL_BEGIN(profiling, 0);
#endif
  MoeTracing(TRACE_POINT("processing", "B"));
  for (int i = 0; i < 4; ++i) {
    MoeTracing(TRACE_POINT("expert group", "B"), static_cast<uint32_t>(i));
    x = x * 3 + i;
    MoeTracing<true>(TRACE_POINT("expert group", "E"), 1u, static_cast<uint32_t>(i));
  }
  MoeTracing(TRACE_POINT("processing", "E"));
#ifdef OPTRACE_TEST_ASCENDC
  OPTRACE_KERNEL_END(reinterpret_cast<GM_ADDR>(profiling));
#else
  OPTRACE_KERNEL_END(profiling);
#endif
  return x;
}
