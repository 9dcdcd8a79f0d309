// Markdown evidence report (seed 003, "what to deliver").
#include "evidence/report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "core/markdown_escape.h"

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

// Seed 003: the capture is kept with who recorded each rank; every value names its file.
void RankMapTable(const RankMap& m, std::ostream& out) {
  out << fmt::format("\nWho recorded each rank of the capture (from {}; a blank is a value no export file "
                     "states):\n\n",
                     m.path.string());
  out << "| global rank | node (export folder) | device id | hostname | PID | from |\n|---|---|---|---|---|---|\n";
  std::vector<std::string> conflicts;
  for (const RankMapRow& r : m.ranks) {
    std::vector<std::string> from;
    if (!r.hostname_from.empty()) from.push_back("hostname: " + r.hostname_from);
    if (!r.pid_from.empty()) from.push_back("PID: " + r.pid_from);
    out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", r.rank, Cell(r.node.empty() ? kBlank : r.node),
                       r.device_id >= 0 ? std::to_string(r.device_id) : std::string(kBlank),
                       Cell(r.hostname.empty() ? kBlank : r.hostname),
                       r.pid >= 0 ? std::to_string(r.pid) : std::string(kBlank),
                       Cell(from.empty() ? std::string("no export file states them") : fmt::format("{}", fmt::join(from, "; "))));
    if (!r.conflict.empty()) conflicts.push_back(fmt::format("rank {}: {}", r.rank, r.conflict));
  }
  for (const std::string& c : conflicts) out << fmt::format("\nThe files disagree ({}); the first is shown.\n", c);
}

