// Text, JSON and CSV writers for latency reports.
#include "evidence/latency/latency_writers.h"

#include <fmt/format.h>

#include <map>

#include "core/csv_writer.h"

namespace optrace::evidence {
namespace {

std::string Us(double v) { return fmt::format("{:.3f}", v); }

nlohmann::ordered_json DistJson(const DistributionStats& d) {
  if (d.samples == 0) return nullptr;
  return {{"median", d.median}, {"p95", d.p95}, {"p99", d.p99}, {"mean", d.mean},
          {"min", d.min},       {"max", d.max}, {"samples", d.samples}};
}

}  // namespace

void WriteLatencyText(const LatencyTable& t, const LatencyReport& r, std::ostream& out) {
  out << fmt::format("latency: {} (column {}", fmt::join(t.inputs, ", "), t.value_column);
  if (!t.measurement.empty()) out << ", measurement " << t.measurement;
  if (t.clock_hz) out << fmt::format(", clock {} Hz", *t.clock_hz);
  out << "; values in us)\n";
  out << fmt::format("warm-up: {} ({} rows)\n", t.warmup_policy, t.warmup_rows_excluded);
  out << fmt::format("ranks: {}, measured iterations: {} ({} complete, {} missing a rank)\n\n", r.ranks.size(),
                     r.iterations, r.complete_iterations, r.iterations - r.complete_iterations);

  const DistributionStats& m = r.per_iteration_max;
  out << fmt::format("per-iteration max over ranks, {} complete iterations (us):\n", m.samples);
  out << fmt::format("  {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "median", "p95", "p99", "mean", "min", "max");
  if (m.samples > 0) {
    out << fmt::format("  {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", Us(m.median), Us(m.p95), Us(m.p99),
                       Us(m.mean), Us(m.min), Us(m.max));
  } else {
    out << "  (no complete iteration: every iteration lacks some rank)\n";
  }
  out << fmt::format("max over ranks of per-rank P95: {} us (rank {}); a different statistic from the P95 of "
                     "per-iteration maxima above\n",
                     Us(r.max_of_per_rank_p95), r.max_of_per_rank_p95_rank);
  if (r.slowest_rank) {
    out << fmt::format("slowest rank most often: rank {} ({} of {} complete iterations)\n", *r.slowest_rank,
                       r.slowest_rank_count, r.complete_iterations);
  }
  if (r.reference_mean) {
    out << fmt::format("reference mean (mean over ranks of each rank's last-{} mean): {} us\n", r.reference_last_n,
                       Us(*r.reference_mean));
  }
  out << "\nper rank (us):\n";
  out << fmt::format("  {:>6} {:>8} {:>12} {:>12} {:>12} {:>12} {:>8}\n", "rank", "samples", "median", "p95", "max",
                     fmt::format("last{}mean", r.reference_last_n), "slowest");
  for (const RankStats& rs : r.per_rank) {
    out << fmt::format("  {:>6} {:>8} {:>12} {:>12} {:>12} {:>12} {:>8}\n", rs.rank, rs.stats.samples,
                       Us(rs.stats.median), Us(rs.stats.p95), Us(rs.stats.max),
                       rs.last_n_mean ? Us(*rs.last_n_mean) : "-", rs.slowest_count);
  }
  out << "\npercentiles: " << kPercentileDefinition << "\n";
  if (r.problems.empty()) {
    out << "problems: none\n";
    return;
  }
  out << fmt::format("problems ({}):\n", r.problems.size());
  constexpr size_t kShown = 20;
  for (size_t i = 0; i < r.problems.size() && i < kShown; ++i) {
    out << "  - " << r.problems[i].message << "\n";
  }
  if (r.problems.size() > kShown) {
    out << fmt::format("  ... {} more (all of them in --format json)\n", r.problems.size() - kShown);
  }
}

nlohmann::ordered_json LatencyJson(const LatencyTable& t, const LatencyReport& r) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["unit"] = "us";
  j["inputs"] = t.inputs;
  j["value_column"] = t.value_column;
  j["measurement"] = t.measurement.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.measurement);
  j["clock_hz"] = t.clock_hz ? nlohmann::ordered_json(*t.clock_hz) : nlohmann::ordered_json(nullptr);
  j["warmup"] = {{"policy", t.warmup_policy}, {"rows_excluded", t.warmup_rows_excluded}};
  j["ranks"] = r.ranks;
  j["iterations"] = {{"measured", r.iterations},
                     {"complete", r.complete_iterations},
                     {"incomplete_excluded", r.iterations - r.complete_iterations}};
  j["per_iteration_max"] = DistJson(r.per_iteration_max);
  j["max_of_per_rank_p95"] = {
      {"value", r.max_of_per_rank_p95},
      {"rank", r.max_of_per_rank_p95_rank},
      {"note", "max over ranks of each rank's own P95; not the P95 of per-iteration maxima"}};
  j["slowest_rank"] = r.slowest_rank ? nlohmann::ordered_json{{"rank", *r.slowest_rank},
                                                       {"count", r.slowest_rank_count},
                                                       {"of", r.complete_iterations}}
                                     : nlohmann::ordered_json(nullptr);
  j["reference_mean"] = r.reference_mean ? nlohmann::ordered_json{{"value", *r.reference_mean},
                                                          {"last_n", r.reference_last_n},
                                                          {"definition", "mean over ranks of each rank's mean of its "
                                                                         "last N measured samples"}}
                                         : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (const RankStats& rs : r.per_rank) {
    ranks.push_back({{"rank", rs.rank},
                     {"median", rs.stats.median},
                     {"p95", rs.stats.p95},
                     {"p99", rs.stats.p99},
                     {"mean", rs.stats.mean},
                     {"min", rs.stats.min},
                     {"max", rs.stats.max},
                     {"samples", rs.stats.samples},
                     {"slowest_count", rs.slowest_count},
                     {"last_n_mean", rs.last_n_mean ? nlohmann::ordered_json(*rs.last_n_mean) : nlohmann::ordered_json(nullptr)}});
  }
  j["per_rank"] = ranks;
  nlohmann::ordered_json problems = nlohmann::ordered_json::array();
  for (const LatencyProblem& p : r.problems) {
    nlohmann::ordered_json pj{{"kind", ProblemKindName(p.kind)}, {"message", p.message}};
    if (p.rank) pj["rank"] = *p.rank;
    if (p.iteration) pj["iteration"] = *p.iteration;
    problems.push_back(pj);
  }
  j["problems"] = problems;
  j["percentile_definition"] = kPercentileDefinition;
  return j;
}

