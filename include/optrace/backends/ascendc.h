// AscendC backend: each AI core (AIC or AIV) records into a buffer reached through a
// block-local pointer and, at kernel exit, makes its slot of the profiling output visible to
// the host (seed 000: stack buffer + SetMoeProfilePtr + GM write-back + DataCacheCleanAndInvalid).
//
//   extern "C" __global__ __aicore__ void my_op(GM_ADDR x, GM_ADDR y, GM_ADDR profiling) {
//     OPTRACE_KERNEL_BEGIN();                 // declares the stack buffer, writes the header
//     MyOp op; op.Init(x, y); op.Process();   // MoeTracing(TRACE_POINT("...", "B")) inside
//     OPTRACE_KERNEL_END(profiling);          // GM write-back + cache clean
//   }
//
// Buffer modes (optrace/config.h):
//   stack (default): PROF_SIZE_PER_CORE int64 words on the AI core stack, copied to GM at
//     exit. The stack is 32 KiB on v220 (CANN 8.1): keep PROF_SIZE_PER_CORE <= 2048.
//   GM (ENABLE_MOE_PROFILING_GM_BUFFER 1): no stack; OPTRACE_KERNEL_BEGIN_GM(profiling) points
//     the core at its slot of the profiling output and each record is a (cached) GM store;
//     OPTRACE_KERNEL_END(profiling) only cleans the data cache.
//
// Slot index (seed 000): AIC GetBlockIdx(); AIV GetBlockNum() + GetBlockIdx(). In a mixed
// 1C2V kernel GetBlockIdx() is in [0, blockDim) on AIC and in [0, 2 * blockDim) on AIV
// (AscendC GetBlockIdx docs), so AIC slots are [0, blockDim), AIV slots
// [blockDim, 3 * blockDim): GetBlockNum() * (1 + GetSubBlockNum()) distinct slots.
// Clock: GetSystemCycle(): the 50 MHz system counter on the device; in CANN's CPU-debug mode
// (ASCENDC_CPU_DEBUG) nanoseconds of CLOCK_REALTIME. The slot header records which.
// On Atlas 300I (310P, __NPU_ARCH__ 2002) GetSystemCycle is not supported and returns 0.
//
// Uses only real AscendC API names; kernel_operator.h comes from the AscendC toolchain
// (or the emulator's emu/include/kernel_operator.h on the host).
#ifndef OPTRACE_BACKENDS_ASCENDC_H_
#define OPTRACE_BACKENDS_ASCENDC_H_

#include "kernel_operator.h"
#include "optrace/config.h"

// Entry points live in an inline namespace named for the backend, the enabled state and the
// buffer mode, so translation units built differently (the emulator's AscendC kernels and
// host code, profiling on and off) can be linked into one program without ODR clashes.
#if !ENABLE_MOE_PROFILING
#define OPTRACE_ABI ascendc_off
#elif ENABLE_MOE_PROFILING_GM_BUFFER
#define OPTRACE_ABI ascendc_on_gm
#else
#define OPTRACE_ABI ascendc_on
#endif
#define OPTRACE_FN __aicore__ inline
#if ENABLE_MOE_PROFILING_GM_BUFFER
#define OPTRACE_SLOT_SPACE __gm__
#endif
#include "optrace/writer.h"

#if (defined(__NPU_ARCH__) && __NPU_ARCH__ == 2002) || (defined(__CCE_AICORE__) && __CCE_AICORE__ == 200)
#define OPTRACE_ASCENDC_DCCI_HAS_DST 0  // 310P: DataCacheCleanAndInvalid<T, CacheLine> only
#else
#define OPTRACE_ASCENDC_DCCI_HAS_DST 1
#endif

