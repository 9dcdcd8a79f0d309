// AscendC emulation: the subset of the AscendC kernel API that optrace's device library and
// examples use, declared as the real CANN headers declare it (docs/device.md has the table:
// each declaration here, the real one, and whether this one is stricter, equal or looser).
// A kernel source that includes "kernel_operator.h" builds unchanged with the real toolchain
// (which provides the real header) or on the host against this one, in one of two views:
//
//   run view (default): CANN's CPU-debug mode (ASCENDC_CPU_DEBUG=1). Cores are host threads of
//     optrace::emu::Launch (optrace_emu/runtime.h); GetSystemCycle() returns nanoseconds of
//     CLOCK_REALTIME, as the real CPU-debug GetSystemCycleImpl does.
//   device view (-D__DAV_C220_CUBE__ or -D__DAV_C220_VEC__, syntax-only): the macro
//     environment of one half of a real device build: no ASCENDC_CPU_DEBUG, __CCE_AICORE__=220,
//     g_coreType a constexpr, ASCEND_IS_AIC / ASCEND_IS_AIV as `constexpr(...)`, and, for CANN
//     8.x, kernel_macros.h's `#define inline __inline__ __attribute__((always_inline))`.
//     Nothing here is executable in that view; it exists to compile the device tier the way the
//     AscendC compiler sees it (tests/device).
//
// OPTRACE_EMU_CANN selects the CANN line whose declarations are emulated: 801 (default, CANN
// 8.1: GetTaskRation only, the device-view inline macro) or 901 (asc-devkit 9.1: GetTaskRatio,
// with GetTaskRation kept as its alias). __NPU_ARCH__ (default 2201, Atlas A2) selects the
// DataCacheCleanAndInvalid overloads the chip has.
//
// Stricter than CPU-debug wherever the device compiler is: `if ASCEND_IS_AIC {` is the only
// form that compiles (as with `constexpr(...)` on the device), g_coreType is not assignable,
// GlobalTensor::SetValue is not const and GetPhyAddr() returns `const __gm__ T*`.
//
// Covered: __aicore__, __global__, __gm__, GM_ADDR, __BLOCK_LOCAL__, g_coreType,
// AscendC::AIC / AIV / MIX, ASCEND_IS_AIC / ASCEND_IS_AIV (and _NOT_), GetBlockIdx, GetBlockNum,
// GetSubBlockIdx, GetSubBlockNum, GetTaskRation / GetTaskRatio, GetSystemCycle, PipeBarrier,
// GlobalTensor (SetGlobalBuffer, GetValue, SetValue, operator[], operator(), GetPhyAddr,
// GetSize; accesses are bounds-checked against the size given to SetGlobalBuffer),
// DataCacheCleanAndInvalid, SyncAll, CrossCoreSetFlag / CrossCoreWaitFlag (modes 1 and 2),
// KERNEL_TASK_TYPE_DEFAULT. Not covered: LocalTensor, queues, DataCopy, vector/cube intrinsics.
//
// Host-only; never included by the real toolchain.
#ifndef OPTRACE_EMU_KERNEL_OPERATOR_H_
#define OPTRACE_EMU_KERNEL_OPERATOR_H_

#include <stdint.h>
#include <time.h>

#include <atomic>
#include <type_traits>

#ifndef OPTRACE_EMU_CANN
#define OPTRACE_EMU_CANN 801
#endif
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif

#if defined(__DAV_C220_CUBE__) || defined(__DAV_C220_VEC__)
#define OPTRACE_EMU_DEVICE_VIEW 1
#if defined(ASCENDC_CPU_DEBUG)
#error "optrace emulator: the device view (__DAV_C220_CUBE__ / __DAV_C220_VEC__) is not CPU-debug mode"
#endif
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#if defined(__DAV_C220_CUBE__)
#define SPLIT_CORE_CUBE
#else
#define SPLIT_CORE_VEC
#endif
// CANN 8.x basic_api/impl/kernel_macros.h, device builds only: every `inline` after this
// point is `__inline__ __attribute__((always_inline))` (so `inline namespace` does not parse).
#if OPTRACE_EMU_CANN < 900
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wkeyword-macro"
#endif
#ifndef inline
#define inline __inline__ __attribute__((always_inline))
#endif
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
#endif
#else
#define OPTRACE_EMU_DEVICE_VIEW 0
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
#endif

