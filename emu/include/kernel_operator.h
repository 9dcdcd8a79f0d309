// AscendC emulation: the subset of the AscendC kernel API (names and signatures as in the
// CANN AscendC reference) that optrace's device library and examples use, for host builds.
// A kernel source that includes "kernel_operator.h" builds unchanged with the real toolchain
// (which provides the real header) or on the host against this one, run by
// optrace::emu::Launch (optrace_emu/runtime.h).
//
// Covered: __aicore__, __global__, __gm__, GM_ADDR, __BLOCK_LOCAL__, g_coreType,
// AscendC::AIC / AIV, ASCEND_IS_AIC / ASCEND_IS_AIV, GetBlockIdx, GetBlockNum, GetSubBlockIdx,
// GetSubBlockNum, GetTaskRation / GetTaskRatio, GetSystemCycle (50 MHz), PipeBarrier,
// GlobalTensor (SetGlobalBuffer, GetValue, SetValue, operator[], operator(), GetPhyAddr,
// GetSize; accesses are bounds-checked against the size given to SetGlobalBuffer),
// DataCacheCleanAndInvalid, SyncAll, CrossCoreSetFlag / CrossCoreWaitFlag (modes 1 and 2),
// KERNEL_TASK_TYPE_DEFAULT. Not covered: LocalTensor, queues, DataCopy, vector/cube intrinsics.
//
// Host-only; never included by the real toolchain.
#ifndef OPTRACE_EMU_KERNEL_OPERATOR_H_
#define OPTRACE_EMU_KERNEL_OPERATOR_H_

#include <stdint.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <type_traits>

#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif

#define __aicore__
#define __global__
#define __gm__
#define __BLOCK_LOCAL__ thread_local
#define GM_ADDR uint8_t*

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };

enum KernelMetaType {
  KERNEL_TYPE_AIV_ONLY,
  KERNEL_TYPE_AIC_ONLY,
  KERNEL_TYPE_MIX_AIV_1_0,
  KERNEL_TYPE_MIX_AIC_1_0,
  KERNEL_TYPE_MIX_AIC_1_1,
  KERNEL_TYPE_MIX_AIC_1_2,
};
// The emulator always runs kernels as MIX_AIC_1_2 (1 AIC + 2 AIV per block).
#define KERNEL_TASK_TYPE_DEFAULT(type) static_assert((type) == KERNEL_TYPE_MIX_AIC_1_2, \
    "the optrace AscendC emulator runs mixed 1C2V kernels only")

namespace optrace::emu::detail {

// The calling thread's core identity; zeros outside a launch.
struct CoreView {
  int32_t core_type = 0;  // AscendC::AIC or AscendC::AIV
  int64_t block_idx = 0;
  int64_t block_num = 0;
  int64_t sub_block_idx = 0;
  int64_t sub_block_num = 0;
  int64_t task_ration = 0;
};
const CoreView& Core();

void SyncAll(bool aiv_only);
void CrossCoreSetFlag(int mode, uint16_t flag_id);
void CrossCoreWaitFlag(uint16_t flag_id);
// Marks the launch failed (first message wins); the access that caused it is skipped.
void Fault(const char* what, uint64_t offset, uint64_t size);
void OnTraceRecord(uint32_t point_id, uint32_t payload, uint64_t timestamp, bool stored);

// Every 64th GM read: yields (spinning cores share few CPUs with many threads) and ends a
// core that polls after its launch failed or ran past its deadline.
void CheckProgress();
inline void OnGmRead() {
  static thread_local uint32_t reads = 0;
  if ((++reads & 63u) == 0) CheckProgress();
}

template <typename T>
constexpr bool kAtomicAccess = std::is_trivially_copyable_v<T> &&
                               (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

}  // namespace optrace::emu::detail

// Real AscendC: a per-compilation constant; here the running thread's core type.
extern thread_local int32_t g_coreType;

#define OPTRACE_ON_RECORD(point_id, payload, timestamp, stored) \
  ::optrace::emu::detail::OnTraceRecord((point_id), (payload), (timestamp), (stored))

namespace AscendC {

constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;

enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

__aicore__ inline int64_t GetBlockIdx() { return ::optrace::emu::detail::Core().block_idx; }
__aicore__ inline int64_t GetBlockNum() { return ::optrace::emu::detail::Core().block_num; }
__aicore__ inline int64_t GetSubBlockIdx() { return ::optrace::emu::detail::Core().sub_block_idx; }
__aicore__ inline int64_t GetSubBlockNum() { return ::optrace::emu::detail::Core().sub_block_num; }
__aicore__ inline int64_t GetTaskRation() { return ::optrace::emu::detail::Core().task_ration; }
__aicore__ inline int64_t GetTaskRatio() { return ::optrace::emu::detail::Core().task_ration; }

// The 50 MHz system counter (20 ns per tick).
__aicore__ inline int64_t GetSystemCycle() {
  return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now().time_since_epoch())
                                  .count() /
                              20);
}

