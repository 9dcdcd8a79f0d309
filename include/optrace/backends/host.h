// Host backend: one slot per host thread, timestamps from steady_clock in nanoseconds.
//
//   std::vector<int64_t> out(threads * PROF_SIZE_PER_CORE);
//   // in thread i:
//   OPTRACE_KERNEL_BEGIN(out.data(), i);          // or optrace::ScopedThreadTrace t(out.data(), i);
//   MoeTracing(TRACE_POINT("work", "B")); ...; MoeTracing(TRACE_POINT("work", "E"));
//   OPTRACE_KERNEL_END(out.data());
//
// Host-only: the one header of include/optrace that includes a standard library header
// (<chrono>, for the clock); optrace/backend.h includes it only when no device compiler runs.
#ifndef OPTRACE_BACKENDS_HOST_H_
#define OPTRACE_BACKENDS_HOST_H_

#include <chrono>

#include "optrace/config.h"

// Entry points live in an inline namespace named for the backend and the enabled state, so
// translation units built for different backends (the emulator's AscendC kernels and host
// code) or with profiling on and off can be linked into one program without ODR clashes.
#if ENABLE_MOE_PROFILING
#define OPTRACE_ABI host_on
#else
#define OPTRACE_ABI host_off
#endif
#define OPTRACE_FN inline
#include "optrace/writer.h"

namespace optrace {
namespace backend {

inline thread_local int64_t* g_host_slot = nullptr;

struct Host {
  static constexpr format::CoreKind kKind = format::CoreKind::kHostThread;
  static constexpr uint64_t kClockHz = 1000000000ull;  // steady_clock nanoseconds
  static uint64_t Now() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  static int64_t* Slot() { return g_host_slot; }
  static void Barrier() {}
};

using Active = Host;

}  // namespace backend

// `__inline__`, not `inline`: CANN 8.x device builds #define inline as
// `__inline__ __attribute__((always_inline))`, which cannot precede `namespace`.
__inline__ namespace OPTRACE_ABI {

// Binds the calling thread to slot `thread_index` of `profiling` (an array of
// PROF_SIZE_PER_CORE-word slots, one per thread) and writes the slot header.
inline void ThreadBegin(int64_t* profiling, uint32_t thread_index) {
  if constexpr (kProfilingEnabled) {
    int64_t* slot = profiling + static_cast<uint64_t>(thread_index) * kSlotWords;
    detail::InitSlot(slot, kSlotWords, format::PackCore(backend::Host::kKind, thread_index, 0),
                     backend::Host::kClockHz, backend::Host::Now());
    backend::g_host_slot = slot;
  }
}

// Unbinds the calling thread; its slot is complete (the writes are plain host stores,
// visible to whoever joins the thread).
inline void ThreadEnd() { backend::g_host_slot = nullptr; }

// RAII form of ThreadBegin / ThreadEnd.
class ScopedThreadTrace {
 public:
  ScopedThreadTrace(int64_t* profiling, uint32_t thread_index) { ThreadBegin(profiling, thread_index); }
  ~ScopedThreadTrace() { ThreadEnd(); }
  ScopedThreadTrace(const ScopedThreadTrace&) = delete;
  ScopedThreadTrace& operator=(const ScopedThreadTrace&) = delete;
};

}  // namespace OPTRACE_ABI
}  // namespace optrace

#if ENABLE_MOE_PROFILING
#define OPTRACE_KERNEL_BEGIN(profiling, thread_index) ::optrace::ThreadBegin((profiling), (thread_index))
#define OPTRACE_KERNEL_END(profiling) ((void)(profiling), ::optrace::ThreadEnd())
#else
#define OPTRACE_KERNEL_BEGIN(profiling, thread_index) ((void)(profiling), (void)(thread_index))
#define OPTRACE_KERNEL_END(profiling) ((void)(profiling))
#endif

#endif  // OPTRACE_BACKENDS_HOST_H_
