#include "analyze/report/segment_manifest.h"
#include "analyze/report/report_writer.h"
#include "core/json_text.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <system_error>

#include "analyze/report/html_report.h"
#include "analyze/report/markdown_report.h"
#include "analyze/report/report_view.h"
#include "analyze/report/summary_json.h"
#include "analyze/report/summary_tables.h"
#include "analyze/report/xlsx_writer.h"
#include "core/file_io.h"

namespace optrace::analyze::report {
namespace {

using Clock = std::chrono::steady_clock;
using OrderedJson = nlohmann::ordered_json;

inline constexpr int kManifestSchemaVersion = 1;

const std::map<std::string, std::string>& TableDescriptions() {
  static const std::map<std::string, std::string> kWhat = {
      {"operator_summary", "one row per operator name, type and rank: count, total/mean/p50/p90/max us, pipeline sums, bound family, source rows"},
      {"operator_class_summary", "operators merged across ranks, with per-rank min/max/p50 and skew"},
      {"hccl_op_summary", "communication ops per HCCL kind and rank"},
      {"hccl_class_summary", "communication ops per HCCL kind across ranks, with rank skew"},
      {"step_summary", "one row per step and rank: wall, busy, bubble, comm, gaps, class, anomaly tags, source rows"},
      {"step_anatomy", "head / main / tail / bubble split of every step"},
      {"rank_summary", "one row per rank: totals, step wall quantiles, bubble recurrence, slow-rank votes"},
      {"step_class_summary", "steps grouped by exact (name, shape) sequence"},
      {"layer_class_summary", "layers grouped by exact sequence, with block kinds"},
      {"block_class_summary", "blocks grouped by exact sequence, with bound family"},
      {"cross_rank_step_summary", "steps aligned across ranks: wall per rank and skew"},
      {"layer_summary", "one row per layer (full mode)"},
      {"block_summary", "one row per block (full mode)"},
      {"collective_alignment", "every collective matched across ranks with its outlier test (full mode)"},
      {"communication_rank_summary", "per rank: collective ops' elapse / transit / wait / synchronization / idle ms and ratios (communication.json)"},
      {"communication_transport_summary", "per rank and transport (HCCS, PCIE, RDMA, SIO, SDMA): size, time, bandwidth, small-packet share"},
      {"communication_link_summary", "per src -> dst link (group-local ranks) and transport: size, time, bandwidth (communication_matrix.json)"},
      {"communication_group_summary", "per communication group: process-group name and kind (tp/dp/pp/ep/...) from profiler_metadata.json, global ranks, collective skew and the rank most often last"},
      {"communication_op_summary", "one row per communication op and rank with its time split and transports (full mode)"},
      {"operator_efficiency_summary", "per operator shape instance: shape-derived FLOPs, bytes, arithmetic intensity, achieved TFLOPS / GB/s, share of the peak, roofline bound and time to reclaim at the sustained roofline"},
      {"operator_roofline_summary", "per operator (name, type) over its shapes: the roofline position (intensity, achieved TFLOPS, bound) and time to reclaim"},
      {"operator_not_modelled_summary", "compute op types no cost model covers, with their time and why (never estimated)"},
      {"mfu_summary", "model FLOPs utilisation per rank and per step class (theoretical peak as the denominator)"},
      {"hardware_theoretical_peaks", "the hardware peaks used, each with its citation, where they came from and what that proves"},
      {"model_inferred_config", "model dimensions inferred from the profile alone, each with its evidence (and --model-config next to it)"},
      {"model_feature_summary", "structural features seen in the profile (MoE, MLA, flash attention, linear attention, RoPE, ...)"},
      {"model_layer_type_summary", "the layer classes of segmentation: members, block kinds, heaviest operators"},
      {"model_candidate_summary", "models of model_catalog.json whose configuration agrees with the fingerprint, best first: score, fields compared, agreeing and differing (narrows the range; not a finding)"},
      {"host_launch_summary", "per rank and step: launches, launch delay p50 / p90 / max (CANN API call -> device start), launch-bound idle (the device waited on the host), task-queue depth (trace_view.json flows)"},
      {"expert_load_summary", "per expert-parallel group and rank: grouped-matmul calls, routed tokens (or time) per step, steps as the busiest rank"},
      {"pipeline_stage_summary", "per pipeline stage: compute / communication / idle ms per step and the steps it bounds"},
      {"memory_peak_summary", "per rank and allocator component: peak reserved / allocated MB, the step at the peak, its memory_record.csv row"},
      {"kernel_calls", "--kernel: every call of the kernel per rank: duration, device idle before its launch, time since its previous call, source row"},
      {"kernel_iterations", "--kernel: the k-th call of every rank: max, min, skew and the slowest rank"},
      {"kernel_latency", "--kernel: the calls in optrace latency's input format (rank, iteration, elapsed_us, ...): optrace latency kernel_latency.csv"},
  };
  return kWhat;
}

// Writes through `fill` atomically (core's WriteStreamAtomic); returns the byte count.
Result<uint64_t> WriteArtifact(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill) {
  OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic(path, [&](std::ostream& os) {
    fill(os);
    return Status::Ok();
  }));
  std::error_code ec;
  uint64_t bytes = std::filesystem::file_size(path, ec);
  return ec ? 0 : bytes;
}

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

OrderedJson ManifestJson(const AnalysisResult& r, const ReportOptions& opt, const std::vector<WrittenArtifact>& written,
                         double report_seconds) {
  OrderedJson stages = OrderedJson::array();
  double total = 0;
  for (const StageTiming& t : r.timings) {
    stages.push_back({{"stage", t.stage}, {"status", t.status}, {"seconds", t.seconds}});
    total += t.seconds;
  }
  stages.push_back({{"stage", "report"}, {"status", "ran"}, {"seconds", report_seconds}});
  OrderedJson artifacts = OrderedJson::array();
  for (const WrittenArtifact& a : written) {
    OrderedJson j{{"key", a.key}, {"file", a.file}, {"what", a.what}, {"bytes", a.bytes}, {"seconds", a.seconds}};
    if (a.rows) j["rows"] = *a.rows;
    artifacts.push_back(std::move(j));
  }
  uint64_t events = 0;
  for (const RankTable& rank : r.ranks) events += rank.events.size();
  return OrderedJson{{"schema_version", kManifestSchemaVersion},
                     {"kind", "optrace.analyze_manifest"},
                     {"generator", opt.generator},
                     {"mode", opt.full ? "full" : "fast"},
                     {"roots", r.identity.roots},
                     {"model_schema_version", r.schema_version},
                     {"counts",
                      {{"ranks", r.ranks.size()},
                       {"events", events},
                       {"steps", r.steps.size()},
                       {"layers", r.layers.size()},
                       {"findings", r.findings.size()},
                       {"data_issues", r.issues.size()}}},
                     {"stages", stages},
                     {"total_seconds", total + report_seconds},
                     {"artifacts", artifacts}};
}

}  // namespace

