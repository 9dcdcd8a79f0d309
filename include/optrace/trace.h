// optrace device library: the one header an instrumented kernel includes (SPEC section 2).
//
//   #define PROF_SIZE_PER_CORE 2048          // optional overrides, see optrace/config.h
//   #include "optrace/trace.h"
//
//   MoeTracing(TRACE_POINT("dispatch send", "B"));          // payload 0
//   MoeTracing(TRACE_POINT("expert group", "B"), groupIdx);  // payload = index
//   MoeTracing(TRACE_POINT("stage", "E"), stageId, idx);     // payload = extraId | index << 8
//   MoeTracing<true>(TRACE_POINT("barrier all", "E"));       // force the pipeline barrier
//
// Each call records (point id | payload << 32, timestamp) into the calling core's slot
// (format.h); the kernel entry/exit macros OPTRACE_KERNEL_BEGIN / OPTRACE_KERNEL_END set the
// slot up and write it back (their arguments depend on the backend: see optrace/backends/).
// With ENABLE_MOE_PROFILING=0 every MoeTracing call is an empty constexpr function and the
// entry/exit macros expand to nothing but a cast of their arguments.
//
// Must not: allocate, throw, print, or include anything but fixed-width integer headers
// (the host backend's <chrono> aside).
#ifndef OPTRACE_TRACE_H_
#define OPTRACE_TRACE_H_

#include "optrace/config.h"
#include "optrace/trace_point.h"
#include "optrace/backend.h"

#if ENABLE_MOE_PROFILING
#define OPTRACE_TRACE_FN OPTRACE_FN
#else
// Disabled: constexpr proves (tests/device) that a call can have no observable effect.
#define OPTRACE_TRACE_FN OPTRACE_FN constexpr
#endif

namespace optrace {
// `__inline__`, not `inline`: CANN 8.x device builds #define inline as
// `__inline__ __attribute__((always_inline))`, which cannot precede `namespace`.
__inline__ namespace OPTRACE_ABI {

// Records `data`: point id in the low 32 bits, payload in the high 32 bits (seed 000).
template <bool sync = kDefaultSync>
OPTRACE_TRACE_FN void MoeTracing(int64_t data) {
  if constexpr (kProfilingEnabled) {
    const uint64_t word = static_cast<uint64_t>(data);
    detail::Record<backend::Active, sync>(static_cast<uint32_t>(word), static_cast<uint32_t>(word >> 32));
  }
  (void)data;
}

// Records `data` with payload `index` (an expert group, a stage).
template <bool sync = kDefaultSync>
OPTRACE_TRACE_FN void MoeTracing(int64_t data, uint32_t index) {
  MoeTracing<sync>(static_cast<int64_t>(static_cast<uint64_t>(static_cast<uint32_t>(data)) |
                                        (static_cast<uint64_t>(index) << 32)));
}

// Records `data` with payload extraId | index << 8 (extraId: low 8 bits, index: 24 bits).
template <bool sync = kDefaultSync>
OPTRACE_TRACE_FN void MoeTracing(int64_t data, uint32_t extraId, uint32_t index) {
  MoeTracing<sync>(data, format::PackExtraPayload(extraId, index));
}

}  // namespace OPTRACE_ABI
}  // namespace optrace

// Kernels call MoeTracing unqualified from any namespace, as in seed 000.
using optrace::MoeTracing;

#endif  // OPTRACE_TRACE_H_
