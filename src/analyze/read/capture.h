// Capture identity: which rank directories were recorded together.
//
//   std::vector<Capture> caps = GroupCaptures(found, roots);
//   if (caps.size() > 1) ... refuse, or keep caps[run - 1].members
//
// A folder often holds several captures side by side (two runs of one job, a text and a db export
// of different jobs, an unrelated model). Analyzing them as one run invents cross-rank skew between
// jobs, so ranks are grouped by what one capture shares: the profiler configuration
// (profiler_info.json: level, aic metrics, export type, schedule, activities; the input kind) and
// the time collection ended (profiler_info end_info.collectionTimeEnd, else the timestamp in the
// directory name), within kCaptureTimeTolerance of each other. Ranks with no time join the group of
// their configuration. A group holding one rank id twice is split by parent directory (two jobs
// with one configuration at the same time, each in its own folder). msprof exports without a rank
// id whose device-time windows do not overlap are runs one after another, one capture each.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "analyze/model/model.h"

namespace optrace::analyze {

// Ranks of one job stop profiling at the same step; their collection ends seconds apart, while
// separate runs are minutes to days apart.
inline constexpr int64_t kCaptureTimeTolerance = int64_t{10} * 60 * 1000000000;

struct Capture {
  std::string config;        // the shared configuration (the grouping key)
  std::string summary;       // its short form: "torch_npu Level1 ACL_AICORE_PIPE_UTILIZATION text"
  int64_t end_ns = -1;       // latest known collection end (Unix ns), -1 when no member had one
  std::string time_source;   // "profiler_info", "directory name", ""
  std::filesystem::path dir; // common directory of the members
  std::vector<size_t> members;  // indexes into the input vector, in input order
};

// Groups `ranks` into captures, in order of their common directory.
std::vector<Capture> GroupCaptures(const std::vector<RankInput>& ranks);

// One line per capture for the refusal message and the report ("--run 1: text/level0: 2 ranks ...").
std::string DescribeCapture(const Capture& c, const std::vector<RankInput>& ranks, const std::filesystem::path& root);

}  // namespace optrace::analyze
