// Per-label statistics of a collection: per (label, core kind), and per (label, role) when a
// roles file is given.
//
//   StatsTable t = ComputeStats(collection, /*roles=*/nullptr);
//   std::cout << FormatStatsTable(t);
//
// Durations are in microseconds (each core's clock). Percentiles: core/quantile.h (linear
// interpolation between closest ranks, numpy's default). Self time = duration minus the
// time covered by its direct children (intervals nested inside it on the same core).
// Spread across cores: each (rank, core) that has the label contributes its total time; min and
// max of those totals, and the slowest (rank, core).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/diagnostics.h"
#include "collect/model.h"
#include "core/quantile.h"
#include "core/roles.h"

namespace optrace::collect {

struct LabelStats {
  std::string label;
  CoreKind kind = CoreKind::kUnknown;
  std::string role;  // set in role rows only
  SummaryStats duration;  // us
  double self_total = 0;  // us
  double self_mean = 0;   // us
  size_t cores = 0;       // (rank, core) pairs with this label
  double core_total_min = 0;
  double core_total_max = 0;
  int32_t slowest_rank = 0;
  uint32_t slowest_core = 0;
};

struct StatsTable {
  std::vector<LabelStats> rows;       // by kind (AIC, AIV, ...), then total time, largest first
  std::vector<LabelStats> role_rows;  // by role (file order), then total time
  std::vector<std::string> roles;     // role names, file order
};

StatsTable ComputeStats(const Collection& c, const RoleMap* roles);

// ComputeStats one interval at a time, for a collection that is never held whole (collect
// streams each rank's intervals to the trace and here). Intervals must come in the collection's
// order (rank, kind, core, begin): the sums are then the same to the last bit, and each core's
// intervals are one run in its kind's rows (which keep no per-core table; see stats.cc).
//
//   StatsAccumulator acc(roles);
//   for (const Interval& iv : rank_intervals) acc.Add(iv, series[iv.series].clock_hz);
//   StatsTable t = std::move(acc).Finish(labels);
class StatsAccumulator {
 public:
  explicit StatsAccumulator(const RoleMap* roles);
  ~StatsAccumulator();
  StatsAccumulator(StatsAccumulator&&) noexcept;
  StatsAccumulator& operator=(StatsAccumulator&&) noexcept;

  void Add(const Interval& iv, double clock_hz);
  StatsTable Finish(const std::vector<LabelInfo>& labels) &&;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// How the roles file fits the dumps' cores (every rank's AIC/AIV cores, by index): adds
// role_matches_no_core, role_cores_absent and core_without_role (info) to `diag`, with the
// same coverage rules as `optrace pipe` (core/roles.h CheckRoleCoverage).
void AddRoleCoverageProblems(const Collection& c, const RoleMap& roles, Diagnostics& diag);

// Fixed-width text table (one section for kinds, one for roles if any).
std::string FormatStatsTable(const StatsTable& t);

}  // namespace optrace::collect
