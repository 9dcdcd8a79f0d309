// Configuration macros of the device library (seed 000 names), overridable before including
// optrace/trace.h (or in the operator's *_base.h):
//
//   #define ENABLE_MOE_PROFILING 0            // every MoeTracing call compiles to nothing
//   #define PROF_SIZE_PER_CORE 4096           // int64 words per core slot (header + events)
//   #define ENABLE_MOE_PROFILING_BARRIER false  // AscendC: no PipeBarrier<PIPE_ALL> per record
//   #define ENABLE_MOE_PROFILING_GM_BUFFER 1    // AscendC: record in GM, no stack buffer
//
// AscendC keeps each core's buffer on the AI core stack by default (seed 000): CANN 8.1 builds
// v220 kernels with a 32 KiB stack, so the default 2048 words (16 KiB) take half of it and
// 4096 words fill it. Above kSafeStackSlotWords, record in GM instead (GM-buffer mode, with
// OPTRACE_KERNEL_BEGIN_GM(profiling)); `optrace lint` warns (rule stack-buffer).
//   #include "optrace/trace.h"
//
// Device-safe: preprocessor and constexpr only.
#ifndef OPTRACE_CONFIG_H_
#define OPTRACE_CONFIG_H_

#include "optrace/format.h"

#ifndef ENABLE_MOE_PROFILING
#define ENABLE_MOE_PROFILING 1
#endif
#ifndef PROF_SIZE_PER_CORE
#define PROF_SIZE_PER_CORE 2048
#endif
#ifndef ENABLE_MOE_PROFILING_BARRIER
#define ENABLE_MOE_PROFILING_BARRIER true
#endif
#ifndef ENABLE_MOE_PROFILING_GM_BUFFER
#define ENABLE_MOE_PROFILING_GM_BUFFER 0
#endif
// The point set's fingerprint, stored in word 7 of every slot: `optrace scan --stamp-fingerprint`
// (the build hook) writes optrace_point_set.h beside optrace_trace.h, found here by
// __has_include, so collect can tell a point map of another scan. 0 = unknown.
#ifndef OPTRACE_POINT_SET_FINGERPRINT
#if defined(__has_include)
#if __has_include("optrace_point_set.h")
#include "optrace_point_set.h"
#endif
#endif
#endif
#ifndef OPTRACE_POINT_SET_FINGERPRINT
#define OPTRACE_POINT_SET_FINGERPRINT 0
#endif

namespace optrace {

constexpr bool kProfilingEnabled = (ENABLE_MOE_PROFILING) != 0;
constexpr bool kDefaultSync = (ENABLE_MOE_PROFILING_BARRIER);
constexpr uint32_t kSlotWords = static_cast<uint32_t>(PROF_SIZE_PER_CORE);
constexpr uint32_t kSlotCapacity = format::CapacityForSlotWords(kSlotWords);
constexpr bool kGmBuffer = (ENABLE_MOE_PROFILING_GM_BUFFER) != 0;
constexpr uint64_t kPointSetFingerprint = static_cast<uint64_t>(OPTRACE_POINT_SET_FINGERPRINT);
// Largest stack buffer that leaves half of a 32 KiB AI core stack to the kernel (AscendC).
constexpr uint32_t kSafeStackSlotWords = 2048;

static_assert(PROF_SIZE_PER_CORE >= 10,
              "PROF_SIZE_PER_CORE must hold the 8-word slot header and at least one event");
static_assert(PROF_SIZE_PER_CORE <= 0x7fffffff, "PROF_SIZE_PER_CORE must fit in 31 bits");

}  // namespace optrace

#endif  // OPTRACE_CONFIG_H_
