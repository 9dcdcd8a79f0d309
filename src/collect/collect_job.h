// One `optrace collect` run as a library call: collect, write the trace, compute statistics,
// write the stats file. The CLI's collect and demo commands both use it and only print.
//
//   CollectJob job;
//   job.options.inputs = {"dumps/"};
//   job.trace_path = "chrome_trace.json";
//   job.stats_path = "stats.json";   // .json or .csv
//   OPTRACE_ASSIGN_OR_RETURN(CollectReport rep, RunCollectJob(job));
#pragma once

#include <filesystem>
#include <optional>

#include "collect/chrome_writer.h"
#include "collect/collector.h"
#include "collect/stats.h"
#include "collect/stats_writer.h"
#include "core/roles.h"

namespace optrace::collect {

struct CollectJob {
  CollectOptions options;
  std::filesystem::path trace_path;
  std::optional<std::filesystem::path> stats_path;
  ChromeTraceOptions trace;
  CollectSettings settings;
  const RoleMap* roles = nullptr;
  std::vector<std::filesystem::path> other_inputs;  // --map, --roles: never overwritten by -o / --stats
};

struct CollectReport {
  CollectResult result;
  StatsTable stats;
};

// Checks that a stats path ends in .json or .csv.
Status CheckStatsPath(const std::filesystem::path& p);

Result<CollectReport> RunCollectJob(const CollectJob& job);

}  // namespace optrace::collect
