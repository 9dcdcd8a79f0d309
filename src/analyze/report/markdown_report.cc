#include "analyze/report/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <map>

#include "analyze/report/markdown_table.h"
#include "analyze/rules/rules.h"
#include "analyze/report/table.h"

namespace optrace::analyze::report {
namespace {

using internal::MdTable;
using internal::Row;

using internal::Ms;
using internal::NsMs;
using internal::Num;
using internal::Pct;

template <typename T, typename Key>
std::vector<const T*> TopBy(const std::vector<T>& items, size_t n, Key key) {
  std::vector<const T*> v;
  for (const T& t : items) v.push_back(&t);
  std::stable_sort(v.begin(), v.end(), [&](const T* a, const T* b) { return key(*a) > key(*b); });
  if (v.size() > n) v.resize(n);
  return v;
}

std::string TopOps(const AnalysisResult& r, const std::vector<std::pair<uint32_t, double>>& ops, size_t n) {
  std::string s;
  for (size_t i = 0; i < ops.size() && i < n; ++i) {
    if (i) s += ", ";
    s += fmt::format("{} ({} ms)", r.Str(ops[i].first), Ms(ops[i].second / 1e3));
  }
  return s.empty() ? "-" : s;
}

void ExecutiveSummary(const AnalysisResult& r, const Kpis& k, std::ostream& out) {
  out << "## 1. Executive Summary\n\n";
  out << fmt::format(
      "{} rank(s), {} device events, {} steps ({} complete), {} layers. Step wall ({}): p50 {} ms, "
      "p90 {} ms, max {} ms. Communication covers {} of step wall (HCCL total {} ms, top kind {}); idle bubbles "
      "{} of step wall.\n\n",
      k.rank_count, k.event_count, k.step_count, k.complete_step_count, k.layer_count,
      k.complete_step_count > 0 ? "complete steps" : "all steps: none is complete, so these include partial ones",
      Ms(k.step_wall_ms.p50),
      Ms(k.step_wall_ms.p90), Ms(k.step_wall_ms.max), Pct(k.comm_share), Ms(k.hccl_total_ms),
      k.hccl_top_kind.empty() ? "-" : k.hccl_top_kind, Pct(k.bubble_ratio));
  if (k.profiler_step_ms.count > 0)
    out << fmt::format(
        "The profiler's own step (host step window, or Preparing + device wall): p50 {} ms, of which host time "
        "before the first device task p50 {} ms; the step wall above is the device part.\n\n",
        Ms(k.profiler_step_ms.p50), k.host_prepare_ms.count > 0 ? Ms(k.host_prepare_ms.p50) : std::string("-"));
  out << fmt::format("Findings: {} high, {} medium, {} low, {} info.\n\n", k.finding_counts.at("high"),
                     k.finding_counts.at("medium"), k.finding_counts.at("low"), k.finding_counts.at("info"));
  size_t shown = 0;
  for (const Finding& f : r.findings) {
    if (shown++ == 8) break;
    out << fmt::format("- **{}** `{}` {}: {}\n", SeverityName(f.severity), f.id, f.type, f.summary);
  }
  if (r.findings.empty()) out << "- No finding crossed a rule threshold.\n";
  out << "\n";
}

void CaptureAndSegmentation(const AnalysisResult& r, std::ostream& out) {
  out << "## 2. Capture And Segmentation\n\n";
  const Identity& id = r.identity;
  out << (id.roots.empty() ? "Roots: -\n" : "Roots:\n");
  for (const auto& root : id.roots) out << "- `" << root << "`\n";
  out << "\n";
  out << fmt::format("Profiler level: {}; torch_npu: {}; CANN: {}; device: {}.\n\n",
                     id.profiler_level.empty() ? "unknown" : id.profiler_level,
                     id.torch_npu_version.empty() ? "unknown" : id.torch_npu_version,
                     id.cann_version.empty() ? "unknown" : id.cann_version,
                     id.device_name.empty() ? "unknown" : id.device_name);
  std::vector<Row> rows;
  for (const RankTable& rank : r.ranks) {
    int steps = 0, complete = 0;
    size_t layers = 0;
    std::map<std::string, int> sources, anchors;
    for (const Step& s : r.steps) {
      if (s.rank != rank.rank) continue;
      ++steps;
      complete += s.complete ? 1 : 0;
      layers += s.layers.size();
      ++sources[s.step_source];
      if (!s.layer_anchor.empty()) ++anchors[s.layer_anchor];
    }
    std::string src, anc;
    for (const auto& [name, n] : sources) src += (src.empty() ? "" : ", ") + name;
    for (const auto& [name, n] : anchors) anc += (anc.empty() ? "" : ", ") + name;
    rows.push_back({std::to_string(rank.rank), std::string(InputKindName(rank.kind)), rank.dir,
                    std::to_string(rank.events.size()), std::to_string(steps), std::to_string(complete),
                    src.empty() ? "-" : src, std::to_string(layers), anc.empty() ? "-" : anc});
  }
  MdTable(out, {"rank", "input", "directory", "events", "steps", "complete", "step source", "layers", "layer anchor"},
          rows);
  if (!r.discovery.ranks_without_kernels.empty()) {
    out << "Ranks found without kernel data (not analyzed):\n";
    for (const RankInput& in : r.discovery.ranks_without_kernels)
      out << fmt::format("- rank {} in `{}`\n", in.rank, in.dir.string());
    out << "\n";
  }
}

void MacroStepTimeline(const AnalysisResult& r, std::ostream& out) {
  out << "## 3. Macro Step Timeline\n\n";
  std::vector<Row> rows;
  for (const RankSummary& s : r.summaries.ranks) {
    double head = 0, main = 0, tail = 0, bubble = 0;
    int n = 0;
    for (const Step& st : r.steps) {
      if (st.rank != s.rank || !st.complete || st.anatomy.wall_ns <= 0) continue;
      double w = static_cast<double>(st.anatomy.wall_ns);
      head += st.anatomy.head_ns / w;
      main += st.anatomy.main_ns / w;
      tail += st.anatomy.tail_ns / w;
      bubble += st.anatomy.bubble_ns / w;
      ++n;
    }
    // Shares are over complete steps: with none, there is nothing to average.
    auto share = [n](double x) { return n ? Pct(x / n) : std::string("-"); };
    rows.push_back({std::to_string(s.rank), std::to_string(s.step_count), std::to_string(s.complete_step_count),
                    Ms(s.step_wall_ms_p50), Ms(s.step_wall_ms_p90), share(head), share(main), share(tail),
                    share(bubble),
                    s.complete_step_count ? fmt::format("{}/{}", s.bubbling_step_count, s.complete_step_count) : "-",
                    s.dominant_idle_pattern.empty() ? "-" : s.dominant_idle_pattern});
  }
  MdTable(out,
          {"rank", "steps", "complete", "wall p50 ms", "wall p90 ms", "head", "main", "tail", "bubble",
           "bubbling steps", "dominant idle"},
          rows);
  out << "Heaviest steps (top 8 by wall):\n\n";
  rows.clear();
  for (const Step* s : TopBy(r.steps, 8, [](const Step& s) { return s.anatomy.wall_ns; })) {
    std::string tags;
    for (const auto& t : s->anomaly_tags) tags += (tags.empty() ? "" : ", ") + t;
    rows.push_back({std::to_string(s->rank), std::to_string(s->step_id), s->step_class.empty() ? "-" : s->step_class,
                    NsMs(s->anatomy.wall_ns), NsMs(s->anatomy.busy_ns), NsMs(s->anatomy.bubble_ns),
                    NsMs(s->prelaunch_gap_ns), NsMs(s->tail_gap_ns), s->complete ? "yes" : "no",
                    tags.empty() ? "-" : tags});
  }
  MdTable(out,
          {"rank", "step", "class", "wall ms", "busy ms", "bubble ms", "pre-launch gap ms", "tail gap ms", "complete",
           "tags"},
          rows);
}

void PipelineCoverage(const Kpis& k, std::ostream& out) {
  out << "## 4. Pipeline Coverage And Bound Families\n\n";
  out << fmt::format("Pipeline (PMU) data: {} of events, {} of operators.\n\n", Pct(k.pipeline_event_coverage),
                     Pct(k.pipeline_operator_coverage));
  double op_total = 0, bound_total = 0;
  for (const auto& [t, ms] : k.op_type_ms) op_total += ms;
  for (const auto& [t, ms] : k.bound_family_ms) bound_total += ms;
  std::vector<Row> rows;
  for (const auto& [t, ms] : k.op_type_ms)
    if (ms > 0) rows.push_back({t, Ms(ms), Pct(op_total > 0 ? ms / op_total : 0)});
  MdTable(out, {"op type", "total ms", "share"}, rows);
  rows.clear();
  for (const auto& [t, ms] : k.bound_family_ms)
    if (ms > 0) rows.push_back({t, Ms(ms), Pct(bound_total > 0 ? ms / bound_total : 0)});
  MdTable(out, {"bound family", "total ms", "share"}, rows);
}

void StepClassView(const AnalysisResult& r, std::ostream& out) {
  out << "## 5. Step Class View\n\n";
  auto top = TopBy(r.summaries.step_classes, 8, [](const StepClassSummary& c) { return c.wall_ms_sum; });
  if (top.empty()) {
    out << "No step classes.\n\n";
    return;
  }
  std::vector<Row> rows;
  for (const StepClassSummary* c : top) {
    rows.push_back({c->id, std::to_string(c->members), Ms(c->wall_ms_sum), Ms(c->wall_ms_mean), Ms(c->wall_ms_p90),
                    Pct(c->bubble_ratio_mean), TopOps(r, c->top_ops, 3)});
  }
  MdTable(out, {"class", "members", "wall ms sum", "wall ms mean", "wall ms p90", "bubble mean", "top ops"}, rows);
  const StepClassSummary* heavy = top.front();
  out << fmt::format("Heaviest class {}: top layer classes ", heavy->id);
  std::string layers;
  for (const auto& [id, ms] : heavy->top_layer_classes) layers += (layers.empty() ? "" : ", ") + fmt::format("{} ({} ms)", id, Ms(ms));
  out << (layers.empty() ? "-" : layers) << "; top operators " << TopOps(r, heavy->top_ops, 10) << ".\n\n";
}

void LayerAndBlockView(const AnalysisResult& r, std::ostream& out) {
  out << "## 6. Layer And Block View\n\n";
  std::vector<Row> rows;
  for (const LayerClassSummary* c :
       TopBy(r.summaries.layer_classes, 10, [](const LayerClassSummary& c) { return c.wall_ms_sum; })) {
    std::string kinds;
    for (size_t i = 0; i < c->block_kinds.size(); ++i) {
      kinds += (i ? ", " : "") + std::string(BlockKindName(c->block_kinds[i]));
      if (i < c->block_kind_wall_share_mean.size()) kinds += " " + Pct(c->block_kind_wall_share_mean[i]);
    }
    rows.push_back({c->id, std::to_string(c->members), c->companion_layer ? "yes" : "no", kinds.empty() ? "-" : kinds,
                    Ms(c->wall_ms_sum), Ms(c->wall_ms_mean), TopOps(r, c->top_ops, 3)});
  }
  if (rows.empty()) {
    out << "No layers were segmented (no layer anchor operator matched; see Limitations).\n\n";
  } else {
    MdTable(out, {"layer class", "members", "companion", "blocks (wall share)", "wall ms sum", "wall ms mean", "top ops"},
            rows);
  }
  rows.clear();
  for (const BlockClassSummary* c :
       TopBy(r.summaries.block_classes, 10, [](const BlockClassSummary& c) { return c.wall_ms_sum; })) {
    rows.push_back({c->id, std::string(BlockKindName(c->kind)), std::to_string(c->members), Ms(c->wall_ms_sum),
                    c->bound.bound_family.empty() ? "-" : c->bound.bound_family,
                    c->bound.dominant_core.empty() ? "-" : c->bound.dominant_core, Pct(c->comm_share_mean)});
  }
  if (!rows.empty())
    MdTable(out, {"block class", "kind", "members", "wall ms sum", "bound family", "dominant core", "comm share"}, rows);
}

// Communication and compute in one kernel (mix_comm_aiv): per operator, how its per-rank medians
// spread and which rank is slowest; the AIV share where the export has the PMU fields.
void FusedOperators(const AnalysisResult& r, std::ostream& out) {
  struct Fused {
    int ranks = 0;
    uint64_t calls = 0;
    double total_us = 0, aiv_us = 0, pmu_wall_us = 0, min_p50 = 0, max_p50 = 0;
    int slowest = -1;
    bool aiv = false;
  };
  std::map<std::string, Fused> by_name;
  const int aiv_index = StoredPipeIndex(Pipe::kAivTime);
  for (const OperatorSummary& o : r.summaries.operators) {
    if (o.op_type != OpType::kMixCommAiv) continue;
    Fused& f = by_name[r.Str(o.name)];
    if (f.ranks == 0 || o.stats.p50_us < f.min_p50) f.min_p50 = o.stats.p50_us;
    if (f.ranks == 0 || o.stats.p50_us > f.max_p50) {
      f.max_p50 = o.stats.p50_us;
      f.slowest = o.rank;
    }
    ++f.ranks;
    f.calls += o.stats.count;
    f.total_us += o.stats.total_us;
    double a = aiv_index >= 0 ? o.pipe_sums[static_cast<size_t>(aiv_index)] : kMissing;
    if (!IsMissing(a) && o.stats.count > 0) {
      f.aiv = true;
      f.aiv_us += a;
      // The wall of the calls that carried PMU fields (their share of the calls, at the mean).
      f.pmu_wall_us += o.stats.total_us * double(o.pipe_event_count) / double(o.stats.count);
    }
  }
  out << "Fused communication + compute operators (mix_comm_aiv: DispatchFFNCombine, MoeDistribute*, mc2 matmuls; "
         "a rank whose median is far above the others' runs them slower itself, see `slow_operator`):\n\n";
  if (by_name.empty()) {
    out << "None in this capture.\n\n";
    return;
  }
  std::vector<Row> rows;
  for (const auto& [name, f] : by_name)
    rows.push_back({name, std::to_string(f.ranks), std::to_string(f.calls), Ms(f.total_us / 1e3), Num(f.min_p50),
                    Num(f.max_p50), f.min_p50 > 0 ? Num(f.max_p50 / f.min_p50) : "-", std::to_string(f.slowest),
                    f.aiv && f.pmu_wall_us > 0 ? Pct(std::min(1.0, f.aiv_us / f.pmu_wall_us)) : "- (no PMU fields)",
                    f.aiv && f.pmu_wall_us > 0 ? Pct(std::max(0.0, 1.0 - f.aiv_us / f.pmu_wall_us)) : "-"});
  out << "Compute is the kernel's AIV time (PMU `aiv_time`), communication the rest of its wall (waiting on and "
         "moving data), over the calls that carry PMU fields:\n\n";
  MdTable(out, {"name", "ranks", "calls", "total ms", "min rank median us", "max rank median us", "max / min",
                "slowest rank", "compute (AIV) share", "communication share"},
          rows);
}

void DynamicShapes(const AnalysisResult& r, std::ostream& out);

void OperatorView(const AnalysisResult& r, std::ostream& out) {
  out << "## 7. Operator View\n\n";
  std::vector<Row> rows;
  auto is_comm = [](OpType t) { return t == OpType::kCommunication; };
  size_t n = 0;
  for (const OperatorClassSummary& o : r.summaries.operator_classes) {
    if (is_comm(o.op_type)) continue;
    if (n++ == 15) break;
    rows.push_back({r.Str(o.name), std::string(OpTypeName(o.op_type)), std::to_string(o.rank_count),
                    std::to_string(o.call_count), Ms(o.duration_sum_us / 1e3),
                    o.bound.bound_family.empty() ? "-" : o.bound.bound_family,
                    o.bound.dominant_core.empty() ? "-" : o.bound.dominant_core, o.bound.bound_stage.empty() ? "-" : o.bound.bound_stage,
                    Pct(o.rank_duration_skew_ratio)});
  }
  out << "Top compute operators (rank-merged, by total time):\n\n";
  MdTable(out, {"name", "op type", "ranks", "calls", "total ms", "bound family", "dominant core", "bound stage", "rank skew"},
          rows);
  FusedOperators(r, out);
  DynamicShapes(r, out);
  rows.clear();
  for (const HcclClassSummary& h : r.summaries.hccl_classes) {
    rows.push_back({h.kind, h.comm_aiv_fused ? "yes" : "no", std::to_string(h.rank_count), std::to_string(h.count),
                    Ms(h.total_us / 1e3), Num(h.rank_avg_mean_us), Pct(h.rank_skew_ratio),
                    h.min_rank < 0 ? "-" : std::to_string(h.min_rank), h.max_rank < 0 ? "-" : std::to_string(h.max_rank)});
  }
  out << "HCCL collectives:\n\n";
  if (rows.empty()) {
    out << "No communication operators.\n\n";
    return;
  }
  MdTable(out, {"kind", "comm+AIV fused", "ranks", "count", "total ms", "rank avg us", "rank skew", "fastest rank", "slowest rank"},
          rows);
  const HcclClassSummary* heavy = *TopBy(r.summaries.hccl_classes, 1, [](const HcclClassSummary& h) { return h.total_us; }).begin();
  rows.clear();
  for (const HcclSummary& h : r.summaries.hccl) {
    if (h.kind != heavy->kind || h.comm_aiv_fused != heavy->comm_aiv_fused) continue;
    rows.push_back({std::to_string(h.rank), std::to_string(h.stats.count), Ms(h.stats.total_us / 1e3), Num(h.stats.mean_us),
                    Num(h.stats.p50_us), Num(h.stats.p90_us), Num(h.stats.max_us)});
  }
  out << fmt::format("Per-rank distribution of the heaviest kind ({}):\n\n", heavy->kind);
  MdTable(out, {"rank", "count", "total ms", "mean us", "p50 us", "p90 us", "max us"}, rows);
}

constexpr size_t kMaxInventoryRows = 40;

void StepInventory(const AnalysisResult& r, std::ostream& out) {
  out << "## 8. Step Inventory\n\n";
  struct Group {
    int count = 0;
    double wall_ms = 0;
  };
  std::map<std::pair<std::string, size_t>, Group> groups;
  for (const Step& s : r.steps) {
    Group& g = groups[{s.step_class.empty() ? "-" : s.step_class, s.layers.size()}];
    ++g.count;
    g.wall_ms += static_cast<double>(s.anatomy.wall_ns) / 1e6;
  }
  // The heaviest groups by total wall, at most kMaxInventoryRows: a capture of 400k one-row steps
  // has 400k groups (issue 29.12); step_summary.csv lists every step.
  std::vector<std::pair<std::pair<std::string, size_t>, Group>> sorted(groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.wall_ms > b.second.wall_ms; });
  std::vector<Row> rows;
  int rest_steps = 0;
  double rest_ms = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const auto& [key, g] = sorted[i];
    if (i >= kMaxInventoryRows) {
      rest_steps += g.count;
      rest_ms += g.wall_ms;
      continue;
    }
    rows.push_back({key.first, std::to_string(key.second), std::to_string(g.count), Ms(g.wall_ms / g.count)});
  }
  MdTable(out, {"step class", "layers", "steps", "wall ms mean"}, rows);
  if (sorted.size() > kMaxInventoryRows)
    out << fmt::format("The {} heaviest of {} (step class, layers) groups by total wall; the other {} hold {} step(s), "
                       "{} ms in all. Every step is in `step_summary.csv`.\n\n",
                       kMaxInventoryRows, sorted.size(), sorted.size() - kMaxInventoryRows, rest_steps, Ms(rest_ms));
}