void Environment(const EvidenceInputs& in, std::ostream& out) {
  out << "## 1. Environment and inputs\n\n"
         "Filled from the input files where they say it; `_fill in_` marks what only the person who ran "
         "the experiment knows.\n\n"
         "| item | value | from |\n|---|---|---|\n";
  auto row = [&](std::string_view item, std::string_view value, std::string_view from) {
    out << fmt::format("| {} | {} | {} |\n", item, Cell(value), Cell(from));
  };
  // Rows `optrace env` may fill (--env): each names the sources of the parts it found; a row with
  // nothing found keeps its blank. Without --env the rows are blank as before.
  const EnvironmentInfo* env = in.environment ? &*in.environment : nullptr;
  auto val = [&](std::string_view key) { return env ? env->Value(key) : std::nullopt; };
  auto src = [&](std::string_view key) {
    const EnvItem* i = env ? env->Find(key) : nullptr;
    return i && i->value ? i->from : std::string();
  };
  auto field = [&](std::string_view key) { return env ? env->Field(key) : std::nullopt; };
  auto blank = [](const std::optional<std::string>& v) { return v.value_or(std::string(kBlank)); };
  auto env_row = [&](std::string_view item, bool any, const std::string& value, const std::vector<std::string>& froms,
                     std::string_view blank_from) {
    if (!any) {
      row(item, kBlank,
          env ? fmt::format("{}; not found by `optrace env` ({})", blank_from, env->origin) : std::string(blank_from));
      return;
    }
    std::vector<std::string> named;
    for (const std::string& f : froms) {
      if (!f.empty() && std::find(named.begin(), named.end(), f) == named.end()) named.push_back(f);
    }
    row(item, value, fmt::format("{}", fmt::join(named, "; ")));
  };
  const std::string fields_from = env && !env->fields_from.empty() ? env->fields_from : std::string();
  env_row("NPU model (exact, e.g. 950PR / 950DT)", val("npu.model").has_value(), blank(val("npu.model")),
          {src("npu.model")}, "`npu-smi info`");
  {
    auto driver = val("driver.version");
    std::string driver_from = src("driver.version");
    if (!driver && val("npu_smi.version")) {
      driver = "npu-smi Version " + *val("npu_smi.version");
      driver_from = src("npu_smi.version");
    }
    auto cann = val("cann.version"), firmware = val("firmware.version"), insight = field("mindstudio_insight");
    env_row("CANN, driver, firmware, MindStudio Insight versions", cann || driver || firmware || insight,
            fmt::format("CANN {}, driver {}, firmware {}, MindStudio Insight {}", blank(cann), blank(driver),
                        blank(firmware), blank(insight)),
            {src("cann.version"), driver_from, src("firmware.version"), insight ? fields_from : ""}, "installation");
  }
  {
    auto entry = [&](std::string_view tool) {
      auto path = val(std::string(tool) + ".path"), help = val(std::string(tool) + ".help");
      return fmt::format("{} {}{}", tool, blank(path), help ? " (" + *help + ")" : "");
    };
    bool any = val("msprof.path") || val("msopprof.path");
    env_row("msprof / msopprof entry and version", any, entry("msprof") + "; " + entry("msopprof"),
            {src("msprof.path"), src("msprof.help"), src("msopprof.help")}, "`msprof --help`, `msopprof --help`");
  }
  {
    auto commit = val("source.commit"), dirty = val("source.dirty"), flags = val("compile.flags");
    auto compiler = val("compile.compiler");
    std::string options = flags ? (compiler ? *compiler + ": " : "") + *flags : std::string(kBlank);
    env_row("source commit, kernel compile options (-g, -O2)", commit || flags,
            fmt::format("commit {}{}; options {}", blank(commit), dirty ? " (" + *dirty + ")" : "", options),
            {src("source.commit"), src("source.dirty"), src("compile.flags")}, "`git rev-parse HEAD`, build log");
  }
  auto fields_row = [&](std::string_view item, const std::vector<std::string_view>& keys, std::string value) {
    bool any = false;
    for (std::string_view k : keys) any = any || field(k).has_value();
    env_row(item, any, value, {fields_from}, "launch script");
  };
  fields_row("nodes x cards, transport, AIV count", {"nodes", "cards_per_node", "transport", "aiv_count"},
             fmt::format("{} x {}, {}, AIV {}", blank(field("nodes")), blank(field("cards_per_node")),
                         blank(field("transport")), blank(field("aiv_count"))));
  fields_row("shape T/H/K/E, dtype, routing, seed", {"T", "H", "K", "E", "dtype", "routing", "seed"},
             fmt::format("T={} H={} K={} E={}, {}, {}, seed {}", blank(field("T")), blank(field("H")),
                         blank(field("K")), blank(field("E")), blank(field("dtype")), blank(field("routing")),
                         blank(field("seed"))));
  if (env) {
    auto os = val("os.name"), kernel = val("os.kernel"), cpu = val("cpu.model"), cpus = val("cpu.count");
    env_row("host OS, kernel, CPU", os || kernel || cpu,
            fmt::format("{}, kernel {}, {} x {}", blank(os), blank(kernel), blank(cpus), blank(cpu)),
            {src("os.name"), src("os.kernel"), src("cpu.model")}, "`optrace env`");
    std::vector<std::string> other;
    const auto& known = KnownFieldKeys();
    for (const EnvField& f : env->fields) {
      if (f.key != "mindstudio_insight" && std::find(known.begin(), known.end(), f.key) == known.end()) {
        other.push_back(f.key + "=" + f.value);
      }
    }
    if (!other.empty()) row("other launch fields", fmt::format("{}", fmt::join(other, ", ")), fields_from);
  }
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
  if (!in.rank_map) {
    row("hostname, node, global rank, device id, PID", kBlank,
        "the capture: `optrace analyze ROOT -o DIR`, then `--analysis DIR`");
  }
  if (in.rank_map) RankMapTable(*in.rank_map, out);
  out << "\nInputs:\n\n";
  if (in.latency) out << fmt::format("- latency: {}\n", fmt::join(in.latency->table.inputs, ", "));
  if (in.pipe) out << fmt::format("- kernel metrics (msprof op): {}\n", fmt::join(in.pipe->inputs, ", "));
  if (in.stall) out << fmt::format("- stall samples: {}\n", in.stall->table.input);
  if (env) out << fmt::format("- environment (`optrace env`, probed {}): {}\n", env->probed_at, env->origin);
  out << "\n";
}