namespace optrace {
// `__inline__`, not `inline`: CANN 8.x device builds #define inline as
// `__inline__ __attribute__((always_inline))`, which cannot precede `namespace`.
__inline__ namespace OPTRACE_ABI {
namespace backend {

using SlotPointer = OPTRACE_SLOT_SPACE int64_t*;

// The running core's working slot, per core like the seed's g_moeProfilePtr. Mixed kernels
// compile their cube and vector halves separately and link them into one binary, so each
// half gets its own variable (as AscendC does for g_cubeTPipePtr / g_vecTPipePtr).
#if defined(__DAV_C220_CUBE__) || defined(SPLIT_CORE_CUBE)
__BLOCK_LOCAL__ __inline__ SlotPointer g_ascendc_slot_cube;
__aicore__ inline SlotPointer& AscendCSlotPointer() { return g_ascendc_slot_cube; }
#elif defined(__DAV_C220_VEC__) || defined(SPLIT_CORE_VEC)
__BLOCK_LOCAL__ __inline__ SlotPointer g_ascendc_slot_vec;
__aicore__ inline SlotPointer& AscendCSlotPointer() { return g_ascendc_slot_vec; }
#else
__BLOCK_LOCAL__ __inline__ SlotPointer g_ascendc_slot;
__aicore__ inline SlotPointer& AscendCSlotPointer() { return g_ascendc_slot; }
#endif

struct AscendCCore {
#if defined(ASCENDC_CPU_DEBUG) || defined(__CCE_KT_TEST__)
  static constexpr uint64_t kClockHz = 1000000000ull;  // CPU-debug GetSystemCycle(): CLOCK_REALTIME ns
#else
  static constexpr uint64_t kClockHz = 50000000ull;  // GetSystemCycle(): 50 MHz system counter
#endif
  __aicore__ static inline uint64_t Now() { return static_cast<uint64_t>(AscendC::GetSystemCycle()); }
  __aicore__ static inline SlotPointer Slot() { return AscendCSlotPointer(); }
  __aicore__ static inline void Barrier() { AscendC::PipeBarrier<PIPE_ALL>(); }
};

using Active = AscendCCore;

// Header word 1 of the running core: AIC with its block index, or AIV with its vector-core
// index (GetBlockIdx(), [0, 2 * blockDim) in 1C2V) and sub-block index.
__aicore__ inline uint64_t AscendCCoreWord() {
  if ASCEND_IS_AIC {
    return format::PackCore(format::CoreKind::kAic, static_cast<uint32_t>(AscendC::GetBlockIdx()), 0);
  }
  return format::PackCore(format::CoreKind::kAiv, static_cast<uint32_t>(AscendC::GetBlockIdx()),
                          static_cast<uint32_t>(AscendC::GetSubBlockIdx()));
}

// Slot of the running core in the profiling output (seed 000 mapping).
__aicore__ inline uint64_t AscendCSlotIndex() {
  if ASCEND_IS_AIC {
    return static_cast<uint64_t>(AscendC::GetBlockIdx());
  }
  return static_cast<uint64_t>(AscendC::GetBlockNum() + AscendC::GetBlockIdx());
}

// This core's slot of the profiling output, as a GlobalTensor of one slot.
__aicore__ inline AscendC::GlobalTensor<int64_t> AscendCOutputSlot(GM_ADDR profiling) {
  AscendC::GlobalTensor<int64_t> slot;
  slot.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(profiling) + AscendCSlotIndex() * kSlotWords, kSlotWords);
  return slot;
}

// Writes the data cache back so the host sees the slot.
__aicore__ inline void AscendCCleanSlot(const AscendC::GlobalTensor<int64_t>& slot) {
#if OPTRACE_ASCENDC_DCCI_HAS_DST
  AscendC::DataCacheCleanAndInvalid<int64_t, AscendC::CacheLine::ENTIRE_DATA_CACHE,
                                    AscendC::DcciDst::CACHELINE_OUT>(slot);
#else
  AscendC::DataCacheCleanAndInvalid<int64_t, AscendC::CacheLine::ENTIRE_DATA_CACHE>(slot);
#endif
}

}  // namespace backend

// Seed 000's SetMoeProfilePtr: points this core's records at `buffer`.
__aicore__ inline void SetMoeProfilePtr(backend::SlotPointer buffer) { backend::AscendCSlotPointer() = buffer; }

#if ENABLE_MOE_PROFILING_GM_BUFFER
// Kernel entry, GM-buffer mode: this core records straight into its slot of `profiling`. A null
// buffer (a launcher whose caller has not passed one yet) records nothing.
__aicore__ inline void KernelBeginGm(GM_ADDR profiling) {
  if constexpr (kProfilingEnabled) {
    if (profiling == nullptr) {
      SetMoeProfilePtr(nullptr);
      return;
    }
    backend::SlotPointer slot = reinterpret_cast<__gm__ int64_t*>(profiling) + backend::AscendCSlotIndex() * kSlotWords;
    detail::InitSlot(slot, kSlotWords, backend::AscendCCoreWord(), backend::AscendCCore::kClockHz,
                     backend::AscendCCore::Now());
    SetMoeProfilePtr(slot);
  }
}

// Kernel exit, GM-buffer mode: the records are in the slot already; clean the data cache.
__aicore__ inline void KernelEnd(GM_ADDR profiling) {
  if (!kProfilingEnabled || backend::AscendCSlotPointer() == nullptr) {
    return;
  }
  AscendC::PipeBarrier<PIPE_ALL>();
  backend::AscendCCleanSlot(backend::AscendCOutputSlot(profiling));
  SetMoeProfilePtr(nullptr);
}
#else
// Kernel entry: `buffer` is this core's PROF_SIZE_PER_CORE-word stack buffer.
__aicore__ inline void KernelBegin(int64_t* buffer) {
  if constexpr (kProfilingEnabled) {
    detail::InitSlot(buffer, kSlotWords, backend::AscendCCoreWord(), backend::AscendCCore::kClockHz,
                     backend::AscendCCore::Now());
    SetMoeProfilePtr(buffer);
  }
}

// Kernel exit: copies the used words of this core's buffer to its slot of `profiling` (GM)
// and cleans the data cache so the host sees them; a null `profiling` gets nothing.
__aicore__ inline void KernelEnd(GM_ADDR profiling) {
  int64_t* local = backend::AscendCSlotPointer();
  if (!kProfilingEnabled || local == nullptr) {
    return;
  }
  if (profiling == nullptr) {
    SetMoeProfilePtr(nullptr);
    return;
  }
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::GlobalTensor<int64_t> slot = backend::AscendCOutputSlot(profiling);
  const uint32_t used = detail::UsedWords(local);
  for (uint32_t i = 0; i < used; ++i) {
    slot.SetValue(i, local[i]);
  }
  backend::AscendCCleanSlot(slot);
  SetMoeProfilePtr(nullptr);
}
#endif

}  // namespace OPTRACE_ABI
}  // namespace optrace