// Section 7's OP State part: the share of time in operators compiled for dynamic shapes.
void DynamicShapes(const AnalysisResult& r, std::ostream& out) {
  out << "Dynamic-shape operators (OP State):\n\n";
  double dyn = 0, stated = 0;
  std::map<uint32_t, std::pair<uint64_t, double>> by_name;  // name -> dynamic calls, us (all ranks)
  for (const OperatorSummary& o : r.summaries.operators) {
    dyn += o.dynamic_us;
    stated += o.dynamic_us + o.static_us;
    if (o.dynamic_calls) {
      auto& [calls, us] = by_name[o.name];
      calls += o.dynamic_calls;
      us += o.dynamic_us;
    }
  }
  if (stated <= 0) {
    out << "Not in this capture: the export has no OP State column (Level1 / Level2 kernel_details.csv and msprof "
           "op_summary carry it; Level0 and the db layouts do not).\n\n";
    return;
  }
  out << fmt::format("{} of the device time of operators with an OP State ran dynamic ({} of {} ms). `dynamic` is "
                     "what torch_npu's precompiled binary kernels report (jit_compile=False, its default); `static` "
                     "kernels were compiled for their shape.\n\n",
                     Pct(dyn / stated), Ms(dyn / 1e3), Ms(stated / 1e3));
  std::vector<std::pair<double, uint32_t>> top;
  for (const auto& [name, v] : by_name) top.push_back({v.second, name});
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (top.size() > 10) top.resize(10);
  std::vector<Row> rows;
  for (const auto& [us, name] : top)
    rows.push_back({r.Str(name), std::to_string(by_name[name].first), Ms(us / 1e3), Pct(us / stated)});
  if (!rows.empty()) MdTable(out, {"name", "dynamic calls", "dynamic ms", "share"}, rows);
}

