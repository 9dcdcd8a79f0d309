#include "analyze/report/report_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <climits>
#include <cmath>
#include <filesystem>

#include "analyze/efficiency/efficiency.h"
#include "analyze/report/report_plots.h"
#include "analyze/report/step_inspector.h"
#include "analyze/report/step_selection.h"
#include "analyze/report/summary_tables.h"

namespace optrace::analyze::report {
namespace {

using Json = nlohmann::json;

// Which tables the page shows, in order, and which of their columns (empty: all).
struct TableSpec {
  const char* id;
  const char* title;
  std::vector<std::string> columns;
  const char* sort_by;  // rows ordered by this numeric column, descending ("" keeps CSV order)
};

const std::vector<TableSpec>& Specs() {
  static const std::vector<TableSpec> kSpecs = {
      {"operator_summary", "Operators (per name and rank)",
       {"name", "rank", "type", "op_type", "count", "total_us", "mean_us", "p50_us", "p90_us", "max_us", "bound_stage",
        "bound_family", "dominant_core", "first_row", "last_row"},
       "total_us"},
      {"operator_class_summary", "Operators (rank-merged)",
       {"name", "type", "op_type", "rank_count", "call_count", "duration_sum_us", "bound_family", "dominant_core",
        "rank_duration_min_us", "rank_duration_max_us", "rank_duration_skew_ratio"},
       "duration_sum_us"},
      {"hccl_class_summary", "HCCL collectives (rank-merged)", {}, "total_us"},
      {"hccl_op_summary", "HCCL collectives per rank", {}, ""},
      {"step_summary", "Steps",
       {"rank", "step_id", "step_class_id", "complete", "event_count", "wall_ms", "busy_ms", "bubble_ms", "comm_ms",
        "comm_share", "layer_count", "prelaunch_gap_ms", "tail_gap_ms", "anomaly_tags", "first_row", "last_row"},
       ""},
      {"rank_summary", "Ranks", {}, ""},
      {"cross_rank_step_summary", "Cross-rank step alignment", {}, ""},
      {"communication_rank_summary", "Communication per rank (transit / wait split)", {}, ""},
      {"communication_transport_summary", "Communication per transport", {}, ""},
      {"communication_group_summary", "Communication groups", {}, ""},
      {"communication_link_summary", "Communication links", {}, "transit_time_ms"},
      {"operator_efficiency_summary", "Operator calculation and roofline (per shape)",
       {"name", "type", "family", "dims", "input_dtypes", "calls", "total_us", "flops_per_call", "bytes_per_call",
        "arithmetic_intensity", "achieved_tflops", "achieved_gbps", "peak_share", "bound", "reclaim_us", "note"},
       ""},
      {"mfu_summary", "MFU per rank and step class", {}, ""},
      {"operator_not_modelled_summary", "Operators not modelled", {}, "total_us"},
      {"model_inferred_config", "Model fingerprint (from the profile)", {}, ""},
      {"model_feature_summary", "Model features", {}, ""},
      {"hardware_theoretical_peaks", "Hardware peaks", {}, ""},
      {"host_launch_summary", "Host launch per step", {}, ""},
      {"expert_load_summary", "Expert-parallel load", {}, ""},
      {"pipeline_stage_summary", "Pipeline stages", {}, ""},
      {"memory_peak_summary", "Device memory peaks", {}, ""},
  };
  return kSpecs;
}

// The roofline plot: one point per operator (name, type) with a finite intensity and achieved
// rate (the heaviest 60), and the roofs of the dtypes those points compute at.
// The memory plot: per rank (the first 16 with memory records), the allocator component's
// reserved and allocated MB over time (at most 400 points each, the peak always kept).
Json MemoryJson(const AnalysisResult& r) {
  Json ranks = Json::array();
  for (size_t i = 0; i < r.summaries.memory.size() && i < 16; ++i) {
    const RankMemory& m = r.summaries.memory[i];
    if (m.timeline.empty()) continue;
    Json pts = Json::array();
    for (const MemoryPoint& p : m.timeline)
      pts.push_back({double(p.rel_ns) / 1e6, p.reserved_mb,
                     IsMissing(p.allocated_mb) ? Json(nullptr) : Json(p.allocated_mb)});
    ranks.push_back({{"rank", m.rank}, {"component", m.timeline_component}, {"points", std::move(pts)}});
  }
  return ranks;
}

Json RooflineJson(const AnalysisResult& r, const Efficiency* eff) {
  if (!eff) return nullptr;
  auto finite = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json points = Json::array();
  std::vector<std::string> keys;
  for (const OperatorClassEfficiency& c : eff->classes) {
    if (points.size() >= 60) break;
    if (!(c.intensity > 0) || !(c.achieved_tflops > 0)) continue;
    const std::string& key = c.peak_key;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    points.push_back({{"name", r.Str(c.name)}, {"type", r.Str(c.type)}, {"family", c.family}, {"peak_key", key},
                      {"calls", c.calls}, {"total_us", c.total_us}, {"intensity", c.intensity},
                      {"achieved_tflops", c.achieved_tflops}, {"peak_share", finite(c.peak_share)},
                      {"bound", c.bound}, {"reclaim_us", finite(c.reclaim_us)}});
  }
  Json roofs = Json::array();
  double bandwidth = NAN;
  if (eff->hardware) {
    bandwidth = eff->hardware->hbm_bandwidth_gbps;
    for (const std::string& key : keys) {
      double peak = eff->hardware->PeakTflops(key);
      if (!std::isfinite(peak)) continue;
      auto sf = eff->sustained_factors.find(key.rfind("vector:", 0) == 0 ? key : "cube:" + key);
      roofs.push_back({{"key", key}, {"tflops", peak},
                       {"sustained_tflops", peak * (sf == eff->sustained_factors.end() ? 1.0 : sf->second)}});
    }
  }
  return Json{{"hardware", eff->hardware ? Json(eff->hardware->name) : Json(nullptr)},
              {"hardware_note", eff->hardware ? "" : eff->hardware_note},
              {"bandwidth_gbps", finite(bandwidth)},
              {"roofs", std::move(roofs)},
              {"points", std::move(points)}};
}

Json CellJson(const Cell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return *i;
  if (const auto* d = std::get_if<double>(&c)) {
    if (!std::isfinite(*d)) return nullptr;
    return std::fabs(*d) < 1e9 ? std::round(*d * 1e6) / 1e6 : *d;
  }
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  return nullptr;
}

double NumberOf(const Cell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&c)) return *d;
  return -INFINITY;
}

