// The system-timeline evidence of the report (seed 003 section 3.3): the kernel's own calls as the
// profiler recorded them, from `optrace analyze ROOT --kernel NAME`'s kernel_calls.csv (rank,
// call, name, dur_us, launch_gap_us, source_file), summarised per rank.
//
//   OPTRACE_ASSIGN_OR_RETURN(KernelCalls k, ReadKernelCalls("an/kernel_calls.csv"));
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"

namespace optrace::evidence {

struct KernelCallsRank {
  int rank = -1;
  size_t calls = 0;
  double p50_us = 0, max_us = 0;
  double launch_gap_p50_us = -1;  // -1: no gap in the file (one call, or none recorded)
};

struct KernelCalls {
  std::filesystem::path path;
  std::set<std::string> names;        // the kernel names the rows carry
  std::set<std::string> sources;      // the exports they came from (kernel_details.csv, ...)
  std::vector<KernelCallsRank> ranks;  // by rank
  size_t calls = 0;
};

// Fails when the file is unreadable or lacks the rank, name or dur_us column (the message names
// the file and says which command writes it).
Result<KernelCalls> ReadKernelCalls(const std::filesystem::path& path);

}  // namespace optrace::evidence