void FindingInventory(const AnalysisResult& r, std::ostream& out) {
  out << "## 11. Finding Inventory\n\n";
  std::vector<Row> rows;
  for (const Finding& f : r.findings) {
    std::string nums;
    for (const auto& [name, v] : f.numbers) nums += (nums.empty() ? "" : ", ") + name + "=" + Num(v);
    rows.push_back({f.id, std::string(SeverityName(f.severity)), f.type, f.summary, nums.empty() ? "-" : nums});
  }
  if (rows.empty()) {
    out << "No findings.\n\n";
    return;
  }
  MdTable(out, {"id", "severity", "type", "summary", "numbers"}, rows);
}

void EvidenceChain(const AnalysisResult& r, std::ostream& out) {
  out << "## 12. Evidence Chain\n\n";
  if (r.findings.empty()) {
    out << "No findings, so no evidence to list.\n\n";
    return;
  }
  for (const Finding& f : r.findings) {
    out << fmt::format("- `{}` {}:\n", f.id, f.type);
    if (f.evidence.empty()) out << "  - (no evidence recorded: treat as low confidence)\n";
    for (const Evidence& e : f.evidence) out << "  - " << EvidenceText(r, e) << "\n";
  }
  out << "\n";
}

void DataIssues(const AnalysisResult& r, std::ostream& out) {
  out << "## 13. Data Issues\n\n";
  std::vector<Row> rows;
  for (const DataIssue& d : r.issues)
    rows.push_back({d.name, d.severity, std::to_string(d.count), d.description, d.example.empty() ? "-" : d.example});
  if (rows.empty()) {
    out << "None: every input row was used.\n\n";
    return;
  }
  MdTable(out, {"issue", "severity", "count", "description", "first seen"}, rows);
}

}  // namespace