// The second scope: the whole API call, and how much of it the main kernel is (medians of the
// per-iteration maxima; each scope's own slowest rank, which need not be the same).
void ApiScope(const LatencyEvidence& api, const LatencyReport& kernel, std::ostream& out) {
  const LatencyTable& t = api.table;
  const LatencyReport& r = api.report;
  out << fmt::format("Full dispatch API latency ({}; warm-up: {}, {} rows excluded): {} ranks, {} measured iterations, "
                     "{} complete.\n\n",
                     t.measurement.empty() ? "measurement not stated in the file" : t.measurement + " timing",
                     t.warmup_policy, t.warmup_rows_excluded, r.ranks.size(), r.iterations, r.complete_iterations);
  const DistributionStats& m = r.per_iteration_max;
  out << "| statistic (us) | main kernel | full API call |\n|---|---|---|\n";
  const DistributionStats& k = kernel.per_iteration_max;
  auto cell = [](const DistributionStats& d, double v) { return d.samples > 0 ? Us(v) : std::string("-"); };
  out << fmt::format("| per-iteration max over ranks: median | {} | {} |\n", cell(k, k.median), cell(m, m.median));
  out << fmt::format("| per-iteration max over ranks: P95 | {} | {} |\n", cell(k, k.p95), cell(m, m.p95));
  out << fmt::format("| per-iteration max over ranks: P99 | {} | {} |\n", cell(k, k.p99), cell(m, m.p99));
  out << fmt::format("| max over ranks of per-rank P95 | {} (rank {}) | {} (rank {}) |\n", Us(kernel.max_of_per_rank_p95),
                     kernel.max_of_per_rank_p95_rank, Us(r.max_of_per_rank_p95), r.max_of_per_rank_p95_rank);
  if (k.samples > 0 && m.samples > 0 && m.median > 0) {
    out << fmt::format("\nThe main kernel is {} of the API call at the median ({} of {} us); the rest is the host "
                       "side of the call (launch, argument set-up, synchronisation), not measured by the kernel's "
                       "timer.",
                       Pct(k.median / m.median), Us(k.median), Us(m.median));
    if (k.median > m.median)
      out << " The kernel's median exceeds the call's: the two files do not time the same iterations or the same "
             "clock; check the scopes.";
    out << "\n\n";
  } else {
    out << "\n";
  }
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
  const LatencyEvidence* api = in.api_latency ? &*in.api_latency : nullptr;
  out << fmt::format("- Scope: main kernel ({}); full dispatch API latency: {}\n",
                     t.measurement.empty() ? "measurement not stated in the file" : t.measurement + " timing",
                     api ? fmt::format("below ({})", fmt::join(api->table.inputs, ", ")) : std::string(kBlank));
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
  if (api) ApiScope(*api, r, out);
  // Bandwidth only with declared bytes (seed 003): the dispatch ends with its slowest rank, so
  // the per-iteration max is the time.
  if (!in.bytes) {
    out << "Bandwidth: " << UndefinedBytesWarning() << "\n\n";
  } else if (r.complete_iterations > 0) {
    const BytesDefinition& b = *in.bytes;
    const double bytes = b.BytesPerRank();
    auto yes = [](bool v) { return v ? "yes" : "no"; };
    out << fmt::format("Bandwidth per rank, bytes = {} per rank per iteration: {} (metadata counted: {}, local "
                       "traffic: {}, protocol overhead: {}; from {}{}):\n\n",
                       b.kind, b.Formula(), yes(b.includes_metadata), yes(b.includes_local_traffic),
                       yes(b.includes_protocol_overhead), b.path, b.note.empty() ? "" : "; " + b.note);
    out << "| time | us | GB/s |\n|---|---|---|\n";
    const DistributionStats& m = r.per_iteration_max;
    out << fmt::format("| per-iteration max: median | {} | {} |\n", Us(m.median), Num(bytes / (m.median * 1e3)));
    out << fmt::format("| per-iteration max: P95 | {} | {} |\n\n", Us(m.p95), Num(bytes / (m.p95 * 1e3)));
    if (b.kind != "physical_link_bytes")
      out << "These are application-level rates, not link utilisation: physical link bytes and network evidence "
             "are needed for that.\n\n";
  } else {
    out << "Bandwidth: no complete iteration, so no time to divide the declared bytes by.\n\n";
  }
}

