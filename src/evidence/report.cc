// Markdown evidence report (seed 003, "what to deliver").
#include "evidence/report.h"

#include <fmt/format.h>

#include <algorithm>

namespace optrace::evidence {
namespace {

constexpr std::string_view kBlank = "_fill in_";

std::string Us(double v) { return fmt::format("{:.3f}", v); }
std::string Num(double v) { return fmt::format("{:.6g}", v); }
std::string Pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v * 100) : "-"; }

// Markdown table cells must not contain '|'.
std::string Cell(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '|', '/');
  return out;
}

void Environment(const EvidenceInputs& in, std::ostream& out) {
  out << "## 1. Environment and inputs\n\n"
         "Filled from the input files where they say it; `_fill in_` marks what only the person who ran "
         "the experiment knows.\n\n"
         "| item | value | from |\n|---|---|---|\n";
  auto row = [&](std::string_view item, std::string_view value, std::string_view from) {
    out << fmt::format("| {} | {} | {} |\n", item, Cell(value), Cell(from));
  };
  row("NPU model (exact, e.g. 950PR / 950DT)", kBlank, "`npu-smi info`");
  row("CANN, driver, firmware, MindStudio Insight versions", kBlank, "installation");
  row("msprof / msopprof entry and version", kBlank, "`msprof --help`, `msopprof --help`");
  row("source commit, kernel compile options (-g, -O2)", kBlank, "`git rev-parse HEAD`, build log");
  row("nodes x cards, transport, AIV count", kBlank, "launch script");
  row("shape T/H/K/E, dtype, routing, seed", kBlank, "launch script");
  if (in.latency) {
    const LatencyTable& t = in.latency->table;
    const LatencyReport& r = in.latency->report;
    std::string from = fmt::format("{}", fmt::join(t.inputs, ", "));
    row("ranks in the latency data", std::to_string(r.ranks.size()), from);
    row("latency measurement", t.measurement.empty() ? std::string(kBlank) : t.measurement,
        t.measurement.empty() ? "not in the file (no measurement column)" : "measurement column");
    row("latency clock", t.clock_hz ? fmt::format("{} Hz", *t.clock_hz) : std::string(kBlank),
        t.clock_hz ? "clock_hz column or --clock-hz" : "not in the file");
  }
  if (in.pipe && in.pipe->op) {
    const OpBasicInfo& op = *in.pipe->op;
    auto get = [&](std::string_view k) { return op.Get(k).value_or(std::string(kBlank)); };
    row("kernel name", get("Op Name"), op.path);
    row("op type, block dim, mix block dim", fmt::format("{}, {}, {}", get("Op Type"), get("Block Dim"),
                                                          get("Mix Block Dim")), op.path);
    row("device id", get("Device Id"), op.path);
    row("frequency (current / rated, MHz)", fmt::format("{} / {}", get("Current Freq"), get("Rated Freq")), op.path);
    row("kernel task duration (us, one profiled launch)", get("Task Duration(us)"), op.path);
  } else {
    row("kernel name", kBlank, in.pipe ? "no OpBasicInfo.csv in the pipe input" : "no --pipe input");
  }
  row("roles file", in.roles_path.empty() ? "none (one role per core kind)" : in.roles_path, "--roles");
  out << "\nInputs:\n\n";
  if (in.latency) out << fmt::format("- latency: {}\n", fmt::join(in.latency->table.inputs, ", "));
  if (in.pipe) out << fmt::format("- kernel metrics (msprof op): {}\n", fmt::join(in.pipe->inputs, ", "));
  if (in.stall) out << fmt::format("- stall samples: {}\n", in.stall->table.input);
  out << "\n";
}