void WriteLatencyCsv(const LatencyReport& r, std::ostream& out) {
  out << "scope,rank,samples,median_us,p95_us,p99_us,mean_us,min_us,max_us,slowest_count\n";
  auto row = [&](std::string_view scope, std::string rank, const DistributionStats& d, std::string slowest) {
    out << fmt::format("{},{},{},{:.10g},{:.10g},{:.10g},{:.10g},{:.10g},{:.10g},{}\n", scope, rank, d.samples, d.median, d.p95, d.p99, d.mean, d.min,
                       d.max, slowest);
  };
  row("per_iteration_max", "", r.per_iteration_max, "");
  for (const RankStats& rs : r.per_rank) row("rank", std::to_string(rs.rank), rs.stats, std::to_string(rs.slowest_count));
  // The two other headline numbers, each in the column that names it; empty cells elsewhere.
  if (!r.per_rank.empty()) {
    size_t samples = 0;
    for (const RankStats& rs : r.per_rank) {
      if (rs.rank == r.max_of_per_rank_p95_rank) samples = rs.stats.samples;
    }
    out << fmt::format("max_of_per_rank_p95,{},{},,{:.10g},,,,,\n", r.max_of_per_rank_p95_rank, samples,
                       r.max_of_per_rank_p95);
  }
  if (r.reference_mean) {
    out << fmt::format("reference_mean,,{},,,,{:.10g},,,\n", r.per_rank.size(), *r.reference_mean);
  }
  // Second section after a blank line: the problems, always with its header (none: header only).
  out << "\nproblem,rank,iteration,message\n";
  for (const LatencyProblem& p : r.problems) {
    out << fmt::format("{},{},{},{}\n", ProblemKindName(p.kind), p.rank ? std::to_string(*p.rank) : "",
                       p.iteration ? std::to_string(*p.iteration) : "", CsvCell(p.message));
  }
}

void WritePerIterationCsv(const LatencyTable& t, const LatencyReport& r, std::ostream& out) {
  std::map<std::pair<int64_t, int64_t>, double> value;
  for (const LatencySample& s : t.samples) value[{s.iteration, s.rank}] = s.us;
  out << "iteration,max_us,slowest_rank,complete";
  for (int64_t rank : r.ranks) out << ",rank" << rank << "_us";
  out << "\n";
  for (const IterationMax& m : r.per_iteration) {
    if (m.ranks == 0) {  // every value NA: no max, no slowest rank
      out << fmt::format("{},,,0", m.iteration);
    } else {
      out << fmt::format("{},{:.10g},{},{}", m.iteration, m.max_us, m.slowest_rank, m.complete ? 1 : 0);
    }
    for (int64_t rank : r.ranks) {
      auto it = value.find({m.iteration, rank});
      out << ",";
      if (it != value.end()) out << fmt::format("{:.10g}", it->second);
    }
    out << "\n";
  }
}

}  // namespace optrace::evidence