// Section 4: blanks without a comparison; with one, the factor, the repeats and the statistics
// with their bootstrap CIs. Accuracy and the full-call scope are not in latency files: blanks.
void ControlledComparison(const EvidenceInputs& in, std::ostream& out) {
  out << "## 4. Controlled comparison\n\n";
  if (!in.comparison) {
    out << fmt::format("- The one factor changed: {}\n- Repeats and result (accuracy, main kernel, full call, tail "
                       "latency): {}\n\n",
                       kBlank, kBlank);
    return;
  }
  const LatencyComparison& c = *in.comparison;
  const LatencyReport& b = c.before.report;
  const LatencyReport& a = c.after.report;
  out << fmt::format("- The one factor changed: {}\n", c.factor.empty() ? std::string(kBlank) : c.factor);
  out << fmt::format("- Before: {}; after: {} ({}; {} ranks)\n", fmt::join(c.before.inputs, ", "),
                     fmt::join(c.after.inputs, ", "),
                     c.before.measurement.empty() ? "measurement not stated in the files"
                                                  : c.before.measurement + " timing on both sides",
                     b.ranks.size());
  out << fmt::format("- Repeats: before {} complete iterations ({} measured), after {} ({} measured)\n",
                     b.complete_iterations, b.iterations, a.complete_iterations, a.iterations);
  out << fmt::format("- Accuracy and full dispatch API latency of both runs: {}\n\n", kBlank);
  out << "| statistic (us) | before [95% CI] | after [95% CI] | change [95% CI] | relative | moved |\n"
         "|---|---|---|---|---|---|\n";
  for (const StatisticComparison& s : c.rows) {
    out << fmt::format("| {} {} | {} [{}, {}] | {} [{}, {}] | {:+.3f} [{:+.3f}, {:+.3f}] | {} | {} |\n",
                       ComparisonScopeName(s), s.statistic == "p95" ? "P95" : "median", Us(s.before), Us(s.before_ci.low),
                       Us(s.before_ci.high), Us(s.after), Us(s.after_ci.low), Us(s.after_ci.high), s.change,
                       s.change_ci.low, s.change_ci.high,
                       s.relative ? fmt::format("{:+.1f}%", *s.relative * 100) : std::string("-"),
                       s.moved ? "yes" : "no");
  }
  out << fmt::format("\nCIs: {:g}% percentile bootstrap over iterations, {} resamples per side, seed {}; moved = the "
                     "change's CI excludes 0. Per-iteration max over complete iterations only.\n",
                     c.confidence * 100, c.resamples, c.seed);
  // The after run is normally the --latency baseline, whose problems section 5 lists.
  auto problems = [&](std::string_view side, const LatencyReport& r) {
    if (r.problems.empty()) {
      out << fmt::format("\n{} run latency data: every rank has every iteration.\n", side);
      return;
    }
    out << fmt::format("\n{} run latency data problems:\n\n", side);
    constexpr size_t kShown = 10;
    for (size_t i = 0; i < r.problems.size() && i < kShown; ++i) {
      out << fmt::format("- {}: {}\n", ProblemKindName(r.problems[i].kind), r.problems[i].message);
    }
    if (r.problems.size() > kShown) out << fmt::format("- ... {} more\n", r.problems.size() - kShown);
  };
  problems("Before", b);
  if (!in.latency) problems("After", a);
  out << "\n";
}