#if !ENABLE_MOE_PROFILING
#define OPTRACE_KERNEL_BEGIN() ((void)0)
#define OPTRACE_KERNEL_BEGIN_GM(profiling) ((void)(profiling))
#define OPTRACE_KERNEL_END(profiling) ((void)(profiling))
#elif ENABLE_MOE_PROFILING_GM_BUFFER
#define OPTRACE_KERNEL_BEGIN()                                                                         \
  static_assert(!::optrace::kGmBuffer,                                                                 \
                "ENABLE_MOE_PROFILING_GM_BUFFER records in GM: use OPTRACE_KERNEL_BEGIN_GM(profiling), " \
                "profiling being the kernel's profiling output")
#define OPTRACE_KERNEL_BEGIN_GM(profiling) ::optrace::KernelBeginGm(profiling)
#define OPTRACE_KERNEL_END(profiling) ::optrace::KernelEnd(profiling)
#else
#define OPTRACE_KERNEL_BEGIN()                          \
  int64_t optrace_profile_buffer_[PROF_SIZE_PER_CORE]; \
  ::optrace::KernelBegin(optrace_profile_buffer_)
// Stack mode: the GM form works too (a stack buffer, written back at exit).
#define OPTRACE_KERNEL_BEGIN_GM(profiling) \
  OPTRACE_KERNEL_BEGIN();                  \
  (void)(profiling)
#define OPTRACE_KERNEL_END(profiling) ::optrace::KernelEnd(profiling)
#endif

#endif  // OPTRACE_BACKENDS_ASCENDC_H_