Result<ReportResult> WriteReport(const AnalysisResult& r, const ReportOptions& opt) {
  const Clock::time_point t_start = Clock::now();
  OPTRACE_RETURN_IF_ERROR(EnsureDirectory(opt.out_dir));
  ReportResult out;
  out.kpis = ComputeKpis(r);
  Rules builtin_rules;
  EfficiencyOptions eff_opt = opt.efficiency;
  if (!eff_opt.rules) {
    OPTRACE_ASSIGN_OR_RETURN(builtin_rules, LoadRules(""));
    eff_opt.rules = &builtin_rules;
  }
  // The efficiency model reads only the result: with a second thread it is built while the
  // summary tables are built and written. The page's step inspector (it reads the model's costs)
  // is written into report.html as it is made, a step at a time (RenderHtml), never held whole.
  std::future<void> efficiency_done;
  if (opt.threads > 1)
    efficiency_done = std::async(std::launch::async, [&] { out.efficiency = ComputeEfficiency(r, eff_opt); });
  else
    out.efficiency = ComputeEfficiency(r, eff_opt);
  size_t html_rows = opt.html_table_rows ? opt.html_table_rows : (opt.full ? 20000 : 2000);
  auto emit = [&](const std::string& key, const std::string& file, std::optional<uint64_t> rows,
                  const std::function<void(std::ostream&)>& fill) -> Status {
    Clock::time_point t0 = Clock::now();
    OPTRACE_ASSIGN_OR_RETURN(uint64_t bytes, WriteArtifact(opt.out_dir / file, fill));
    out.artifacts.push_back({key, file, "", bytes, Since(t0), rows});
    return Status::Ok();
  };

  // Each table's CSV is written as soon as the table is built; then only the rows the page
  // shows are kept (fast mode), so tables of one row per step are never all in memory at once
  // (400k steps held 2 GB of cells; issue 29.12). Full mode keeps them for report.xlsx.
  std::vector<Table> tables;
  Status table_status;
  auto take = [&](Table&& t) {
    if (!table_status.ok()) return;
    table_status = emit(t.name + "_csv", t.name + ".csv", t.rows.size(), [&](std::ostream& os) { WriteCsv(t, os); });
    if (!opt.full) TrimToViewRows(t, html_rows);
    tables.push_back(std::move(t));
  };
  BuildSummaryTables(r, opt.full, take);
  if (efficiency_done.valid()) efficiency_done.get();  // rethrows what the model's thread threw
  for (Table& t : EfficiencyTables(r, out.efficiency)) take(std::move(t));
  if (opt.kernel_focus)
    for (Table& t : KernelFocusTables(r, *opt.kernel_focus)) take(std::move(t));
  OPTRACE_RETURN_IF_ERROR(table_status);

  // The artifact map is complete before the documents that list it are written.
  ReportContext ctx;
  ctx.mode = opt.full ? "full" : "fast";
  ctx.generator = opt.generator;
  ctx.efficiency = &out.efficiency;
  ctx.rules = eff_opt.rules;
  ctx.kernel_focus = opt.kernel_focus ? &*opt.kernel_focus : nullptr;
  ctx.stream_inspector = true;
  ctx.artifacts = {{"report_md", "report.md", "the human report (sections of seed 002)"},
                   {"analysis_summary_json", "analysis_summary.json", "compact conclusions for agents and scripts"},
                   {"diagnosis_findings_json", "diagnosis_findings.json", "every finding with its numbers and evidence"},
                   {"report_html", "report.html", "self-contained interactive report (open in a browser, no network)"}};
  for (const Table& t : tables) {
    auto it = TableDescriptions().find(t.name);
    ctx.artifacts.push_back({t.name + "_csv", t.name + ".csv", it == TableDescriptions().end() ? "" : it->second});
  }
  if (opt.full) {
    ctx.artifacts.push_back({"normalized_event_index_csv", "normalized_event_index.csv",
                             "every event with its source file and row (full mode)"});
    ctx.artifacts.push_back({"report_xlsx", "report.xlsx", "one sheet per summary table (full mode)"});
  }
  const bool bubbles = !r.cross_rank.bubbles.empty();
  if (bubbles)
    ctx.artifacts.push_back({"bubble_windows_jsonl", "evidence/bubble_windows.jsonl",
                             "one JSON line per device bubble: window, candidate host-side cause, the rule, host events"});
  ctx.artifacts.push_back({"segment_manifest_json", "segment_manifest.json",
                           "how events were cut into steps per rank, with source rows; events outside every step "
                           "(edges, interior islands) and hard errors"});
  ctx.artifacts.push_back({"manifest_json", "manifest.json", "stage timings, counts and this artifact list"});

  auto what_of = [&](const std::string& key) {
    for (const Artifact& a : ctx.artifacts)
      if (a.key == key) return a.what;
    return std::string();
  };
  OPTRACE_RETURN_IF_ERROR(emit("report_md", "report.md", std::nullopt,
                               [&](std::ostream& os) { WriteMarkdownReport(r, out.kpis, ctx, os); }));
  OPTRACE_RETURN_IF_ERROR(emit("analysis_summary_json", "analysis_summary.json", std::nullopt, [&](std::ostream& os) {
    os << JsonText(BuildAnalysisSummary(r, out.kpis, ctx)) << "\n";
  }));
  OPTRACE_RETURN_IF_ERROR(emit("diagnosis_findings_json", "diagnosis_findings.json", r.findings.size(), [&](std::ostream& os) {
    OrderedJson list = OrderedJson::array();
    for (const Finding& f : r.findings) list.push_back(FindingJson(f));
    OrderedJson doc{{"schema_version", kAnalysisSummarySchemaVersion}, {"kind", "optrace.diagnosis_findings"},
                    {"findings", list}};
    os << JsonText(doc) << "\n";
  }));
  OPTRACE_RETURN_IF_ERROR(emit("segment_manifest_json", "segment_manifest.json", r.steps.size(), [&](std::ostream& os) {
    os << JsonText(SegmentManifestJson(r)) << "\n";
  }));
  OPTRACE_RETURN_IF_ERROR(emit("report_html", "report.html", std::nullopt, [&](std::ostream& os) {
    // Fast mode needs the tables no more after the page (full mode writes report.xlsx from them).
    RenderHtml(opt.full ? BuildReportView(r, out.kpis, tables, ctx, html_rows)
                        : BuildReportView(r, out.kpis, std::move(tables), ctx, html_rows),
               os, [&](const std::function<void(std::string_view)>& text) { WriteInspector(r, ctx, text); });
  }));
  // The manifest lists artifacts in the map's order (the documents first), whatever order they
  // were written in.
  {
    auto rank_of = [&](const std::string& key) {
      for (size_t i = 0; i < ctx.artifacts.size(); ++i)
        if (ctx.artifacts[i].key == key) return i;
      return ctx.artifacts.size();
    };
    std::stable_sort(out.artifacts.begin(), out.artifacts.end(),
                     [&](const WrittenArtifact& a, const WrittenArtifact& b) { return rank_of(a.key) < rank_of(b.key); });
  }
  if (!bubbles) {
    std::error_code ec;  // an earlier run's file would not match this run's manifest
    std::filesystem::remove(opt.out_dir / "evidence" / "bubble_windows.jsonl", ec);
  } else {
    OPTRACE_RETURN_IF_ERROR(EnsureDirectory(opt.out_dir / "evidence"));
    OPTRACE_RETURN_IF_ERROR(emit("bubble_windows_jsonl", "evidence/bubble_windows.jsonl", r.cross_rank.bubbles.size(),
                                 [&](std::ostream& os) {
                                   for (const BubbleWindow& b : r.cross_rank.bubbles) {
                                     OrderedJson host = OrderedJson::array();
                                     for (const HostEventNear& e : b.host)
                                       host.push_back({{"process", e.process}, {"name", e.name}, {"cat", e.cat},
                                                       {"start_ns", e.start_ns}, {"dur_ns", e.dur_ns},
                                                       {"overlap_ns", e.overlap_ns}});
                                     OrderedJson j{{"rank", b.rank},       {"step_id", b.step_id},
                                                   {"start_ns", b.start_ns}, {"end_ns", b.end_ns},
                                                   {"gap_us", double(b.end_ns - b.start_ns) / 1e3},
                                                   {"label", b.label},     {"rule", b.rule},
                                                   {"host_events", host}};
                                     os << JsonText(j, -1) << "\n";
                                   }
                                 }));
  }
  if (opt.full) {
    uint64_t events = 0;
    for (const RankTable& rank : r.ranks) events += rank.events.size();
    OPTRACE_RETURN_IF_ERROR(emit("normalized_event_index_csv", "normalized_event_index.csv", events,
                                 [&](std::ostream& os) { WriteEventIndexCsv(r, os); }));
    Clock::time_point t0 = Clock::now();
    std::vector<const Table*> sheets;
    for (const Table& t : tables) sheets.push_back(&t);
    OPTRACE_RETURN_IF_ERROR(WriteXlsx(sheets, opt.out_dir / "report.xlsx"));
    std::error_code ec;
    uint64_t bytes = std::filesystem::file_size(opt.out_dir / "report.xlsx", ec);
    out.artifacts.push_back({"report_xlsx", "report.xlsx", what_of("report_xlsx"), ec ? 0 : bytes, Since(t0), sheets.size()});
  }
  // Artifacts a previous run into the same OUT wrote and this one did not (a fast run after a
  // --mode full run) would be stale and missing from manifest.json: remove them. Only names this
  // writer produces are touched.
  std::vector<std::string> producible = {"normalized_event_index.csv", "report.xlsx"};
  for (const auto& [name, what] : TableDescriptions()) producible.push_back(name + ".csv");
  for (const std::string& file : producible) {
    bool written = std::any_of(out.artifacts.begin(), out.artifacts.end(),
                               [&](const WrittenArtifact& a) { return a.file == file; });
    std::error_code ec;
    if (written || !std::filesystem::exists(opt.out_dir / file, ec)) continue;
    std::filesystem::remove(opt.out_dir / file, ec);
    if (ec)
      return IoError("{}: cannot remove this artifact of an earlier run ({}); remove it by hand so OUT matches "
                     "manifest.json",
                     (opt.out_dir / file).string(), ec.message());
  }
  for (WrittenArtifact& a : out.artifacts)
    if (a.what.empty()) a.what = what_of(a.key);
  double report_seconds = Since(t_start);
  OPTRACE_RETURN_IF_ERROR(emit("manifest_json", "manifest.json", std::nullopt, [&](std::ostream& os) {
    os << JsonText(ManifestJson(r, opt, out.artifacts, report_seconds))
       << "\n";
  }));
  out.seconds = Since(t_start);
  return out;
}

}  // namespace optrace::analyze::report