void Baseline(const EvidenceInputs& in, std::ostream& out) {
  out << "## 2. Baseline\n\n";
  if (!in.latency) {
    out << "No latency samples given (`--latency dispatch_latency.csv`). A baseline needs per-iteration, "
           "per-rank samples of the main kernel.\n\n";
    return;
  }
  const LatencyTable& t = in.latency->table;
  const LatencyReport& r = in.latency->report;
  out << fmt::format("- Scope: main kernel ({}); full dispatch API latency: {}\n",
                     t.measurement.empty() ? "measurement not stated in the file" : t.measurement + " timing", kBlank);
  out << fmt::format("- Warm-up: {} ({} rows excluded)\n", t.warmup_policy, t.warmup_rows_excluded);
  out << fmt::format("- Samples: {} ranks, {} measured iterations, {} complete (every rank present)\n",
                     r.ranks.size(), r.iterations, r.complete_iterations);
  out << fmt::format("- Synchronisation between iterations: {}; profiler overhead: {}\n\n", kBlank, kBlank);
  const DistributionStats& m = r.per_iteration_max;
  out << "| statistic (us) | value |\n|---|---|\n";
  if (m.samples > 0) {
    out << fmt::format("| per-iteration max over ranks: median | {} |\n", Us(m.median));
    out << fmt::format("| per-iteration max over ranks: P95 | {} |\n", Us(m.p95));
    out << fmt::format("| per-iteration max over ranks: P99 | {} |\n", Us(m.p99));
    out << fmt::format("| per-iteration max over ranks: mean / min / max | {} / {} / {} |\n", Us(m.mean), Us(m.min),
                       Us(m.max));
  } else {
    out << "| per-iteration max over ranks | no complete iteration |\n";
  }
  out << fmt::format("| max over ranks of per-rank P95 (a different statistic) | {} (rank {}) |\n",
                     Us(r.max_of_per_rank_p95), r.max_of_per_rank_p95_rank);
  if (r.reference_mean) {
    out << fmt::format("| reference mean (mean over ranks of each rank's last-{} mean) | {} |\n", r.reference_last_n,
                       Us(*r.reference_mean));
  }
  if (r.slowest_rank) {
    out << fmt::format("| slowest rank most often | rank {} ({} of {} iterations) |\n", *r.slowest_rank,
                       r.slowest_rank_count, r.complete_iterations);
  }
  out << "\nPer rank (us):\n\n| rank | samples | median | P95 | max | slowest in |\n|---|---|---|---|---|---|\n";
  for (const RankStats& rs : r.per_rank) {
    out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", rs.rank, rs.stats.samples, Us(rs.stats.median),
                       Us(rs.stats.p95), Us(rs.stats.max), rs.slowest_count);
  }
  out << "\nPercentiles: " << kPercentileDefinition << ".\n\n";
}

void Evidence(const EvidenceInputs& in, std::ostream& out) {
  out << "## 3. Evidence\n\n### 3.1 Kernel metrics per role (msprof op)\n\n";
  if (!in.pipe) {
    out << "No msprof op metrics given (`--pipe OPPROF_dir`).\n\n";
  } else {
    const PipeSummary& s = in.pipe.value();
    out << "Mean over the role's cores (max; spread = max - min). Every metric: `optrace pipe --format json`.\n\n";
    out << "| metric |";
    for (const RoleInfo& r : s.roles) out << " " << Cell(r.name) << " |";
    out << "\n|---|";
    for (size_t i = 0; i < s.roles.size(); ++i) out << "---|";
    out << "\n";
    for (std::string_view key : ReportKeyMetrics()) {
      auto it = std::find_if(s.metrics.begin(), s.metrics.end(), [&](const MetricEntry& m) { return m.name == key; });
      if (it == s.metrics.end()) continue;
      out << "| " << Cell(key) << " |";
      for (const RoleInfo& role : s.roles) {
        auto rv = std::find_if(it->per_role.begin(), it->per_role.end(),
                               [&](const RoleValue& v) { return v.role == role.name; });
        if (rv == it->per_role.end()) {
          out << " n/a |";
        } else if (rv->summary) {
          out << fmt::format(" {} (max {}; spread {}) |", Num(rv->summary->mean), Num(rv->summary->max),
                             Num(rv->summary->spread));
        } else {
          out << " " << rv->reason << " |";
        }
      }
      out << "\n";
    }
    out << "\n`aiv_icache_miss_rate` is the instruction-cache miss rate, not the L2 data-cache hit rate; no "
           "threshold makes it a bottleneck by itself. Pipes run in parallel: their times do not add up to the "
           "kernel time.\n\n";
  }
  out << "### 3.2 SIMT stall reasons (PC sampling)\n\n";
  if (!in.stall) {
    out << "No stall samples given (`--stall FILE`).\n\n";
  } else {
    const StallGroup& g = in.stall->report.overall;
    out << fmt::format("{} samples in all, {} active (issued), {} not issued. Two denominators: \"of all\" "
                       "includes active samples, \"of not issued\" excludes them.\n\n",
                       g.all_samples, g.active_samples, g.not_issued_samples);
    out << "| reason | samples | of all samples | of not-issued samples |\n|---|---|---|---|\n";
    for (const ReasonShare& r : g.reasons) {
      out << fmt::format("| {} | {} | {} | {} |\n", r.reason, r.samples, Pct(r.share_of_all),
                         Pct(r.share_of_not_issued));
    }
    const auto& locs = in.stall->report.per_location;
    if (!locs.empty()) {
      out << "\nHottest source lines:\n\n| location | samples | of all samples | top stall (of the line's not "
             "issued) |\n|---|---|---|---|\n";
      for (size_t i = 0; i < locs.size() && i < 5; ++i) {
        const ReasonShare* top = locs[i].TopStall();
        out << fmt::format("| {} | {} | {} | {} |\n", Cell(locs[i].key), locs[i].all_samples,
                           Pct(static_cast<double>(locs[i].all_samples) / static_cast<double>(g.all_samples)),
                           top ? fmt::format("{} {}", top->reason, Pct(top->share_of_not_issued)) : "-");
      }
    }
    out << "\nSamples are not time: they are not multiplied by a cycle count here. PC sampling covers SIMT code "
           "only, not the scalar control path or remote waits.\n\n";
  }
  out << fmt::format("### 3.3 Where each piece of evidence comes from\n\n- System timeline (kernel, rank, task): {}\n"
                     "- Real board vs simulation: {}\n\n",
                     kBlank, kBlank);
  out << fmt::format("## 4. Controlled comparison\n\n- The one factor changed: {}\n- Repeats and result (accuracy, "
                     "main kernel, full call, tail latency): {}\n\n",
                     kBlank, kBlank);
}

