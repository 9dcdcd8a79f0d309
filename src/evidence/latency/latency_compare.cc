// Controlled comparison of two latency runs: bootstrap CIs over iterations, text and JSON writers.
// The plot is in latency_plot.cc beside the baseline plot.
#include "evidence/latency/latency_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "core/quantile.h"

namespace optrace::evidence {
namespace {

// Bootstrap replicates of the two compared statistics, from one set of resamples.
struct Replicates {
  std::vector<double> median, p95;
};

// A resample with replacement of a sorted sample is a count per position (how often each value
// was drawn). Type-7 quantiles of the resample then come from one walk over the counts: O(n) per
// resample, no sort, sequential memory access.
class ResampleQuantiles {
 public:
  explicit ResampleQuantiles(size_t n) : counts_(n) {}

  // Draws n positions with `rng`; then MedianAndP95() reads the resample.
  void Draw(std::mt19937_64& rng) {
    std::fill(counts_.begin(), counts_.end(), 0u);
    const size_t n = counts_.size();
    // Position = high 64 bits of draw x n (Lemire): no division; bias ~ n / 2^64, negligible.
    __extension__ using U128 = unsigned __int128;
    for (size_t i = 0; i < n; ++i) ++counts_[static_cast<size_t>((static_cast<U128>(rng()) * n) >> 64)];
  }

  // The median and the P95 of the resample, from one walk over the counts.
  std::pair<double, double> MedianAndP95(const std::vector<double>& sorted) const {
    struct Pos {
      size_t k;
      double frac;
    };
    Pos pos[2];
    const double q[2] = {0.5, 0.95};
    // Order positions needed: lo and lo + 1 of each quantile. For small n they interleave
    // (n = 2: 0, 1, 0, 1), so they are visited in ascending order through `order`.
    size_t want[4];
    for (int i = 0; i < 2; ++i) {
      double h = static_cast<double>(sorted.size() - 1) * q[i];
      pos[i] = {static_cast<size_t>(std::floor(h)), h - std::floor(h)};
      want[2 * i] = pos[i].k;
      want[2 * i + 1] = std::min(pos[i].k + 1, sorted.size() - 1);
    }
    int order[4] = {0, 1, 2, 3};
    std::sort(order, order + 4, [&](int x, int y) { return want[x] < want[y]; });
    double got[4] = {};
    size_t cum = 0, w = 0;
    for (size_t j = 0; j < counts_.size() && w < 4; ++j) {
      cum += counts_[j];
      while (w < 4 && want[order[w]] < cum) got[order[w++]] = sorted[j];
    }
    auto value = [&](int i) { return got[2 * i] + pos[i].frac * (got[2 * i + 1] - got[2 * i]); };
    return {value(0), value(1)};
  }

