// AscendC emulator runtime: core threads, SyncAll barriers, cross-core flags, trace log.
#include "optrace_emu/runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "kernel_operator.h"


namespace optrace::emu {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kFlagIds = 16;  // hardware flag ids 0..15

// Thrown inside a core thread to stop a kernel that can no longer finish (its launch failed,
// or it ran past the deadline); caught by the thread body, never leaves Launch.
struct CoreStopped {};

// One rank's device: its barriers, flags and failure state.
class Device {
 public:
  Device(int rank, uint32_t block_dim, Clock::duration timeout, Clock::time_point deadline,
         std::atomic<bool>* launch_failed)
      : rank_(rank),
        block_dim_(block_dim),
        timeout_(timeout),
        deadline_(deadline),
        launch_failed_(launch_failed),
        blocks_(block_dim) {}

  // True once any rank of the launch failed: the others cannot complete either.
  bool failed() const { return launch_failed_->load(std::memory_order_acquire); }
  Clock::time_point deadline() const { return deadline_; }

  int rank() const { return rank_; }
  uint32_t block_dim() const { return block_dim_; }

  void Fail(std::string message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.empty()) error_ = std::move(message);
    failed_ = true;
    launch_failed_->store(true, std::memory_order_release);
    cv_.notify_all();
  }
  std::string error() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }

  // A generation barrier over `parties` cores; gives up after the timeout.
  void Barrier(bool aiv_only, const std::string& who) {
    std::unique_lock<std::mutex> lock(mu_);
    BarrierState& b = aiv_only ? aiv_barrier_ : all_barrier_;
    const uint32_t parties = aiv_only ? 2 * block_dim_ : 3 * block_dim_;
    const uint64_t generation = b.generation;
    if (++b.arrived == parties) {
      b.arrived = 0;
      ++b.generation;
      cv_.notify_all();
      return;
    }
    if (!WaitFor(lock, [&] { return b.generation != generation; })) {
      lock.unlock();
      Fail(who + ": SyncAll<" + (aiv_only ? "true" : "false") +
           "> timed out; not every core reached it (a core returned early or waits elsewhere)");
    }
  }

  // Mode 2: AIC -> both AIVs of its block, AIV -> AIC (the AIC wait needs both AIVs);
  // mode 1: AIV -> the other AIV of its block.
  void SetFlag(int mode, uint16_t flag, bool is_aic, int64_t block, int64_t sub) {
    std::lock_guard<std::mutex> lock(mu_);
    Block& blk = blocks_[static_cast<size_t>(block)];
    if (mode == 2 && is_aic) {
      ++blk.aiv_pending[0][flag];
      ++blk.aiv_pending[1][flag];
    } else if (mode == 2) {
      ++blk.aic_from_aiv[sub][flag];
    } else if (mode == 1 && !is_aic) {
      ++blk.aiv_pending[1 - sub][flag];
    }
    cv_.notify_all();
  }

  void WaitFlag(uint16_t flag, bool is_aic, int64_t block, int64_t sub, const std::string& who) {
    std::unique_lock<std::mutex> lock(mu_);
    Block& blk = blocks_[static_cast<size_t>(block)];
    auto ready = [&] {
      if (is_aic) return std::min(blk.aic_from_aiv[0][flag], blk.aic_from_aiv[1][flag]) > blk.aic_consumed[flag];
      return blk.aiv_pending[sub][flag] > 0;
    };
    if (!WaitFor(lock, ready)) {
      lock.unlock();
      Fail(who + ": CrossCoreWaitFlag(" + std::to_string(flag) + ") timed out; no matching CrossCoreSetFlag");
      return;
    }
    if (failed()) return;
    if (is_aic) {
      ++blk.aic_consumed[flag];
    } else {
      --blk.aiv_pending[sub][flag];
    }
  }

 private:
  // Waits for `ready`, or any failure of the launch; false after the timeout. Wakes up every
  // 50 ms to notice failures of other ranks, which do not notify this device.
  template <typename Pred>
  bool WaitFor(std::unique_lock<std::mutex>& lock, Pred ready) {
    const Clock::time_point until = Clock::now() + timeout_;
    while (true) {
      if (failed() || ready()) return true;
      if (Clock::now() >= until) return false;
      cv_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  struct BarrierState {
    uint32_t arrived = 0;
    uint64_t generation = 0;
  };
  struct Block {
    int64_t aiv_pending[2][kFlagIds] = {};   // sets an AIV may consume
    int64_t aic_from_aiv[2][kFlagIds] = {};  // sets from each AIV towards the AIC
    int64_t aic_consumed[kFlagIds] = {};     // AIC waits satisfied so far
  };

  const int rank_;
  const uint32_t block_dim_;
  const Clock::duration timeout_;
  const Clock::time_point deadline_;
  std::atomic<bool>* const launch_failed_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool failed_ = false;
  std::string error_;
  BarrierState all_barrier_;
  BarrierState aiv_barrier_;
  std::vector<Block> blocks_;
};

struct CoreState {
  Device* device = nullptr;
  detail::CoreView view;
  uint32_t slot = 0;
  std::vector<TraceRecord> records;

  std::string Name() const {
    return "rank " + std::to_string(device->rank()) + (view.core_type == AscendC::AIC ? " AIC " : " AIV ") +
           std::to_string(view.block_idx);
  }
};

thread_local CoreState* t_core = nullptr;
const detail::CoreView kNoCore{};

bool ValidFlag(uint16_t flag_id) {
  if (flag_id < kFlagIds) return true;
  if (t_core != nullptr) {
    t_core->device->Fail(t_core->Name() + ": cross-core flag id " + std::to_string(flag_id) + " is out of range 0..15");
  }
  return false;
}

}  // namespace

