// AscendC backend: each AI core (AIC or AIV) records into a stack buffer reached through a
// block-local pointer, and copies it to its slot of the profiling output at kernel exit
// (seed 000: stack buffer + SetMoeProfilePtr + GM write-back + DataCacheCleanAndInvalid).
//
//   extern "C" __global__ __aicore__ void my_op(GM_ADDR x, GM_ADDR y, GM_ADDR profiling) {
//     OPTRACE_KERNEL_BEGIN();                 // declares the stack buffer, writes the header
//     MyOp op; op.Init(x, y); op.Process();   // MoeTracing(TRACE_POINT("...", "B")) inside
//     OPTRACE_KERNEL_END(profiling);          // GM write-back + cache clean
//   }
//
// Slot index (seed 000): AIC GetBlockIdx(); AIV GetBlockNum() + GetBlockIdx(). In a mixed
// 1C2V kernel GetBlockIdx() is in [0, blockDim) on AIC and in [0, 2 * blockDim) on AIV
// (AscendC GetBlockIdx docs), so AIC slots are [0, blockDim), AIV slots
// [blockDim, 3 * blockDim): GetBlockNum() * (1 + GetSubBlockNum()) distinct slots.
// Clock: GetSystemCycle(), the 50 MHz system counter.
//
// Uses only real AscendC API names; kernel_operator.h comes from the AscendC toolchain
// (or the emulator's emu/include/kernel_operator.h on the host).
#ifndef OPTRACE_BACKENDS_ASCENDC_H_
#define OPTRACE_BACKENDS_ASCENDC_H_

#include "kernel_operator.h"
#include "optrace/config.h"

// Entry points live in an inline namespace named for the backend and the enabled state, so
// translation units built for different backends (the emulator's AscendC kernels and host
// code) or with profiling on and off can be linked into one program without ODR clashes.
#if ENABLE_MOE_PROFILING
#define OPTRACE_ABI ascendc_on
#else
#define OPTRACE_ABI ascendc_off
#endif
#define OPTRACE_FN __aicore__ inline
#include "optrace/writer.h"

namespace optrace {
namespace backend {

// The running core's working slot (its stack buffer), per core like the seed's g_moeProfilePtr.
// Mixed kernels compile their cube and vector halves separately and link them into one binary,
// so each half gets its own variable (as AscendC does for g_cubeTPipePtr / g_vecTPipePtr).
#if defined(__DAV_C220_CUBE__) || defined(SPLIT_CORE_CUBE)
__BLOCK_LOCAL__ __inline__ int64_t* g_ascendc_slot_cube;
__aicore__ inline int64_t*& AscendCSlotPointer() { return g_ascendc_slot_cube; }
#elif defined(__DAV_C220_VEC__) || defined(SPLIT_CORE_VEC)
__BLOCK_LOCAL__ __inline__ int64_t* g_ascendc_slot_vec;
__aicore__ inline int64_t*& AscendCSlotPointer() { return g_ascendc_slot_vec; }
#else
__BLOCK_LOCAL__ __inline__ int64_t* g_ascendc_slot;
__aicore__ inline int64_t*& AscendCSlotPointer() { return g_ascendc_slot; }
#endif

struct AscendCCore {
  static constexpr uint64_t kClockHz = 50000000ull;  // GetSystemCycle(): 50 MHz system counter
  __aicore__ static inline uint64_t Now() { return static_cast<uint64_t>(AscendC::GetSystemCycle()); }
  __aicore__ static inline int64_t* Slot() { return AscendCSlotPointer(); }
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

}  // namespace backend

inline namespace OPTRACE_ABI {

// Seed 000's SetMoeProfilePtr: points this core's records at `buffer`.
__aicore__ inline void SetMoeProfilePtr(int64_t* buffer) { backend::AscendCSlotPointer() = buffer; }

// Kernel entry: `buffer` is this core's PROF_SIZE_PER_CORE-word stack buffer.
__aicore__ inline void KernelBegin(int64_t* buffer) {
  if constexpr (kProfilingEnabled) {
    detail::InitSlot(buffer, kSlotWords, backend::AscendCCoreWord(), backend::AscendCCore::kClockHz,
                     backend::AscendCCore::Now());
    SetMoeProfilePtr(buffer);
  }
}

// Kernel exit: copies the used words of this core's buffer to its slot of `profiling` (GM)
// and cleans the data cache so the host sees them.
__aicore__ inline void KernelEnd(GM_ADDR profiling) {
  int64_t* local = backend::AscendCSlotPointer();
  if (!kProfilingEnabled || local == nullptr) {
    return;
  }
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::GlobalTensor<int64_t> slot;
  slot.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(profiling) + backend::AscendCSlotIndex() * kSlotWords,
                       kSlotWords);
  const uint32_t used = detail::UsedWords(local);
  for (uint32_t i = 0; i < used; ++i) {
    slot.SetValue(i, local[i]);
  }
  AscendC::DataCacheCleanAndInvalid<int64_t, AscendC::CacheLine::ENTIRE_DATA_CACHE,
                                    AscendC::DcciDst::CACHELINE_OUT>(slot);
  SetMoeProfilePtr(nullptr);
}

}  // namespace OPTRACE_ABI
}  // namespace optrace

#if ENABLE_MOE_PROFILING
#define OPTRACE_KERNEL_BEGIN()                          \
  int64_t optrace_profile_buffer_[PROF_SIZE_PER_CORE]; \
  ::optrace::KernelBegin(optrace_profile_buffer_)
#define OPTRACE_KERNEL_END(profiling) ::optrace::KernelEnd(profiling)
#else
#define OPTRACE_KERNEL_BEGIN() ((void)0)
#define OPTRACE_KERNEL_END(profiling) ((void)(profiling))
#endif

#endif  // OPTRACE_BACKENDS_ASCENDC_H_