std::string EvidenceText(const AnalysisResult& r, const Evidence& e) {
  std::vector<std::string> parts;
  if (!e.file.empty()) {
    std::string s = "`" + e.file + "`";
    if (e.row_first || e.row_last)
      s += e.row_first == e.row_last ? fmt::format(" row {}", e.row_first) : fmt::format(" rows {}-{}", e.row_first, e.row_last);
    parts.push_back(s);
  }
  if (e.rank >= 0) parts.push_back(fmt::format("rank {}", e.rank));
  if (e.step_id >= 0) parts.push_back(fmt::format("step {}", e.step_id));
  if (e.window_start_ns >= 0) {
    const RankTable* rank = e.rank >= 0 ? r.FindRank(e.rank) : nullptr;
    if (rank) {
      parts.push_back(fmt::format("window {}-{} ms after the rank's first event (Unix ns {}-{})",
                                  Ms((e.window_start_ns - rank->base_ns) / 1e6), Ms((e.window_end_ns - rank->base_ns) / 1e6),
                                  e.window_start_ns, e.window_end_ns));
    } else {
      parts.push_back(fmt::format("window Unix ns {}-{}", e.window_start_ns, e.window_end_ns));
    }
  }
  if (!e.note.empty()) parts.push_back(e.note);
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s.empty() ? "(empty evidence)" : s;
}