namespace detail {

const CoreView& Core() { return t_core != nullptr ? t_core->view : kNoCore; }

void SyncAll(bool aiv_only) {
  if (t_core == nullptr) return;
  if (aiv_only && t_core->view.core_type == AscendC::AIC) {
    t_core->device->Fail(t_core->Name() + ": SyncAll<true>() (AIV only) called on an AIC core");
    return;
  }
  t_core->device->Barrier(aiv_only, t_core->Name());
}

void CrossCoreSetFlag(int mode, uint16_t flag_id) {
  if (t_core == nullptr || !ValidFlag(flag_id)) return;
  const CoreView& v = t_core->view;
  const bool is_aic = v.core_type == AscendC::AIC;
  const int64_t block = is_aic ? v.block_idx : v.block_idx / 2;
  t_core->device->SetFlag(mode, flag_id, is_aic, block, v.sub_block_idx);
}

void CrossCoreWaitFlag(uint16_t flag_id) {
  if (t_core == nullptr || !ValidFlag(flag_id)) return;
  const CoreView& v = t_core->view;
  const bool is_aic = v.core_type == AscendC::AIC;
  const int64_t block = is_aic ? v.block_idx : v.block_idx / 2;
  t_core->device->WaitFlag(flag_id, is_aic, block, v.sub_block_idx, t_core->Name());
}

void CheckProgress() {
  std::this_thread::yield();
  if (t_core == nullptr) return;
  Device* device = t_core->device;
  if (device->failed()) throw CoreStopped{};
  if (Clock::now() > device->deadline()) {
    device->Fail(t_core->Name() + ": still polling global memory at the launch deadline; a flag it waits "
                 "for is never written (or raise LaunchOptions::deadline_seconds)");
    throw CoreStopped{};
  }
}

void Fault(const char* what, uint64_t offset, uint64_t size) {
  if (t_core == nullptr) return;
  t_core->device->Fail(t_core->Name() + ": " + what + " at offset " + std::to_string(offset) +
                       " outside the buffer of " + std::to_string(size) + " elements");
}

void OnTraceRecord(uint32_t point_id, uint32_t payload, uint64_t timestamp, bool stored) {
  if (t_core == nullptr) return;
  const CoreView& v = t_core->view;
  TraceRecord r;
  r.type = v.core_type == AscendC::AIC ? CoreType::kAic : CoreType::kAiv;
  r.core_index = static_cast<uint32_t>(v.block_idx);
  r.sub_block = static_cast<uint32_t>(v.sub_block_idx);
  r.slot = t_core->slot;
  r.point_id = point_id;
  r.payload = payload;
  r.timestamp = timestamp;
  r.stored = stored;
  t_core->records.push_back(r);
}

}  // namespace detail

Result<LaunchResult> Launch(const LaunchOptions& options, const std::function<void(int rank)>& kernel) {
  if (options.ranks < 1 || options.block_dim < 1 || options.block_dim > 4096) {
    return UsageError("emulator launch: ranks {} and block_dim {} must be >= 1 (block_dim <= 4096)",
                      options.ranks, options.block_dim);
  }
  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options.timeout_seconds));
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.deadline_seconds));
  const uint32_t n = options.block_dim;
  std::atomic<bool> launch_failed{false};
  std::vector<std::unique_ptr<Device>> devices;
  // cores[rank][core]: AIC 0..n-1, then AIV 0..2n-1, the slot order.
  std::vector<std::vector<CoreState>> cores(static_cast<size_t>(options.ranks));
  for (int rank = 0; rank < options.ranks; ++rank) {
    devices.push_back(std::make_unique<Device>(rank, n, timeout, deadline, &launch_failed));
    auto& rank_cores = cores[static_cast<size_t>(rank)];
    rank_cores.resize(3 * n);
    for (uint32_t i = 0; i < 3 * n; ++i) {
      CoreState& c = rank_cores[i];
      c.device = devices.back().get();
      const bool aic = i < n;
      c.view.core_type = aic ? AscendC::AIC : AscendC::AIV;
      c.view.block_idx = aic ? i : i - n;
      c.view.block_num = n;
      c.view.sub_block_idx = aic ? 0 : (i - n) % 2;
      c.view.sub_block_num = 2;
      c.view.task_ration = aic ? 1 : 2;
      c.slot = i;
    }
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(options.ranks) * 3 * n);
  for (int rank = 0; rank < options.ranks; ++rank) {
    for (CoreState& c : cores[static_cast<size_t>(rank)]) {
      threads.emplace_back([&kernel, &c, rank] {
        t_core = &c;  // g_coreType reads the core type from here
        try {
          kernel(rank);
        } catch (const CoreStopped&) {
          // The launch already failed with a message; this core just stops.
        }
        t_core = nullptr;
      });
    }
  }
  for (std::thread& t : threads) t.join();

  LaunchResult result;
  for (int rank = 0; rank < options.ranks; ++rank) {
    std::string error = devices[static_cast<size_t>(rank)]->error();
    if (!error.empty()) return InternalError("emulated kernel failed: {}", error);
    RankResult r;
    for (CoreState& c : cores[static_cast<size_t>(rank)]) {
      r.records.insert(r.records.end(), c.records.begin(), c.records.end());
    }
    result.ranks.push_back(std::move(r));
  }
  return result;
}

}  // namespace optrace::emu