#define __aicore__
#define __global__
#define __gm__
#define __BLOCK_LOCAL__ thread_local
#define GM_ADDR __gm__ uint8_t*

// The pipes of the CCE pipe_t enumeration, in the order of the CANN documentation.
enum pipe_t {
  PIPE_S = 0,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
};

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

namespace AscendC {
constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;
}  // namespace AscendC

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
__inline__ void OnGmRead() {
  static thread_local uint32_t reads = 0;
  if ((++reads & 63u) == 0) CheckProgress();
}

template <typename T>
constexpr bool kAtomicAccess = std::is_trivially_copyable_v<T> &&
                               (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

// What `if ASCEND_IS_AIC {` tests in the run view: true on a core of type kType. The macro
// declares one in an if-statement's init-statement, so no other use of the macro compiles,
// as no other use of the device form `constexpr(...)` does.
template <int32_t kType, bool kEqual>
struct CoreIs {
  explicit operator bool() const { return (Core().core_type == kType) == kEqual; }
};

}  // namespace optrace::emu::detail

#if OPTRACE_EMU_DEVICE_VIEW
// Real device builds: a per-half compile-time constant (impl/utils/sys_macros.h).
#if defined(SPLIT_CORE_CUBE)
constexpr int32_t g_coreType = AscendC::AIC;
#else
constexpr int32_t g_coreType = AscendC::AIV;
#endif
#define ASCEND_IS_AIV constexpr(g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC constexpr(g_coreType == AscendC::AIC)
#define ASCEND_IS_NOT_AIV constexpr(g_coreType != AscendC::AIV)
#define ASCEND_IS_NOT_AIC constexpr(g_coreType != AscendC::AIC)
#else
// The running thread's core type, readable but (as the device's constexpr) not assignable.
#define g_coreType (::optrace::emu::detail::Core().core_type + 0)
#define ASCEND_IS_AIV (::optrace::emu::detail::CoreIs<AscendC::AIV, true> optrace_core_is_; optrace_core_is_)
#define ASCEND_IS_AIC (::optrace::emu::detail::CoreIs<AscendC::AIC, true> optrace_core_is_; optrace_core_is_)
#define ASCEND_IS_NOT_AIV (::optrace::emu::detail::CoreIs<AscendC::AIV, false> optrace_core_is_; optrace_core_is_)
#define ASCEND_IS_NOT_AIC (::optrace::emu::detail::CoreIs<AscendC::AIC, false> optrace_core_is_; optrace_core_is_)
#endif

#define OPTRACE_ON_RECORD(point_id, payload, timestamp, stored) \
  ::optrace::emu::detail::OnTraceRecord((point_id), (payload), (timestamp), (stored))

namespace AscendC {

enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

__aicore__ inline int64_t GetBlockIdx() { return ::optrace::emu::detail::Core().block_idx; }
__aicore__ inline int64_t GetBlockNum() { return ::optrace::emu::detail::Core().block_num; }
__aicore__ inline int64_t GetSubBlockIdx() { return ::optrace::emu::detail::Core().sub_block_idx; }
__aicore__ inline int64_t GetSubBlockNum() { return ::optrace::emu::detail::Core().sub_block_num; }
#if OPTRACE_EMU_CANN >= 900
// asc-devkit 9.x declares GetTaskRatio and keeps GetTaskRation as an alias of it.
__aicore__ inline int64_t GetTaskRatio() { return ::optrace::emu::detail::Core().task_ration; }
__aicore__ inline int64_t GetTaskRation() { return GetTaskRatio(); }
#else
__aicore__ inline int64_t GetTaskRation() { return ::optrace::emu::detail::Core().task_ration; }
#endif

// CPU-debug GetSystemCycleImpl: nanoseconds of CLOCK_REALTIME (the device reads the 50 MHz
// SYS_CNT instead). The AscendC backend records the matching clock in each slot header.
__aicore__ inline int64_t GetSystemCycle() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
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
  using PrimType = T;
  __aicore__ inline GlobalTensor() {}
  __aicore__ inline void SetGlobalBuffer(__gm__ PrimType* buffer, uint64_t bufferSize) {
    address_ = buffer;
    size_ = bufferSize;
  }
  __aicore__ inline void SetGlobalBuffer(__gm__ PrimType* buffer) {
    address_ = buffer;
    size_ = kUnbounded;
  }
  __aicore__ inline const __gm__ PrimType* GetPhyAddr() const { return address_; }
  __aicore__ inline __gm__ PrimType* GetPhyAddr(const uint64_t offset) const { return address_ + offset; }
  __aicore__ inline uint64_t GetSize() const { return size_; }