void Evidence(const EvidenceInputs& in, std::ostream& out) {
  out << "## 3. Evidence\n\n### 3.1 Kernel metrics per role (msprof op)\n\n";
  if (!in.pipe) {
    out << "No msprof op metrics given (`--pipe OPPROF_dir`).\n\n";
  } else {
    const PipeSummary& s = in.pipe.value();
    if (s.replay.exports > 1)
      out << fmt::format("Replay check: {} exports (one msprof op run each) describe the same launch ({} alike in every "
                         "OpBasicInfo.csv), so their metrics are read as one run.{}\n\n",
                         s.replay.exports, fmt::join(s.replay.agreeing, ", "),
                         s.replay.notes.empty() ? "" : " " + fmt::format("{}", fmt::join(s.replay.notes, "; ")) + ".");
    else
      out << "Replay check: one export; metric groups collected by further msprof op runs are checked against its "
             "OpBasicInfo.csv when given together (section 6 has the command).\n\n";
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
  out << "### 3.3 Where each piece of evidence comes from\n\n";
  if (!in.kernel_calls) {
    out << fmt::format("- System timeline (kernel, rank, task): {}\n", kBlank);
  } else {
    const KernelCalls& k = *in.kernel_calls;
    std::string names, sources;
    for (const std::string& n : k.names) names += (names.empty() ? "" : ", ") + n;
    if (!k.sources.empty())
      sources = k.sources.size() == 1 ? Cell(*k.sources.begin())
                                      : fmt::format("{} and {} more export file(s)", Cell(*k.sources.begin()),
                                                    k.sources.size() - 1);
    out << fmt::format("- System timeline (kernel, rank, task): {} call(s) of {} on {} rank(s), the profiler's own task "
                       "rows ({}; from {}):\n\n",
                       k.calls, Cell(names), k.ranks.size(), k.path.string(), sources.empty() ? "-" : sources);
    out << "| rank | calls | duration p50 (us) | duration max (us) | launch gap p50 (us) |\n|---|---|---|---|---|\n";
    for (const KernelCallsRank& r : k.ranks)
      out << fmt::format("| {} | {} | {:.3f} | {:.3f} | {} |\n", r.rank, r.calls, r.p50_us, r.max_us,
                         r.launch_gap_p50_us < 0 ? std::string("-") : fmt::format("{:.3f}", r.launch_gap_p50_us));
    out << "\n";
  }
  if (in.join) {
    const JoinEvidence& j = *in.join;
    std::set<int> ranks;
    uint64_t outside = 0;
    for (const JoinedLaunch& l : j.launches) {
      ranks.insert(l.rank);
      outside += l.outside;
    }
    out << fmt::format("- Kernel phases on the model's timeline: {} launch(es) of {} on {} rank(s), each core's phases "
                       "placed inside the kernel's own task slice of the capture ({}; open {} in ui.perfetto.dev). "
                       "Lead: first phase after the slice begins; tail: slice end after the last phase{}:\n\n",
                       j.launches.size(), Cell(j.kernel), ranks.size(), j.path.string(),
                       j.trace.empty() ? std::string("the joined trace") : Cell(j.trace),
                       outside ? fmt::format("; {} phase(s) outside their slice: the clocks do not line up there",
                                             outside)
                               : "");
    out << "| rank | launch | slice (us) | lead (us) | tail (us) | phases | outside |\n|---|---|---|---|---|---|---|\n";
    for (const JoinedLaunch& l : j.launches)
      out << fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {} | {} |\n", l.rank, l.launch, l.slice_dur_ns / 1e3,
                         l.lead_ns / 1e3, l.tail_ns / 1e3, l.phases, l.outside);
    out << "\n";
  }
  out << fmt::format("- Real board vs simulation: {}\n\n", kBlank);
  ControlledComparison(in, out);
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
    for (const std::string& p : s.coverage.problems) out << fmt::format("- Export coverage: {}\n", p);
    if (!s.coverage.checked) out << fmt::format("- Export coverage not checked: {}\n", s.coverage.why_not);
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

// Section 6: seed 003's collection commands, filled with what the report knows (the kernel's name,
// the metric groups it lacks), for the evidence still missing. Every metric group is its own
// msprof op run with the same command otherwise: that is what the replay check compares.
void CollectionCommands(const EvidenceInputs& in, std::ostream& out) {
  out << "\n## 6. Commands to collect what this report lacks\n\n";
  std::string kernel;
  if (in.join) kernel = in.join->kernel;
  else if (in.kernel_calls && in.kernel_calls->names.size() == 1) kernel = *in.kernel_calls->names.begin();
  else if (in.pipe && in.pipe->op) kernel = in.pipe->op->Get("Op Name").value_or("");
  const bool named = !kernel.empty();
  if (!named) kernel = "<the kernel's full name from the system timeline>";
  out << fmt::format("Templates for the launch script of the baseline (`run_probe.sh`: the same short test, shape and "
                     "environment on every node; keep WORLD_SIZE / RANK of the parent). Check every option against "
                     "this machine's `msprof --help` and `msprof op --help` (`optrace env` records both); `msopprof` "
                     "is the newer entry of `msprof op`. Kernel: {}.\n\n",
                     named ? Cell(kernel) : "not known to this report (pass --kernel-calls, --join or --pipe)");
  std::vector<std::string> missing;
  if (in.pipe) {
    for (const auto& [name, file] : in.pipe->tables)
      if (file.empty()) missing.push_back(name);
  } else {
    for (std::string_view t : KnownMetricTables()) missing.emplace_back(t);
  }
  out << "```\n";
  if (!in.kernel_calls && !in.join)
    out << "# System timeline, one per node (section 3.3): the kernel's name, stream, task and call order\n"
           "msprof --output=\"${prof_root}/node_${RANK}\" --application=\"bash ./run_probe.sh\"\n";
  for (const std::string& m : missing)
    out << fmt::format("# {} (section 3.1): one metric group per run, every run the same command\n"
                       "msprof op --kernel-name={} --launch-count=1 --warm-up=0 --aic-metrics={} \\\n"
                       "    --output=\"${{opprof_root}}/{}/node_${{RANK}}\" bash ./run_probe.sh\n",
                       m, named ? kernel : "KERNEL", m, m);
  if (!in.kernel_calls && !in.join && missing.empty()) out << "# nothing: every table of section 3.1 is here\n";
  out << "```\n\n";
  out << "Then give every OPPROF_* directory of one run to `--pipe` together: their OpBasicInfo.csv must agree on Op "
         "Name, Op Type, Block Dim, Mix Block Dim and Device Id (the replay check), or the report refuses to combine "
         "them. Do not add `--kill=on` to a communicating kernel's probe; `--launch-count=1` limits what is collected, "
         "not how often the kernel runs; keep every communication participant running (never one rank alone).\n";
}

}  // namespace