// Row indices in the page's order: by the spec's sort column, descending, else as built.
std::vector<size_t> ViewOrder(const Table& t, const TableSpec& spec) {
  std::vector<size_t> order(t.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (auto key = t.Column(spec.sort_by); key && *spec.sort_by) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return NumberOf(t.rows[a][*key]) > NumberOf(t.rows[b][*key]); });
  }
  return order;
}

const TableSpec* SpecOf(const std::string& id) {
  for (const TableSpec& spec : Specs())
    if (id == spec.id) return &spec;
  return nullptr;
}

Json TableJson(const Table& t, const TableSpec& spec, size_t max_rows) {
  std::vector<size_t> cols;
  if (spec.columns.empty()) {
    for (size_t i = 0; i < t.columns.size(); ++i) cols.push_back(i);
  } else {
    for (const auto& name : spec.columns)
      if (auto i = t.Column(name)) cols.push_back(*i);
  }
  std::vector<size_t> order = ViewOrder(t, spec);
  Json columns = Json::array(), rows = Json::array();
  for (size_t c : cols) columns.push_back(t.columns[c]);
  for (size_t i = 0; i < order.size() && i < max_rows; ++i) {
    Json row = Json::array();
    for (size_t c : cols) row.push_back(c < t.rows[order[i]].size() ? CellJson(t.rows[order[i]][c]) : Json());
    rows.push_back(std::move(row));
  }
  return Json{{"id", t.name},     {"title", spec.title},         {"csv", t.name + ".csv"},
              {"columns", std::move(columns)}, {"rows", std::move(rows)}, {"total_rows", t.rows.size() + t.dropped_rows}};
}

Json KpiList(const Kpis& k) {
  Json list = Json::array();
  auto add = [&](const char* key, const char* label, Json value, const char* unit) {
    list.push_back({{"key", key}, {"label", label}, {"value", value}, {"unit", unit}});
  };
  auto r3 = [](double v) { return std::round(v * 1000.0) / 1000.0; };
  add("rank_count", "ranks", k.rank_count, "");
  add("event_count", "device events", k.event_count, "");
  add("steps", "steps (complete)", fmt::format("{} ({})", k.step_count, k.complete_step_count), "");
  add("layer_count", "layers", k.layer_count, "");
  add("step_wall_p50", "step wall p50", r3(k.step_wall_ms.p50), "ms");
  add("step_wall_p90", "step wall p90", r3(k.step_wall_ms.p90), "ms");
  add("comm_share", "communication share of wall", r3(k.comm_share * 100), "%");
  add("bubble_ratio", "bubble share of wall", r3(k.bubble_ratio * 100), "%");
  add("hccl_top_kind", "top HCCL kind", k.hccl_top_kind.empty() ? "-" : k.hccl_top_kind, "");
  add("max_step_skew", "max step skew", r3(k.max_step_skew_ratio * 100), "%");
  add("max_collective_skew", "max collective skew", r3(k.max_collective_skew_ratio * 100), "%");
  add("findings", "findings (high/medium/low/info)",
      fmt::format("{}/{}/{}/{}", k.finding_counts.at("high"), k.finding_counts.at("medium"), k.finding_counts.at("low"),
                  k.finding_counts.at("info")),
      "");
  return list;
}

