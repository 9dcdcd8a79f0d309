// Kernel focus: every call of one kernel on the device timeline of each rank (seed 003's system
// timeline step): its duration, the device idle time before it launched, the time since its
// previous call, and per iteration (the k-th call of every rank) the slowest rank. The calls
// feed `optrace latency` directly (kernel_latency.csv is in its input format).
//
//   OPTRACE_ASSIGN_OR_RETURN(KernelFocus f, FocusKernel(result, "MoeDistributeDispatch"));
//   for (const KernelCall& c : f.calls) ... c.rank, c.call, c.dur_us, c.launch_gap_us
//
// Which events are the kernel: those whose Name equals the query; else whose Type equals it;
// else the one Name that contains it. Several names containing it, or none, is an error that
// lists candidates (the heaviest kernels when nothing matches).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/model/model.h"
#include "core/status.h"

namespace optrace::analyze {

struct KernelCall {
  int rank = -1;
  int64_t call = 0;          // 0-based call index on its rank (the iteration)
  uint32_t event = 0;        // index into the rank's events
  int64_t start_ns = 0;      // absolute Unix ns
  double dur_us = 0;
  double launch_gap_us = 0;  // device idle before it: start - the latest end of earlier tasks (0 when busy)
  double period_us = -1;     // since the previous call's start, -1 for the first
  int64_t step_id = -1;
};

struct KernelIteration {
  int64_t call = 0;
  int ranks = 0;             // ranks with this call
  double max_us = 0, min_us = 0;
  int slowest_rank = -1;
};

struct KernelFocus {
  std::string query;
  std::string matched_by;          // "name", "type", "name contains"
  std::vector<std::string> names;  // the distinct names matched
  std::vector<KernelCall> calls;   // by rank, then call
  std::vector<KernelIteration> iterations;
  std::map<int, int> calls_per_rank;
  std::map<int, int> slowest_count;  // rank -> iterations (with every rank) it was slowest in
};

Result<KernelFocus> FocusKernel(const AnalysisResult& result, std::string_view query);

}  // namespace optrace::analyze