const std::vector<std::string_view>& ReportKeyMetrics() {
  static const std::vector<std::string_view> kKeys = {
      "aiv_time(us)",     "aiv_icache_miss_rate", "aiv_vec_ratio",       "aiv_scalar_ratio",
      "aiv_mte2_ratio",   "aiv_mte3_ratio",       "aiv_vec_wait_ratio",  "aic_time(us)",
      "aic_icache_miss_rate", "aic_cube_ratio",   "aic_scalar_ratio",    "aic_mte2_ratio"};
  return kKeys;
}

static void WriteEvidenceReportUnescaped(const EvidenceInputs& in, std::ostream& out) {
  out << "# Dispatch kernel evidence report\n\n"
         "Generated by `optrace report` (seed 003 method). Statistics are computed from the inputs listed "
         "below; blanks are for the person who ran the experiment.\n\n";
  Environment(in, out);
  Baseline(in, out);
  Evidence(in, out);
  OpenBoundaries(in, out);
  CollectionCommands(in, out);
}

void WriteEvidenceReport(const EvidenceInputs& in, std::ostream& out) {
  // Names and values from the user's files: no inline HTML reaches a Markdown viewer.
  std::ostringstream md;
  WriteEvidenceReportUnescaped(in, md);
  out << EscapeMarkdownHtml(md.str());
}

}  // namespace optrace::evidence