constexpr size_t kMaxTimelineSteps = 100000;
constexpr size_t kMinTimelineStepsPerRank = 64;

}  // namespace

void TrimToViewRows(Table& t, size_t max_rows) {
  const TableSpec* spec = SpecOf(t.name);
  const size_t keep = spec ? std::min(max_rows, t.rows.size()) : 0;
  if (keep == t.rows.size()) return;
  std::vector<std::vector<Cell>> kept;
  kept.reserve(keep);
  if (spec) {
    std::vector<size_t> order = ViewOrder(t, *spec);
    for (size_t i = 0; i < keep; ++i) kept.push_back(std::move(t.rows[order[i]]));
  }
  t.dropped_rows += t.rows.size() - kept.size();
  t.rows = std::move(kept);
}

namespace {

Json BuildView(const AnalysisResult& r, const Kpis& kpis, const std::vector<Table>& tables, std::vector<Table>* release,
               const ReportContext& ctx, size_t max_table_rows) {
  // The timeline origin: the earliest step start over all ranks, in absolute ns.
  int64_t origin = INT64_MAX;
  for (const Step& s : r.steps)
    if (const RankTable* rank = r.FindRank(s.rank)) origin = std::min(origin, rank->AbsNs(s.start_ns));
  if (origin == INT64_MAX) origin = 0;
  auto to_us = [&](int64_t abs_ns) { return static_cast<double>(abs_ns - origin) / 1e3; };

  Json findings = Json::array();
  for (const Finding& f : r.findings) {
    Json numbers = Json::object();
    for (const auto& [name, v] : f.numbers) numbers[name] = std::isfinite(v) ? Json(v) : Json();
    Json evidence = Json::array();
    for (const Evidence& e : f.evidence) {
      if (e.window_start_ns >= 0 && e.rank >= 0) {
        evidence.push_back({{"kind", "window"}, {"rank", e.rank}, {"start_us", to_us(e.window_start_ns)},
                            {"end_us", to_us(e.window_end_ns)}, {"note", e.note}});
      }
      if (!e.file.empty()) {
        Json j{{"kind", "rows"}, {"file", e.file}, {"first_row", e.row_first}, {"last_row", e.row_last}};
        if (e.rank >= 0) j["rank"] = e.rank;
        evidence.push_back(std::move(j));
      }
    }
    findings.push_back({{"id", f.id}, {"severity", SeverityName(f.severity)}, {"type", f.type},
                        {"summary", f.summary}, {"numbers", std::move(numbers)}, {"evidence", std::move(evidence)}});
  }

  // Steps per lane are bounded (the heaviest by wall, in time order; step_summary.csv has them
  // all): 400k one-row steps made a 141 MB page (issue 29.12). The whole timeline holds about
  // kMaxTimelineSteps however many ranks there are.
  std::map<int, std::vector<const Step*>> steps_of = internal::StepsByRank(r);
  const size_t lane_cap = std::max<size_t>(
      kMinTimelineStepsPerRank, std::min(max_table_rows, kMaxTimelineSteps / std::max<size_t>(1, r.ranks.size())));
  Json lanes = Json::array();
  for (const RankTable& rank : r.ranks) {
    Json steps = Json::array(), gaps = Json::array();
    std::vector<const Step*>& mine = steps_of[rank.rank];
    const size_t total = mine.size();
    if (mine.size() > lane_cap) {
      const std::vector<uint8_t> keep = internal::HeaviestSteps(mine, lane_cap);
      std::vector<const Step*> kept;
      for (size_t i = 0; i < mine.size(); ++i)
        if (keep[i]) kept.push_back(mine[i]);
      mine = std::move(kept);
    }
    for (size_t i = 0; i < mine.size(); ++i) {
      const Step& s = *mine[i];
      double start = to_us(rank.AbsNs(s.start_ns)), end = to_us(rank.AbsNs(s.end_ns));
      Json step{{"step", s.step_id}, {"start_us", start}, {"end_us", end}, {"busy_us", s.anatomy.busy_ns / 1e3},
                {"bubble_us", s.anatomy.bubble_ns / 1e3}, {"events", s.events.size()}, {"complete", s.complete}};
      if (!s.step_class.empty()) step["class_id"] = s.step_class;
      if (s.prelaunch_gap_ns >= 0) step["prelaunch_gap_us"] = s.prelaunch_gap_ns / 1e3;
      if (s.tail_gap_ns >= 0) step["tail_gap_us"] = s.tail_gap_ns / 1e3;
      steps.push_back(std::move(step));
      if (s.prelaunch_gap_ns > 0)
        gaps.push_back({{"kind", "pre-launch gap"}, {"start_us", start - s.prelaunch_gap_ns / 1e3}, {"end_us", start}});
      if (s.tail_gap_ns > 0 && i + 1 == mine.size())
        gaps.push_back({{"kind", "tail gap"}, {"start_us", end}, {"end_us", end + s.tail_gap_ns / 1e3}});
      if (s.anatomy.has_bubble && s.anatomy.max_gap_start_ns >= 0) {
        double g0 = to_us(rank.AbsNs(s.anatomy.max_gap_start_ns));
        gaps.push_back({{"kind", "largest bubble"}, {"start_us", g0}, {"end_us", g0 + s.anatomy.max_gap_ns / 1e3}});
      }
    }
    lanes.push_back({{"rank", rank.rank},
                     {"label", total > mine.size() ? fmt::format("rank {} ({} heaviest of {} steps)", rank.rank,
                                                                 mine.size(), total)
                                                   : fmt::format("rank {}", rank.rank)},
                     {"steps", std::move(steps)},
                     {"steps_total", total},
                     {"gaps", std::move(gaps)}});
  }

  Json table_list = Json::array();
  for (const TableSpec& spec : Specs()) {
    const Table* t = FindTable(tables, spec.id);
    if (!t) continue;
    table_list.push_back(TableJson(*t, spec, max_table_rows));
    if (release) std::vector<std::vector<Cell>>().swap((*release)[static_cast<size_t>(t - tables.data())].rows);
  }

  std::vector<std::string> names;
  for (const auto& root : r.identity.roots) {
    std::filesystem::path p(root);
    names.push_back((p.filename().empty() ? p.parent_path() : p).filename().string());
  }
  std::string title = "optrace analyze";
  for (size_t i = 0; i < names.size() && i < 3; ++i) title += (i ? ", " : ": ") + names[i];
  if (names.size() > 3) title += fmt::format(" (+{} more)", names.size() - 3);

  return Json{{"schema_version", kReportViewSchemaVersion},
              {"title", title},
              {"generator", ctx.generator},
              {"identity", {{"roots", r.identity.roots}, {"rank_count", r.ranks.size()}, {"mode", ctx.mode}}},
              {"kpis", KpiList(kpis)},
              {"findings", std::move(findings)},
              {"rank_breakdown", RankBreakdownJson(r)},
              {"step_breakdown", StepBreakdownJson(r)},
              {"comm_matrix", CommMatrixJson(r)},
              {"timeline", {{"origin_unix_ns", origin}, {"ranks", std::move(lanes)}}},
              {"inspector", ctx.stream_inspector ? Json() : BuildInspector(r, ctx)},
              {"roofline", RooflineJson(r, ctx.efficiency)},
              {"memory", MemoryJson(r)},
              {"tables", std::move(table_list)}};
}

}  // namespace

Json BuildInspector(const AnalysisResult& r, const ReportContext& ctx) {
  return BuildStepInspector(r, ctx.efficiency, ctx.rules ? ctx.rules->thresholds : Thresholds{},
                            ctx.mode == "full" ? kInspectorMaxEvents : kInspectorMaxEventsFast);
}

void WriteInspector(const AnalysisResult& r, const ReportContext& ctx, const std::function<void(std::string_view)>& out) {
  WriteStepInspector(r, ctx.efficiency, ctx.rules ? ctx.rules->thresholds : Thresholds{},
                     ctx.mode == "full" ? kInspectorMaxEvents : kInspectorMaxEventsFast, out);
}

Json BuildReportView(const AnalysisResult& r, const Kpis& kpis, const std::vector<Table>& tables,
                     const ReportContext& ctx, size_t max_table_rows) {
  return BuildView(r, kpis, tables, nullptr, ctx, max_table_rows);
}

Json BuildReportView(const AnalysisResult& r, const Kpis& kpis, std::vector<Table>&& tables, const ReportContext& ctx,
                     size_t max_table_rows) {
  return BuildView(r, kpis, tables, &tables, ctx, max_table_rows);
}

}  // namespace optrace::analyze::report