 private:
  std::vector<uint32_t> counts_;
};

// SplitMix64 finaliser: turns (seed, scope, side) into well-separated generator seeds, so a
// scope's numbers do not depend on which other scopes exist.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

Replicates Bootstrap(std::vector<double> values, uint64_t seed, int resamples) {
  SortValues(values);
  Replicates r;
  r.median.reserve(static_cast<size_t>(resamples));
  r.p95.reserve(static_cast<size_t>(resamples));
  std::mt19937_64 rng(seed);  // the engine's output sequence is fixed by the standard
  ResampleQuantiles draw(values.size());
  for (int b = 0; b < resamples; ++b) {
    draw.Draw(rng);
    auto [median, p95] = draw.MedianAndP95(values);
    r.median.push_back(median);
    r.p95.push_back(p95);
  }
  return r;
}

ConfidenceInterval Interval(std::vector<double> replicates, double confidence) {
  SortValues(replicates);
  double tail = (1 - confidence) / 2;
  return {Quantile(replicates, tail), Quantile(replicates, 1 - tail)};
}

StatisticComparison Compare(std::optional<int64_t> rank, std::string_view statistic, double before, double after,
                            const std::vector<double>& rb, const std::vector<double>& ra, size_t nb, size_t na,
                            double confidence) {
  StatisticComparison s;
  s.rank = rank;
  s.statistic = std::string(statistic);
  s.before_samples = nb, s.after_samples = na;
  s.before = before, s.after = after;
  s.before_ci = Interval(rb, confidence);
  s.after_ci = Interval(ra, confidence);
  s.change = after - before;
  std::vector<double> diff(rb.size()), rel(rb.size());
  bool rel_ok = true;
  for (size_t i = 0; i < rb.size(); ++i) {
    diff[i] = ra[i] - rb[i];
    if (rb[i] > 0) {
      rel[i] = ra[i] / rb[i] - 1;
    } else {
      rel_ok = false;
    }
  }
  s.change_ci = Interval(diff, confidence);
  if (before > 0) s.relative = after / before - 1;
  if (rel_ok && s.relative) s.relative_ci = Interval(rel, confidence);
  s.moved = s.change_ci.low > 0 || s.change_ci.high < 0;
  return s;
}

// "0-3, 5"
std::string RankList(const std::vector<int64_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ", ",
                       i == j ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return out;
}

std::string Names(const std::vector<std::string>& inputs) { return fmt::format("{}", fmt::join(inputs, ", ")); }

std::string MeasurementName(const std::string& m) {
  return m.empty() ? std::string("not stated (no measurement column)") : "'" + m + "'";
}

std::map<int64_t, std::vector<double>> ByRank(const LatencyTable& t) {
  std::map<int64_t, std::vector<double>> out;
  for (const LatencySample& s : t.samples) out[s.rank].push_back(s.us);
  return out;
}

std::vector<double> CompleteMaxima(const LatencyReport& r) {
  std::vector<double> out;
  for (const IterationMax& m : r.per_iteration) {
    if (m.complete) out.push_back(m.max_us);
  }
  return out;
}

LatencyRun MakeRun(const LatencyTable& t, LatencyReport report) {
  return {t.inputs, t.value_column, t.measurement, t.warmup_policy, t.warmup_rows_excluded, std::move(report)};
}

std::string Us(double v) { return fmt::format("{:.3f}", v); }
std::string Signed(double v) { return fmt::format("{:+.3f}", v); }
std::string SignedPct(double v) { return fmt::format("{:+.1f}%", v * 100); }

nlohmann::ordered_json ValueJson(double v, const ConfidenceInterval& ci) {
  return {{"value", v}, {"ci_low", ci.low}, {"ci_high", ci.high}};
}

nlohmann::ordered_json RunJson(const LatencyRun& run) {
  const LatencyReport& r = run.report;
  nlohmann::ordered_json problems = nlohmann::ordered_json::array();
  for (const LatencyProblem& p : r.problems) {
    nlohmann::ordered_json pj{{"kind", ProblemKindName(p.kind)}, {"message", p.message}};
    if (p.rank) pj["rank"] = *p.rank;
    if (p.iteration) pj["iteration"] = *p.iteration;
    problems.push_back(pj);
  }
  return {{"inputs", run.inputs},
          {"value_column", run.value_column},
          {"measurement", run.measurement.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(run.measurement)},
          {"warmup", {{"policy", run.warmup_policy}, {"rows_excluded", run.warmup_rows_excluded}}},
          {"ranks", r.ranks},
          {"iterations",
           {{"measured", r.iterations},
            {"complete", r.complete_iterations},
            {"incomplete_excluded", r.iterations - r.complete_iterations}}},
          {"problems", problems}};
}

void WriteProblems(std::string_view side, const LatencyRun& run, std::ostream& out) {
  const auto& problems = run.report.problems;
  if (problems.empty()) {
    out << fmt::format("{} problems: none\n", side);
    return;
  }
  out << fmt::format("{} problems ({}):\n", side, problems.size());
  constexpr size_t kShown = 10;
  for (size_t i = 0; i < problems.size() && i < kShown; ++i) out << "  - " << problems[i].message << "\n";
  if (problems.size() > kShown) {
    out << fmt::format("  ... {} more (all of them in --format json)\n", problems.size() - kShown);
  }
}

}  // namespace

Result<LatencyComparison> CompareLatency(const LatencyTable& before, const LatencyTable& after,
                                         const LatencyOptions& options) {
  if (before.measurement != after.measurement) {
    return BadInputError(
        "cannot compare {} (measurement {}) with {} (measurement {}): the runs were timed over different scopes "
        "(kernel: in-kernel counter between the entry and exit barriers; event: ACL events around the launch), "
        "which are never compared with each other; compare two runs of the same measurement",
        Names(before.inputs), MeasurementName(before.measurement), Names(after.inputs),
        MeasurementName(after.measurement));
  }
  if (before.samples.empty() || after.samples.empty()) {
    return BadInputError("cannot compare {} with {}: {} has no measured latency value",
                         Names(before.inputs), Names(after.inputs),
                         Names(before.samples.empty() ? before.inputs : after.inputs));
  }
  LatencyComparison c;
  c.before = MakeRun(before, AnalyzeLatency(before, options));
  c.after = MakeRun(after, AnalyzeLatency(after, options));
  const std::vector<int64_t>& rb = c.before.report.ranks;
  const std::vector<int64_t>& ra = c.after.report.ranks;
  if (rb != ra) {
    std::vector<int64_t> only_before, only_after;
    std::set_difference(rb.begin(), rb.end(), ra.begin(), ra.end(), std::back_inserter(only_before));
    std::set_difference(ra.begin(), ra.end(), rb.begin(), rb.end(), std::back_inserter(only_after));
    std::string detail;
    if (!only_before.empty()) detail += fmt::format("rank(s) {} only in {}", RankList(only_before), Names(before.inputs));
    if (!only_after.empty()) {
      detail += fmt::format("{}rank(s) {} only in {}", detail.empty() ? "" : "; ", RankList(only_after),
                            Names(after.inputs));
    }
    return BadInputError("cannot compare {} (ranks {}) with {} (ranks {}): the rank sets differ ({}); a per-iteration "
                         "max over other ranks is another statistic: compare runs of the same ranks",
                         Names(before.inputs), RankList(rb), Names(after.inputs), RankList(ra), detail);
  }

  // Scope 0: the per-iteration max; scope rank + 1: that rank. Side 0 before, 1 after.
  auto seed_for = [&](int64_t scope, int side) {
    return Mix(c.seed ^ Mix(static_cast<uint64_t>(scope) * 2 + static_cast<uint64_t>(side)));
  };
  auto add_scope = [&](std::optional<int64_t> rank, const std::vector<double>& vb, const std::vector<double>& va,
                       const DistributionStats& db, const DistributionStats& da) {
    if (vb.empty() || va.empty()) return;
    int64_t scope = rank ? *rank + 1 : 0;
    Replicates b = Bootstrap(vb, seed_for(scope, 0), c.resamples);
    Replicates a = Bootstrap(va, seed_for(scope, 1), c.resamples);
    c.rows.push_back(Compare(rank, "median", db.median, da.median, b.median, a.median, vb.size(), va.size(),
                             c.confidence));
    c.rows.push_back(Compare(rank, "p95", db.p95, da.p95, b.p95, a.p95, vb.size(), va.size(), c.confidence));
  };
  add_scope(std::nullopt, CompleteMaxima(c.before.report), CompleteMaxima(c.after.report),
            c.before.report.per_iteration_max, c.after.report.per_iteration_max);
  std::map<int64_t, std::vector<double>> sb = ByRank(before), sa = ByRank(after);
  for (const RankStats& rs_b : c.before.report.per_rank) {
    auto it = std::find_if(c.after.report.per_rank.begin(), c.after.report.per_rank.end(),
                           [&](const RankStats& x) { return x.rank == rs_b.rank; });
    if (it == c.after.report.per_rank.end()) continue;  // every value NA after: a problem there, no row
    add_scope(rs_b.rank, sb[rs_b.rank], sa[rs_b.rank], rs_b.stats, it->stats);
  }
  return c;
}

std::string ComparisonScopeName(const StatisticComparison& row) {
  return row.rank ? fmt::format("rank {}", *row.rank) : std::string("per-iteration max");
}

void WriteLatencyComparisonText(const LatencyComparison& c, std::ostream& out) {
  const LatencyReport& b = c.before.report;
  const LatencyReport& a = c.after.report;
  out << fmt::format("latency comparison (us): before {}, after {}\n", Names(c.before.inputs), Names(c.after.inputs));
  out << fmt::format("measurement: {}; column: before {}, after {}\n",
                     c.before.measurement.empty() ? "not stated in either file" : c.before.measurement,
                     c.before.value_column, c.after.value_column);
  if (!c.factor.empty()) out << fmt::format("factor changed: {}\n", c.factor);
  out << fmt::format("warm-up: before {} ({} rows); after {} ({} rows)\n", c.before.warmup_policy,
                     c.before.warmup_rows_excluded, c.after.warmup_policy, c.after.warmup_rows_excluded);
  out << fmt::format("repeats: before {} complete iterations of {} measured, after {} of {}; {} ranks\n",
                     b.complete_iterations, b.iterations, a.complete_iterations, a.iterations, b.ranks.size());
  out << fmt::format("CI: {:g}% percentile bootstrap over iterations, {} resamples per side, seed {} "
                     "(std::mt19937_64); moved = the change's CI excludes 0\n\n",
                     c.confidence * 100, c.resamples, c.seed);
  auto with_ci = [](std::string v, const ConfidenceInterval& ci, bool sign) {
    return sign ? fmt::format("{} [{}, {}]", v, Signed(ci.low), Signed(ci.high))
                : fmt::format("{} [{}, {}]", v, Us(ci.low), Us(ci.high));
  };
  out << fmt::format("{:<28} {:<28} {:<28} {:<52} {}\n", "statistic", "before [95% CI]", "after [95% CI]",
                     "change [95% CI] (relative [95% CI])", "moved");
  for (const StatisticComparison& s : c.rows) {
    std::string change = with_ci(Signed(s.change), s.change_ci, true);
    if (s.relative) {
      change += s.relative_ci ? fmt::format(" ({} [{}, {}])", SignedPct(*s.relative), SignedPct(s.relative_ci->low),
                                            SignedPct(s.relative_ci->high))
                              : fmt::format(" ({})", SignedPct(*s.relative));
    }
    out << fmt::format("{:<28} {:<28} {:<28} {:<52} {}\n",
                       fmt::format("{} {}", ComparisonScopeName(s), s.statistic == "p95" ? "P95" : "median"),
                       with_ci(Us(s.before), s.before_ci, false), with_ci(Us(s.after), s.after_ci, false), change,
                       s.moved ? "yes" : "no");
  }
  if (c.rows.empty()) out << "(no statistic: a side has no complete iteration and no rank with values)\n";
  out << "\npercentiles: " << kPercentileDefinition << "\n";
  WriteProblems("before", c.before, out);
  WriteProblems("after", c.after, out);
}

nlohmann::ordered_json LatencyComparisonJson(const LatencyComparison& c) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["kind"] = "latency_comparison";
  j["unit"] = "us";
  j["factor"] = c.factor.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.factor);
  j["before"] = RunJson(c.before);
  j["after"] = RunJson(c.after);
  j["bootstrap"] = {{"method", "percentile"},
                    {"confidence", c.confidence},
                    {"resamples", c.resamples},
                    {"seed", c.seed},
                    {"generator", "std::mt19937_64"},
                    {"resampled", "iterations, with replacement, each side independently"}};
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const StatisticComparison& s : c.rows) {
    nlohmann::ordered_json row;
    row["scope"] = s.rank ? "rank" : "per_iteration_max";
    if (s.rank) row["rank"] = *s.rank;
    row["statistic"] = s.statistic;
    row["before"] = ValueJson(s.before, s.before_ci);
    row["before"]["samples"] = s.before_samples;
    row["after"] = ValueJson(s.after, s.after_ci);
    row["after"]["samples"] = s.after_samples;
    row["change"] = ValueJson(s.change, s.change_ci);
    row["relative_change"] = s.relative ? (s.relative_ci ? ValueJson(*s.relative, *s.relative_ci)
                                                         : nlohmann::ordered_json{{"value", *s.relative},
                                                                                  {"ci_low", nullptr},
                                                                                  {"ci_high", nullptr}})
                                        : nlohmann::ordered_json(nullptr);
    row["moved"] = s.moved;
    rows.push_back(row);
  }
  j["statistics"] = rows;
  j["percentile_definition"] = kPercentileDefinition;
  return j;
}

}  // namespace optrace::evidence
