// The latency statistics of seed 003: per-iteration max over ranks, per-rank distributions,
// the slowest rank, max of per-rank P95 (a different statistic), the last-N reference mean.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/quantile.h"
#include "evidence/latency/latency.h"

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
    case LatencyProblemKind::kRankWithoutValues: return "rank_without_values";
    case LatencyProblemKind::kRankGap: return "rank_gap";
  }
  return "unknown";
}

LatencyReport AnalyzeLatency(const LatencyTable& table, const LatencyOptions& options) {
  LatencyReport r;
  r.reference_last_n = options.reference_last_n;
  // Sorted copies instead of nested maps: the tables reach millions of rows.
  std::vector<const LatencySample*> by_iter;
  by_iter.reserve(table.samples.size());
  for (const LatencySample& s : table.samples) by_iter.push_back(&s);
  std::vector<const LatencySample*> by_rank = by_iter;
  std::sort(by_iter.begin(), by_iter.end(), [](const LatencySample* a, const LatencySample* b) {
    return std::pair(a->iteration, a->rank) < std::pair(b->iteration, b->rank);
  });
  std::sort(by_rank.begin(), by_rank.end(), [](const LatencySample* a, const LatencySample* b) {
    return std::pair(a->rank, a->iteration) < std::pair(b->rank, b->iteration);
  });
  // NA rows, by (iteration, rank): their rank and iteration exist even without a value.
  std::vector<const LatencyMissingValue*> na;
  na.reserve(table.missing_values.size());
  for (const LatencyMissingValue& m : table.missing_values) na.push_back(&m);
  std::sort(na.begin(), na.end(), [](const LatencyMissingValue* a, const LatencyMissingValue* b) {
    return std::pair(a->iteration, a->rank) < std::pair(b->iteration, b->rank);
  });
  {
    // A rank counts as present from any row it has, with or without a value.
    std::vector<int64_t> ranks;
    ranks.reserve(by_rank.size() + na.size());
    for (const LatencySample* s : by_rank) {
      if (ranks.empty() || ranks.back() != s->rank) ranks.push_back(s->rank);
    }
    for (const LatencyMissingValue* m : na) ranks.push_back(m->rank);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    r.ranks = std::move(ranks);
  }

  for (const LatencyMissingValue* m : na) {
    r.problems.push_back({LatencyProblemKind::kMissingValue, m->rank, m->iteration,
                          fmt::format("{}:{}: rank {} iteration {}: latency cell is empty or NA; the pair counts as "
                                      "missing and iteration {} is left out of the per-iteration max statistics",
                                      table.inputs[m->input], m->line, m->rank, m->iteration, m->iteration)});
  }
  if (r.ranks.size() == 1) {
    r.problems.push_back({LatencyProblemKind::kSingleRank, r.ranks[0], std::nullopt,
                          fmt::format("only rank {} present: the per-iteration max is that rank's own latency, "
                                      "not a cross-rank baseline; pass every rank's rows",
                                      r.ranks[0])});
  }
  for (size_t i = 1; i < r.ranks.size(); ++i) {
    if (r.ranks[i] == r.ranks[i - 1] + 1) continue;
    int64_t first = r.ranks[i - 1] + 1, last = r.ranks[i] - 1;
    std::string absent = first == last ? fmt::format("rank {} is", first) : fmt::format("ranks {}-{} are", first, last);
    r.problems.push_back({LatencyProblemKind::kRankGap, first, std::nullopt,
                          fmt::format("ranks {} and {} are present but {} absent: if they ran, their rows are "
                                      "missing and every per-iteration max may be understated; pass every rank's rows",
                                      r.ranks[i - 1], r.ranks[i], absent)});
  }

  // Per iteration: the max over the ranks with a value; complete when every rank has one.
  std::map<int64_t, size_t> slowest;
  std::vector<double> maxima;
  for (size_t i = 0, a = 0; i < by_iter.size() || a < na.size();) {
    // The next iteration in either list (an iteration may have only NA rows).
    int64_t iteration = i < by_iter.size() ? by_iter[i]->iteration : na[a]->iteration;
    if (a < na.size() && na[a]->iteration < iteration) iteration = na[a]->iteration;
    size_t j = i;
    while (j < by_iter.size() && by_iter[j]->iteration == iteration) ++j;
    size_t b = a;
    while (b < na.size() && na[b]->iteration == iteration) ++b;
    IterationMax m;
    m.iteration = iteration;
    m.ranks = j - i;
    m.complete = m.ranks == r.ranks.size();
    for (size_t k = i; k < j; ++k) {  // ascending rank: ties keep the lowest
      if (k == i || by_iter[k]->us > m.max_us) m.max_us = by_iter[k]->us, m.slowest_rank = by_iter[k]->rank;
    }
    if (m.complete) {
      ++r.complete_iterations;
      maxima.push_back(m.max_us);
      ++slowest[m.slowest_rank];
    } else {
      size_t k = i, n = a;
      for (int64_t rank : r.ranks) {  // merge: all three lists are sorted by rank
        if (k < j && by_iter[k]->rank == rank) {
          ++k;
          continue;
        }
        if (n < b && na[n]->rank == rank) {  // reported above as missing_value
          ++n;
          continue;
        }
        r.problems.push_back({LatencyProblemKind::kMissingPair, rank, m.iteration,
                              fmt::format("rank {} has no sample for iteration {}; iteration {} is left out of "
                                          "the per-iteration max statistics",
                                          rank, m.iteration, m.iteration)});
      }
    }
    r.per_iteration.push_back(m);
    i = j, a = b;
  }
  r.iterations = r.per_iteration.size();
  r.per_iteration_max = Describe(maxima);

  // Per rank.
  size_t min_count = SIZE_MAX, max_count = 0;
  std::string short_ranks;
  for (size_t i = 0; i < by_rank.size();) {
    size_t j = i;
    while (j < by_rank.size() && by_rank[j]->rank == by_rank[i]->rank) ++j;
    RankStats rs;
    rs.rank = by_rank[i]->rank;
    std::vector<double> v;  // in iteration order
    v.reserve(j - i);
    for (size_t k = i; k < j; ++k) v.push_back(by_rank[k]->us);
    i = j;
    rs.slowest_count = slowest.count(rs.rank) ? slowest[rs.rank] : 0;
    if (options.reference_last_n > 0) {
      size_t n = std::min<size_t>(v.size(), static_cast<size_t>(options.reference_last_n));
      double sum = 0;
      for (size_t k = v.size() - n; k < v.size(); ++k) sum += v[k];
      rs.last_n_mean = sum / static_cast<double>(n);
      if (n < static_cast<size_t>(options.reference_last_n)) {
        short_ranks += fmt::format("{}rank {}: {}", short_ranks.empty() ? "" : ", ", rs.rank, n);
      }
    }
    rs.stats = Describe(std::move(v));
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
  // Ranks whose every measured row is NA have no distribution; they still count as present.
  for (size_t i = 0, k = 0; i < r.ranks.size(); ++i) {
    if (k < r.per_rank.size() && r.per_rank[k].rank == r.ranks[i]) {
      ++k;
      continue;
    }
    min_count = 0;
    r.problems.push_back({LatencyProblemKind::kRankWithoutValues, r.ranks[i], std::nullopt,
                          fmt::format("rank {} has rows but no latency value (every cell NA or empty): no iteration "
                                      "is complete with it, and the per-rank statistics, the max of per-rank P95 "
                                      "and the reference mean cover the other ranks only",
                                      r.ranks[i])});
  }
  if (min_count != max_count) {
    std::string counts;
    for (size_t i = 0, k = 0; i < r.ranks.size(); ++i) {
      size_t n = 0;
      if (k < r.per_rank.size() && r.per_rank[k].rank == r.ranks[i]) n = r.per_rank[k++].stats.samples;
      counts += fmt::format("{}rank {}: {}", counts.empty() ? "" : ", ", r.ranks[i], n);
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