// The emulator executes each core's instructions in order: barriers only stop the compiler.
template <pipe_t pipe>
__aicore__ inline void PipeBarrier() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

template <bool isAIVOnly = true>
__aicore__ inline void SyncAll() {
  ::optrace::emu::detail::SyncAll(isAIVOnly);
}

template <uint8_t modeId, pipe_t pipe>
__aicore__ inline void CrossCoreSetFlag(uint16_t flagId) {
  static_assert(modeId == 1 || modeId == 2,
                "optrace emulator: CrossCoreSetFlag supports mode 1 (AIV<->AIV) and 2 (AIC<->AIV)");
  ::optrace::emu::detail::CrossCoreSetFlag(modeId, flagId);
}

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
__aicore__ inline void CrossCoreWaitFlag(uint16_t flagId) {
  ::optrace::emu::detail::CrossCoreWaitFlag(flagId);
}

// A view of global memory. Scalar accesses are relaxed atomics, so cores may poll flags that
// other cores (or ranks) write, as kernels do through the data cache on the device.
template <typename T>
class GlobalTensor {
 public:
  __aicore__ inline GlobalTensor() = default;
  __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    address_ = buffer;
    size_ = bufferSize;
  }
  __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer) {
    address_ = buffer;
    size_ = kUnbounded;
  }
  __aicore__ inline __gm__ T* GetPhyAddr() const { return address_; }
  __aicore__ inline __gm__ T* GetPhyAddr(uint64_t offset) const { return address_ + offset; }
  __aicore__ inline uint64_t GetSize() const { return size_; }

  __aicore__ inline T GetValue(uint64_t offset) const {
    ::optrace::emu::detail::OnGmRead();
    if (!InRange(offset, "GlobalTensor::GetValue")) return T{};
    if constexpr (::optrace::emu::detail::kAtomicAccess<T>) {
      T value;
      __atomic_load(address_ + offset, &value, __ATOMIC_ACQUIRE);
      return value;
    } else {
      return address_[offset];
    }
  }
  __aicore__ inline void SetValue(uint64_t offset, T value) const {
    if (!InRange(offset, "GlobalTensor::SetValue")) return;
    if constexpr (::optrace::emu::detail::kAtomicAccess<T>) {
      __atomic_store(address_ + offset, &value, __ATOMIC_RELEASE);
    } else {
      address_[offset] = value;
    }
  }
  // A sub-tensor starting at `offset`.
  __aicore__ inline GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor sub;
    sub.address_ = address_ + offset;
    sub.size_ = size_ == kUnbounded ? kUnbounded : (offset <= size_ ? size_ - offset : 0);
    return sub;
  }
  __aicore__ inline __gm__ T& operator()(uint64_t offset) const { return address_[offset]; }

 private:
  static constexpr uint64_t kUnbounded = ~uint64_t{0};
  bool InRange(uint64_t offset, const char* what) const {
    if (address_ != nullptr && (size_ == kUnbounded || offset < size_)) return true;
    ::optrace::emu::detail::Fault(what, offset, address_ == nullptr ? 0 : size_);
    return false;
  }
  __gm__ T* address_ = nullptr;
  uint64_t size_ = 0;
};

template <typename T, CacheLine entireType, DcciDst dcciDst>
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& /*dst*/) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
template <typename T, CacheLine entireType>
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& /*dst*/) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace AscendC

#define ASCEND_IS_AIV (g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC (g_coreType == AscendC::AIC)
#define ASCEND_IS_NOT_AIV (g_coreType != AscendC::AIV)
#define ASCEND_IS_NOT_AIC (g_coreType != AscendC::AIC)

#endif  // OPTRACE_EMU_KERNEL_OPERATOR_H_
