// CUDA backend: one slot per thread block in global memory, written directly by the block's
// first thread (threadIdx == 0): tracing marks the phases of a block, not of each thread.
// Clock: %globaltimer in nanoseconds.
//
//   __global__ void my_kernel(float* x, int64_t* profiling) {
//     OPTRACE_KERNEL_BEGIN(profiling);            // slot = linear block index
//     MoeTracing(TRACE_POINT("load", "B")); ...; MoeTracing(TRACE_POINT("load", "E"));
//     OPTRACE_KERNEL_END(profiling);
//   }
//
// Compiled by nvcc only (optrace/backend.h picks it when __CUDACC__ is defined).
#ifndef OPTRACE_BACKENDS_CUDA_H_
#define OPTRACE_BACKENDS_CUDA_H_

#include "optrace/config.h"

// Entry points live in an inline namespace named for the backend and the enabled state, so
// translation units built for different backends (the emulator's AscendC kernels and host
// code) or with profiling on and off can be linked into one program without ODR clashes.
#if ENABLE_MOE_PROFILING
#define OPTRACE_ABI cuda_on
#else
#define OPTRACE_ABI cuda_off
#endif
#define OPTRACE_FN __device__ __forceinline__
#include "optrace/writer.h"

namespace optrace {
namespace backend {

// The block's slot in global memory; written and read by the block's first thread only.
// Shared memory is not zeroed at launch, so a mark before OPTRACE_KERNEL_BEGIN would read a
// garbage pointer: the slot counts only when its check word matches (set together with it).
static __shared__ int64_t* g_cuda_slot;
static __shared__ uint64_t g_cuda_slot_check;
constexpr uint64_t kCudaSlotKey = 0x4144554352545042ull;  // "BPTRCUDA"

__device__ __forceinline__ uint64_t CudaSlotCheck(const int64_t* slot) {
  return reinterpret_cast<uint64_t>(slot) ^ kCudaSlotKey;
}

__device__ __forceinline__ bool CudaIsLeader() {
  return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}
__device__ __forceinline__ uint32_t CudaSlotIndex() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

struct CudaBlock {
  static constexpr uint64_t kClockHz = 1000000000ull;  // %globaltimer: nanoseconds
  __device__ static __forceinline__ uint64_t Now() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
  }
  __device__ static __forceinline__ int64_t* Slot() {
    if (!CudaIsLeader()) return nullptr;
    int64_t* slot = g_cuda_slot;
    return slot != nullptr && g_cuda_slot_check == CudaSlotCheck(slot) ? slot : nullptr;
  }
  __device__ static __forceinline__ void Barrier() {}
};

using Active = CudaBlock;

}  // namespace backend

// `__inline__`, not `inline`: CANN 8.x device builds #define inline as
// `__inline__ __attribute__((always_inline))`, which cannot precede `namespace`.
__inline__ namespace OPTRACE_ABI {

// Kernel entry: the block's first thread writes the header of slot (linear block index). A null
// buffer records nothing (the marks find no slot).
__device__ __forceinline__ void KernelBegin(int64_t* profiling) {
  if (kProfilingEnabled && backend::CudaIsLeader() && profiling == nullptr) {
    backend::g_cuda_slot = nullptr;
    backend::g_cuda_slot_check = 0;
    return;
  }
  if (kProfilingEnabled && backend::CudaIsLeader()) {
    int64_t* slot = profiling + static_cast<uint64_t>(backend::CudaSlotIndex()) * kSlotWords;
    detail::InitSlot(slot, kSlotWords,
                     format::PackCore(format::CoreKind::kCudaBlock, backend::CudaSlotIndex(), 0),
                     backend::CudaBlock::kClockHz, backend::CudaBlock::Now());
    backend::g_cuda_slot = slot;
    backend::g_cuda_slot_check = backend::CudaSlotCheck(slot);
  }
}

// Kernel exit: makes the block's slot visible device-wide.
__device__ __forceinline__ void KernelEnd(int64_t* profiling) {
  (void)profiling;
  if (kProfilingEnabled && backend::CudaIsLeader()) {
    __threadfence();
    backend::g_cuda_slot = nullptr;
    backend::g_cuda_slot_check = 0;
  }
}

}  // namespace OPTRACE_ABI
}  // namespace optrace

#if ENABLE_MOE_PROFILING
#define OPTRACE_KERNEL_BEGIN(profiling) ::optrace::KernelBegin(profiling)
#define OPTRACE_KERNEL_END(profiling) ::optrace::KernelEnd(profiling)
#else
#define OPTRACE_KERNEL_BEGIN(profiling) ((void)(profiling))
#define OPTRACE_KERNEL_END(profiling) ((void)(profiling))
#endif

#endif  // OPTRACE_BACKENDS_CUDA_H_