void OpenBoundaries(const EvidenceInputs& in, std::ostream& out) {
  out << "## 5. Open boundaries\n\n";
  if (in.latency) {
    const LatencyReport& r = in.latency->report;
    if (r.problems.empty()) out << "- Latency data: every rank has every iteration.\n";
    constexpr size_t kShown = 10;
    for (size_t i = 0; i < r.problems.size() && i < kShown; ++i) {
      out << fmt::format("- Latency data ({}): {}\n", ProblemKindName(r.problems[i].kind), r.problems[i].message);
    }
    if (r.problems.size() > kShown) {
      out << fmt::format("- ... {} more latency problems (`optrace latency --format json`)\n", r.problems.size() - kShown);
    }
  } else {
    out << "- No latency baseline in this report.\n";
  }
  if (in.pipe) {
    const PipeSummary& s = in.pipe.value();
    std::vector<std::string> absent_tables;
    for (const auto& [name, file] : s.tables) {
      if (file.empty()) absent_tables.push_back(name);
    }
    if (!absent_tables.empty()) {
      out << fmt::format("- msprof op tables not provided: {}\n", fmt::join(absent_tables, ", "));
    }
    std::vector<std::string> absent_metrics;
    for (const MetricEntry& m : s.metrics) {
      bool table_absent = std::find(absent_tables.begin(), absent_tables.end(), m.table) != absent_tables.end();
      if (!m.provided && !table_absent) absent_metrics.push_back(fmt::format("{} ({})", m.name, m.table));
    }
    if (!absent_metrics.empty()) {
      out << fmt::format("- Metrics not provided by this export (not zero): {}\n", fmt::join(absent_metrics, ", "));
    }
    for (const RoleInfo& r : s.roles) {
      if (!r.missing.empty()) out << fmt::format("- Role '{}': no rows for {}\n", r.name, r.missing);
    }
    if (!s.unassigned.empty()) out << fmt::format("- Cores no role claims: {}\n", s.unassigned);
  } else {
    out << "- No per-core kernel metrics in this report.\n";
  }
  if (!in.stall) out << "- No SIMT stall samples in this report.\n";
  for (const std::string& w : in.stall ? in.stall->report.warnings : std::vector<std::string>{}) {
    out << "- Stall data: " << w << "\n";
  }
  out << fmt::format("- Communication replay under msprof op verified on every rank: {}\n", kBlank);
  out << fmt::format("- Network evidence (congestion, retransmission, link utilisation): {}\n", kBlank);
  out << fmt::format("- Tool modes not supported here (application replay, simulator on multi-card): {}\n", kBlank);
}

}  // namespace

const std::vector<std::string_view>& ReportKeyMetrics() {
  static const std::vector<std::string_view> kKeys = {
      "aiv_time(us)",     "aiv_icache_miss_rate", "aiv_vec_ratio",       "aiv_scalar_ratio",
      "aiv_mte2_ratio",   "aiv_mte3_ratio",       "aiv_vec_wait_ratio",  "aic_time(us)",
      "aic_icache_miss_rate", "aic_cube_ratio",   "aic_scalar_ratio",    "aic_mte2_ratio"};
  return kKeys;
}

void WriteEvidenceReport(const EvidenceInputs& in, std::ostream& out) {
  out << "# Dispatch kernel evidence report\n\n"
         "Generated by `optrace report` (seed 003 method). Statistics are computed from the inputs listed "
         "below; blanks are for the person who ran the experiment.\n\n";
  Environment(in, out);
  Baseline(in, out);
  Evidence(in, out);
  OpenBoundaries(in, out);
}

}  // namespace optrace::evidence
