// Runs the moe_dispatch_combine example operator in the AscendC emulator and returns what a
// PyTorch user would save after synchronising: each rank's profiling output, raw. It also
// returns the ground truth of what the kernel recorded, taken by the emulator at every
// MoeTracing call, independent of the buffer format and its decoder.
//
//   auto run = optrace::examples::RunMoeExample({});        // 2 ranks, blockDim 4
//   if (!run.ok()) return run.status();
//   WriteDump("rank0.bin", run->rank_buffers[0]);
//
// The kernel's numeric output is checked against a host reference on every run; a mismatch
// is an error (the emulated kernel would be wrong, so would its trace).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "optrace/format.h"

namespace optrace::examples {

struct MoeRunOptions {
  int ranks = 2;          // 1..16
  int block_dim = 4;      // AI cores per rank, 2..32 (AIV roles need at least 4 vector cores)
  int expert_groups = 4;  // local experts per rank, 1..64
  int tokens = 64;        // tokens per rank, 1..4096
};

// One event the kernel recorded and stored in its slot (events dropped because a slot was full
// are not listed: they are not in the buffer either, only counted in its dropped word).
struct RecordedEvent {
  int rank;
  optrace::format::CoreKind kind;  // kAic or kAiv
  uint32_t core_index;             // AIC: GetBlockIdx(); AIV: GetBlockIdx() in [0, 2 * block_dim)
  uint32_t sub_block;              // AIV: GetSubBlockIdx(); AIC: 0
  uint32_t slot;                   // slot in the rank's buffer: AIC i -> i, AIV i -> block_dim + i
  uint32_t point_id;
  uint32_t payload;
  uint64_t timestamp;              // GetSystemCycle() as written to the slot (CPU-debug mode: ns)
};

struct MoeRunResult {
  std::vector<std::vector<int64_t>> rank_buffers;  // the profiling output of each rank, raw
  std::vector<RecordedEvent> recorded;             // ground truth, per rank, per core, in call order
};

optrace::Result<MoeRunResult> RunMoeExample(const MoeRunOptions& options);

// The example's kernel sources (relative path under examples/moe_dispatch_combine/ -> file text),
// embedded into the binary at build time, so `optrace demo` can scan them on any machine.
const std::vector<std::pair<std::string, std::string>>& MoeExampleSources();

}  // namespace optrace::examples
