// The latency statistics of seed 003: per-iteration max over ranks, per-rank distributions,
// the slowest rank, max of per-rank P95 (a different statistic), the last-N reference mean.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/quantile.h"
#include "evidence/latency.h"

namespace optrace::evidence {
namespace {

DistributionStats Describe(std::vector<double> values) {
  DistributionStats d;
  if (values.empty()) return d;
  SummaryStats s = Summarize(values);
  d.samples = s.count;
  d.median = s.p50, d.p95 = s.p95, d.p99 = s.p99, d.mean = s.mean, d.min = s.min, d.max = s.max;
  return d;
}

}  // namespace

std::string_view ProblemKindName(LatencyProblemKind kind) {
  switch (kind) {
    case LatencyProblemKind::kMissingPair: return "missing_pair";
    case LatencyProblemKind::kUnequalCounts: return "unequal_counts";
    case LatencyProblemKind::kSingleRank: return "single_rank";
    case LatencyProblemKind::kMissingValue: return "missing_value";
    case LatencyProblemKind::kShortReference: return "short_reference";
  }
  return "unknown";
}

LatencyReport AnalyzeLatency(const LatencyTable& table, const LatencyOptions& options) {
  LatencyReport r;
  r.reference_last_n = options.reference_last_n;
  // rank -> iteration -> us (ordered, so "last N" follows iteration numbers).
  std::map<int64_t, std::map<int64_t, double>> by_rank;
  std::map<int64_t, std::map<int64_t, double>> by_iter;
  for (const LatencySample& s : table.samples) {
    by_rank[s.rank][s.iteration] = s.us;
    by_iter[s.iteration][s.rank] = s.us;
  }
  for (const auto& [rank, _] : by_rank) r.ranks.push_back(rank);
  r.iterations = by_iter.size();

  for (const std::string& where : table.missing_value_where) {
    r.problems.push_back({LatencyProblemKind::kMissingValue, std::nullopt, std::nullopt,
                          fmt::format("{}: latency cell is empty or NA; the pair counts as missing", where)});
  }
  if (r.ranks.size() == 1) {
    r.problems.push_back({LatencyProblemKind::kSingleRank, r.ranks[0], std::nullopt,
                          fmt::format("only rank {} present: the per-iteration max is that rank's own latency, "
                                      "not a cross-rank baseline; pass every rank's rows",
                                      r.ranks[0])});
  }

  // Per iteration: the max over the ranks present; complete when every rank is present.
  std::map<int64_t, size_t> slowest;
  std::vector<double> maxima;
  for (const auto& [iter, ranks] : by_iter) {
    IterationMax m;
    m.iteration = iter;
    m.ranks = ranks.size();
    m.complete = ranks.size() == r.ranks.size();
    bool first = true;
    for (const auto& [rank, us] : ranks) {  // ascending rank: ties keep the lowest
      if (first || us > m.max_us) m.max_us = us, m.slowest_rank = rank, first = false;
    }
    if (m.complete) {
      ++r.complete_iterations;
      maxima.push_back(m.max_us);
      ++slowest[m.slowest_rank];
    } else {
      for (int64_t rank : r.ranks) {
        if (!ranks.count(rank)) {
          r.problems.push_back({LatencyProblemKind::kMissingPair, rank, iter,
                                fmt::format("rank {} has no sample for iteration {}; iteration {} is left out of "
                                            "the per-iteration max statistics",
                                            rank, iter, iter)});
        }
      }
    }
    r.per_iteration.push_back(m);
  }
  r.per_iteration_max = Describe(maxima);

  // Per rank.
  size_t min_count = SIZE_MAX, max_count = 0;
  std::string short_ranks;
  for (const auto& [rank, iters] : by_rank) {
    RankStats rs;
    rs.rank = rank;
    std::vector<double> v;
    for (const auto& [_, us] : iters) v.push_back(us);
    rs.stats = Describe(v);
    rs.slowest_count = slowest.count(rank) ? slowest[rank] : 0;
    if (options.reference_last_n > 0) {
      size_t n = std::min<size_t>(v.size(), static_cast<size_t>(options.reference_last_n));
      double sum = 0;
      for (size_t i = v.size() - n; i < v.size(); ++i) sum += v[i];  // v is in iteration order
      rs.last_n_mean = sum / static_cast<double>(n);
      if (n < static_cast<size_t>(options.reference_last_n)) {
        short_ranks += fmt::format("{}rank {}: {}", short_ranks.empty() ? "" : ", ", rank, n);
      }
    }
    min_count = std::min(min_count, rs.stats.samples);
    max_count = std::max(max_count, rs.stats.samples);
    r.per_rank.push_back(rs);
  }
  if (!short_ranks.empty()) {
    r.problems.push_back({LatencyProblemKind::kShortReference, std::nullopt, std::nullopt,
                          fmt::format("fewer measured samples than the {} the reference mean averages ({}); "
                                      "those ranks' means use all their samples",
                                      options.reference_last_n, short_ranks)});
  }
  if (min_count != max_count) {
    std::string counts;
    for (const RankStats& rs : r.per_rank) {
      counts += fmt::format("{}rank {}: {}", counts.empty() ? "" : ", ", rs.rank, rs.stats.samples);
    }
    r.problems.push_back({LatencyProblemKind::kUnequalCounts, std::nullopt, std::nullopt,
                          fmt::format("ranks have different sample counts ({}); per-rank statistics use each rank's "
                                      "own samples",
                                      counts)});
  }

  bool first = true;
  for (const RankStats& rs : r.per_rank) {
    if (first || rs.stats.p95 > r.max_of_per_rank_p95) {
      r.max_of_per_rank_p95 = rs.stats.p95, r.max_of_per_rank_p95_rank = rs.rank, first = false;
    }
  }
  for (const auto& [rank, count] : slowest) {
    if (count > r.slowest_rank_count) r.slowest_rank = rank, r.slowest_rank_count = count;
  }
  if (options.reference_last_n > 0 && !r.per_rank.empty()) {
    double sum = 0;
    for (const RankStats& rs : r.per_rank) sum += *rs.last_n_mean;
    r.reference_mean = sum / static_cast<double>(r.per_rank.size());
  }
  return r;
}

}  // namespace optrace::evidence
