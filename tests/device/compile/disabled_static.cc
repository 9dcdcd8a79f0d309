// Compile test: with ENABLE_MOE_PROFILING=0 every MoeTracing call is a constant expression,
// so it can neither read a clock nor write memory: the calls do nothing.
#define ENABLE_MOE_PROFILING 0
#ifdef OPTRACE_TEST_ASCENDC
#include "kernel_operator.h"
#endif
#include "optrace/trace.h"

constexpr bool EveryCallIsANoOp() {
  MoeTracing(TRACE_POINT("processing", "B"));
  MoeTracing(TRACE_POINT("expert group", "B"), 3u);
  MoeTracing(TRACE_POINT("stage", "E"), 1u, 2u);
  MoeTracing<true>(TRACE_POINT("barrier", "B"));
  MoeTracing<false>(TRACE_POINT("barrier", "E"), 7u);
  return true;
}
static_assert(EveryCallIsANoOp(), "disabled MoeTracing must be a no-op");
static_assert(!optrace::kProfilingEnabled, "ENABLE_MOE_PROFILING=0 is seen by the library");

int main() { return 0; }
