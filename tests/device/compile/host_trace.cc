// Compile test: the whole device API with the host backend.
#include "optrace/trace.h"

int main() {
  int64_t profiling[PROF_SIZE_PER_CORE] = {};
  OPTRACE_KERNEL_BEGIN(profiling, 0);
  MoeTracing(TRACE_POINT("processing", "B"));
  for (uint32_t g = 0; g < 4; ++g) {
    MoeTracing(TRACE_POINT("expert group", "B"), g);
    MoeTracing<true>(TRACE_POINT("expert group", "E"), 1u, g);
  }
  MoeTracing<false>(TRACE_POINT("processing", "E"));
  OPTRACE_KERNEL_END(profiling);
  return static_cast<int>(profiling[optrace::format::kWordEventCount] != 10);
}