  __aicore__ inline PrimType GetValue(const uint64_t offset) const {
    ::optrace::emu::detail::OnGmRead();
    if (!InRange(offset, "GlobalTensor::GetValue")) return PrimType{};
    if constexpr (::optrace::emu::detail::kAtomicAccess<PrimType>) {
      PrimType value;
      __atomic_load(address_ + offset, &value, __ATOMIC_ACQUIRE);
      return value;
    } else {
      return address_[offset];
    }
  }
  // Not const, as in every CANN line: writing through a const GlobalTensor& does not compile.
  __aicore__ inline void SetValue(const uint64_t offset, PrimType value) {
    if (!InRange(offset, "GlobalTensor::SetValue")) return;
    if constexpr (::optrace::emu::detail::kAtomicAccess<PrimType>) {
      __atomic_store(address_ + offset, &value, __ATOMIC_RELEASE);
    } else {
      address_[offset] = value;
    }
  }
  // A sub-tensor starting at `offset`.
  __aicore__ inline GlobalTensor operator[](const uint64_t offset) const {
    GlobalTensor sub;
    sub.address_ = address_ + offset;
    sub.size_ = size_ == kUnbounded ? kUnbounded : (offset <= size_ ? size_ - offset : 0);
    return sub;
  }
  __aicore__ inline __gm__ PrimType& operator()(const uint64_t offset) const { return address_[offset]; }

 private:
  static constexpr uint64_t kUnbounded = ~uint64_t{0};
  bool InRange(uint64_t offset, const char* what) const {
    if (address_ != nullptr && (size_ == kUnbounded || offset < size_)) return true;
    ::optrace::emu::detail::Fault(what, offset, address_ == nullptr ? 0 : size_);
    return false;
  }
  __gm__ PrimType* address_ = nullptr;
  uint64_t size_ = 0;
};

// The chips that have each overload (impl/basic_api/kernel_operator_cache_intf_impl.h):
// <T, CacheLine, DcciDst> on 2201 / 3002 / 3003 / 3113 / 3510 / 5102, not on 310P (2002);
// <T, CacheLine> on 2002 / 2201 / 3002 / 3003 / 3113 / 3510 / 5102.
#if (__NPU_ARCH__ == 2201) || (__NPU_ARCH__ == 3002) || (__NPU_ARCH__ == 3003) || (__NPU_ARCH__ == 3113) || \
    (__NPU_ARCH__ == 3510) || (__NPU_ARCH__ == 5102)
template <typename T, CacheLine entireType, DcciDst dcciDst>
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& /*dst*/) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
#endif
#if (__NPU_ARCH__ == 2002) || (__NPU_ARCH__ == 2201) || (__NPU_ARCH__ == 3002) || (__NPU_ARCH__ == 3003) || \
    (__NPU_ARCH__ == 3113) || (__NPU_ARCH__ == 3510) || (__NPU_ARCH__ == 5102)
template <typename T, CacheLine entireType>
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& /*dst*/) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
#endif

}  // namespace AscendC

#endif  // OPTRACE_EMU_KERNEL_OPERATOR_H_
