// A controlled comparison of two latency runs (seed 003, "change one factor, repeat, compare").
//
//   LatencyOptions opt;  // the same options for both sides
//   OPTRACE_ASSIGN_OR_RETURN(LatencyTable before, ReadLatencyCsvFiles({"before.csv"}, opt));
//   OPTRACE_ASSIGN_OR_RETURN(LatencyTable after, ReadLatencyCsvFiles({"after.csv"}, opt));
//   OPTRACE_ASSIGN_OR_RETURN(LatencyComparison c, CompareLatency(before, after, opt));
//   c.rows[0].moved;   // per-iteration max, median: does the 95% CI of the change exclude 0?
//
// Compared statistics: median and P95 of the per-iteration max over ranks (complete iterations
// only, as AnalyzeLatency counts them) and of each rank's own samples. Each gets a 95% percentile
// bootstrap confidence interval: the iterations of each side are resampled with replacement
// (kBootstrapResamples times, std::mt19937_64 from kBootstrapSeed, so a rerun prints the same
// numbers), the two sides independently; the change (after - before) and the relative change
// (after / before - 1) take their CI from the same paired-by-draw replicates. `moved` means the
// change's CI excludes 0. Intervals are the 2.5% and 97.5% type-7 quantiles of the replicates.
//
// Refuses (an error naming both inputs) to compare runs whose `measurement` differs (in-kernel
// counter "kernel" vs ACL event pair "event", or stated vs not stated: different scopes are never
// mixed) or whose rank sets differ (the message names the ranks only one side has). Data problems of each side (missing pairs, NA values...) stay in each side's
// LatencyReport::problems. Must not print; the writers below only write to the given stream.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "evidence/latency/latency.h"

namespace optrace::evidence {

inline constexpr uint64_t kBootstrapSeed = 3;     // seed 003
inline constexpr int kBootstrapResamples = 2000;  // per side and statistic scope
inline constexpr double kBootstrapConfidence = 0.95;

struct ConfidenceInterval {
  double low = 0, high = 0;
};

struct StatisticComparison {
  std::optional<int64_t> rank;  // nullopt: the per-iteration max over ranks
  std::string statistic;        // "median" or "p95"
  size_t before_samples = 0, after_samples = 0;
  double before = 0, after = 0;
  ConfidenceInterval before_ci, after_ci;
  double change = 0;  // after - before (us)
  ConfidenceInterval change_ci;
  std::optional<double> relative;  // after / before - 1; nullopt when before is 0
  std::optional<ConfidenceInterval> relative_ci;
  bool moved = false;  // change_ci excludes 0
};

// One side as read: what the writers need, without the samples.
struct LatencyRun {
  std::vector<std::string> inputs;
  std::string value_column;
  std::string measurement;
  std::string warmup_policy;
  size_t warmup_rows_excluded = 0;
  LatencyReport report;  // with its problems
};

struct LatencyComparison {
  LatencyRun before, after;
  std::string factor;  // the one factor changed, as the user states it ("" when unstated)
  uint64_t seed = kBootstrapSeed;
  int resamples = kBootstrapResamples;
  double confidence = kBootstrapConfidence;
  // Per-iteration max (median, p95) first, then each rank (median, p95) by rank. A scope with no
  // samples on a side (no complete iteration, a rank with every value NA) has no row.
  std::vector<StatisticComparison> rows;
};

Result<LatencyComparison> CompareLatency(const LatencyTable& before, const LatencyTable& after,
                                         const LatencyOptions& options);

// "per-iteration max" or "rank 3".
std::string ComparisonScopeName(const StatisticComparison& row);

// Text table: statistic, before [CI], after [CI], change [CI] (relative), moved?; then each
// side's problems.
void WriteLatencyComparisonText(const LatencyComparison& c, std::ostream& out);
// schema_version 1, "kind": "latency_comparison"; fields in docs/evidence.md.
nlohmann::ordered_json LatencyComparisonJson(const LatencyComparison& c);
// Before/after per-iteration max distributions as side-by-side box plots with the medians and
// their CIs marked, and both empirical CDFs; self-contained SVG 1.1 (latency_plot.cc).
std::string RenderLatencyComparisonSvg(const LatencyComparison& c);

}  // namespace optrace::evidence
