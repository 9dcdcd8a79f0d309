// Latency baselines from per-iteration, per-rank samples (seed 003, step 1).
//
//   LatencyOptions opt;                       // dispatch_latency.csv columns by default
//   OPTRACE_ASSIGN_OR_RETURN(LatencyTable t, ReadLatencyCsvFiles({"dispatch_latency.csv"}, opt));
//   LatencyReport r = AnalyzeLatency(t, opt);
//   r.per_iteration_max.p95;                  // P95 of the per-iteration max over ranks (us)
//   r.max_of_per_rank_p95;                    // a different statistic, reported apart
//
// Inputs: DeepEP-for-Ascend dispatch_latency.csv (rank, iteration, elapsed_ms, elapsed_us,
// is_warmup, in_average[, measurement, clock_hz]) or any CSV whose rank / iteration / value
// columns are named in LatencyColumns. All values are converted to microseconds.
//
// Data problems (missing (rank, iteration) pairs, NA values, unequal per-rank counts, gaps in
// the rank numbers, one rank only) are reported in LatencyReport::problems and never averaged
// away: a rank is present when it has any row, even one whose value is NA; an iteration that
// lacks a rank's value is left out of the per-iteration max statistics (a max over fewer ranks
// would understate it) and counted. Malformed input (missing column, a row with fewer fields
// than the header, non-numeric cell, negative latency, duplicate pair, mixed measurement modes)
// is an error naming file and line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace optrace::evidence {

enum class LatencyUnit { kUs, kMs, kNs, kCycles };

// Parses "us", "ms", "ns", "cycles".
std::optional<LatencyUnit> ParseLatencyUnit(std::string_view text);

struct LatencyOptions {
  std::string rank_column = "rank";
  std::string iteration_column = "iteration";
  // Empty: elapsed_us if present, else elapsed_ms (dispatch_latency.csv).
  std::string value_column;
  // Unit of value_column when it is named; ignored for the elapsed_* defaults.
  LatencyUnit unit = LatencyUnit::kUs;
  // Clock for kCycles when the file has no clock_hz column.
  std::optional<double> clock_hz;
  // Exclude the first N iterations (by iteration number) instead of the is_warmup column.
  std::optional<int64_t> warmup;
  // Samples per rank averaged for the reference mean (the reference plotter's "last N").
  int reference_last_n = 5;
};

struct LatencySample {
  int64_t rank = 0;
  int64_t iteration = 0;
  double us = 0;
  uint32_t input = 0;  // index into LatencyTable::inputs
  uint64_t line = 0;   // 1-based line in that input
};

// A measured (not warm-up) row whose value cell is NA or empty: the rank and the iteration
// exist, the sample does not.
struct LatencyMissingValue {
  int64_t rank = 0;
  int64_t iteration = 0;
  uint32_t input = 0;  // index into LatencyTable::inputs
  uint64_t line = 0;
};

struct LatencyTable {
  std::vector<std::string> inputs;
  std::vector<LatencySample> samples;  // measured rows only (warm-up removed)
  std::string value_column;            // the column the values came from
  std::string measurement;             // "kernel", "event" or "" when the file does not say
  std::optional<double> clock_hz;      // from the clock_hz column or the option
  std::string warmup_policy;           // human-readable: which rule removed which rows
  size_t warmup_rows_excluded = 0;
  size_t missing_value_rows = 0;       // rows whose value cell was NA / empty
  std::vector<LatencyMissingValue> missing_values;  // those rows, in read order
};

// Reads and concatenates the files (e.g. one per run segment or per rank).
Result<LatencyTable> ReadLatencyCsvFiles(const std::vector<std::filesystem::path>& paths,
                                         const LatencyOptions& options);
// Same from text; `origin` names it in messages.
Result<LatencyTable> ReadLatencyCsvText(std::string text, const std::string& origin,
                                        const LatencyOptions& options);

struct DistributionStats {
  size_t samples = 0;
  double median = 0, p95 = 0, p99 = 0, mean = 0, min = 0, max = 0;
};

struct RankStats {
  int64_t rank = 0;
  DistributionStats stats;
  size_t slowest_count = 0;  // complete iterations in which this rank had the max
  std::optional<double> last_n_mean;
};

struct IterationMax {
  int64_t iteration = 0;
  double max_us = 0;
  int64_t slowest_rank = 0;
  size_t ranks = 0;       // ranks with a value in this iteration (0: every value NA, max_us meaningless)
  bool complete = false;  // every rank has a sample
};

enum class LatencyProblemKind {
  kMissingPair,
  kUnequalCounts,
  kSingleRank,
  kMissingValue,
  kShortReference,
  kRankWithoutValues,  // a rank whose every measured row is NA
  kRankGap,            // ranks 0 and 2 present, 1 absent
};

struct LatencyProblem {
  LatencyProblemKind kind;
  std::optional<int64_t> rank;
  std::optional<int64_t> iteration;
  std::string message;
};

std::string_view ProblemKindName(LatencyProblemKind kind);

struct LatencyReport {
  std::vector<int64_t> ranks;          // sorted; every rank with a row, even an all-NA one
  size_t iterations = 0;               // distinct measured iterations
  size_t complete_iterations = 0;
  DistributionStats per_iteration_max; // over complete iterations only
  std::vector<IterationMax> per_iteration;  // every iteration, sorted
  std::vector<RankStats> per_rank;     // sorted by rank; ranks with at least one value
  std::optional<int64_t> slowest_rank;  // slowest most often (ties: lowest rank)
  size_t slowest_rank_count = 0;
  double max_of_per_rank_p95 = 0;       // NOT the P95 of per-iteration maxima
  int64_t max_of_per_rank_p95_rank = 0;
  std::optional<double> reference_mean;  // mean over ranks of each rank's last-N mean
  int reference_last_n = 5;
  std::vector<LatencyProblem> problems;
};

// Computes every statistic; `table` must hold at least one sample.
LatencyReport AnalyzeLatency(const LatencyTable& table, const LatencyOptions& options);

// The statistic definitions, printed by every writer.
inline constexpr std::string_view kPercentileDefinition =
    "linear interpolation between closest ranks (Hyndman-Fan type 7, numpy default): "
    "h = (n-1)q, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h])";

}  // namespace optrace::evidence
