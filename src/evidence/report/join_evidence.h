// The system-timeline evidence of the report (seed 003 section 3.3) from `optrace join`: the
// kernel's phases placed inside its own task slices of the profiler capture, read from the
// join's --summary JSON (launches with their slice and residuals, the trace to open).
//
//   OPTRACE_ASSIGN_OR_RETURN(JoinEvidence j, ReadJoinEvidence("join.json"));
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace optrace::evidence {

struct JoinedLaunch {
  int rank = 0, launch = 0;
  int64_t slice_dur_ns = 0, lead_ns = 0, tail_ns = 0;
  uint64_t phases = 0, outside = 0;
};

struct JoinEvidence {
  std::filesystem::path path;
  std::string kernel, trace, capture;
  std::vector<JoinedLaunch> launches;
  std::vector<std::string> issues;
};

// Fails when the file is unreadable or not a join summary (the message says which command writes it).
Result<JoinEvidence> ReadJoinEvidence(const std::filesystem::path& path);

}  // namespace optrace::evidence