std::vector<std::string> ReportLimitations() {
  return {
      "FLOPs are counted only for operator families whose shapes determine them (matmul, grouped matmul, flash "
      "attention, element-wise and norm ops); the rest are listed as not modelled and left out of MFU, so MFU "
      "is a lower bound when they compute.",
      "Layer validation compares the detected layers of steps and ranks with each other; a --model-config is "
      "shown next to the profile-derived fingerprint and never used to cut layers.",
  };
}

void WriteMarkdownReport(const AnalysisResult& r, const Kpis& k, const ReportContext& ctx, std::ostream& os) {
  // Written whole, then escaped: names from the capture reach every section (issue 29.14).
  std::ostringstream out;
  out << "# optrace analyze report\n\n";
  out << fmt::format("Generated by {} (mode {}). Machine-readable conclusions: `analysis_summary.json`.\n\n",
                     ctx.generator, ctx.mode);
  ExecutiveSummary(r, k, out);
  CaptureAndSegmentation(r, out);
  MacroStepTimeline(r, out);
  PipelineCoverage(k, out);
  StepClassView(r, out);
  LayerAndBlockView(r, out);
  OperatorView(r, out);
  KernelFocusSection(r, ctx.kernel_focus, out);
  StepInventory(r, out);
  CrossRankSection(r, ctx.rules ? ctx.rules->thresholds.slow_link_min_mb : Thresholds{}.slow_link_min_mb, out);
  EfficiencySection(r, ctx.efficiency, out);
  FindingInventory(r, out);
  EvidenceChain(r, out);
  DataIssues(r, out);
  out << "## 14. Limitations\n\n";
  for (const auto& l : r.limitations) out << "- " << l << "\n";
  for (const auto& l : ReportLimitations()) out << "- " << l << "\n";
  out << "\n## 15. Artifacts\n\n";
  std::vector<Row> rows;
  for (const Artifact& a : ctx.artifacts) rows.push_back({"`" + a.file + "`", a.what});
  MdTable(out, {"file", "what it holds"}, rows);
  os << internal::EscapeMarkdownHtml(out.str());
}

}  // namespace optrace::analyze::report
