// AscendC emulator runtime: runs a mixed 1C2V kernel on host threads, one thread per core.
//
//   optrace::emu::LaunchOptions options;  options.block_dim = 4;  options.ranks = 2;
//   auto result = optrace::emu::Launch(options, [&](int rank) { my_kernel(x[rank], out[rank]); });
//   if (!result.ok()) ...;               // a fault (out-of-range GM access, deadlock) or timeout
//   result->ranks[r].records             // every MoeTracing call of rank r, in call order per core
//
// A launch starts, for each rank, block_dim AIC threads and 2 * block_dim AIV threads, all
// running the kernel body concurrently (ranks too, so they can exchange data through shared
// host memory as they would through an HCCL window). Inside the kernel the AscendC API of
// emu/include/kernel_operator.h answers with the calling thread's core identity.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace optrace::emu {

enum class CoreType : int32_t { kAic = 1, kAiv = 2 };

// One MoeTracing call as the emulator saw it (ground truth for round-trip tests).
struct TraceRecord {
  CoreType type = CoreType::kAic;
  uint32_t core_index = 0;  // GetBlockIdx(): [0, blockDim) on AIC, [0, 2 * blockDim) on AIV
  uint32_t sub_block = 0;   // GetSubBlockIdx() on AIV, 0 on AIC
  uint32_t slot = 0;        // AIC: GetBlockIdx(); AIV: GetBlockNum() + GetBlockIdx()
  uint32_t point_id = 0;
  uint32_t payload = 0;
  uint64_t timestamp = 0;   // GetSystemCycle() value written with the event (ns)
  bool stored = false;      // false: the slot was full and the event was counted as dropped
};

struct LaunchOptions {
  int ranks = 1;
  uint32_t block_dim = 1;         // AI cores (AIC count); AIV count is 2 * block_dim
  double timeout_seconds = 20.0;  // a wait (SyncAll, CrossCoreWaitFlag) longer than this fails
  double deadline_seconds = 60.0; // a core still polling GM after this long is stopped, and fails
};

struct RankResult {
  std::vector<TraceRecord> records;  // grouped by core (AIC 0.., then AIV 0..), call order within
};

struct LaunchResult {
  std::vector<RankResult> ranks;
};

// Runs `kernel(rank)` on every core of every rank and waits for all of them.
Result<LaunchResult> Launch(const LaunchOptions& options, const std::function<void(int rank)>& kernel);

// Clock of GetSystemCycle(): CANN CPU-debug semantics, nanoseconds of CLOCK_REALTIME.
constexpr uint64_t kSystemCycleHz = 1'000'000'000;

}  // namespace optrace::emu
