#include "analyze/report/kpis.h"

#include <vector>

namespace optrace::analyze::report {
namespace {
double Share(double part, double whole) { return whole > 0 ? part / whole : 0.0; }
}  // namespace

Kpis ComputeKpis(const AnalysisResult& r) {
  Kpis k;
  k.rank_count = static_cast<int>(r.ranks.size());
  for (const RankTable& rank : r.ranks) k.event_count += rank.events.size();
  k.step_count = static_cast<int>(r.steps.size());
  k.layer_count = static_cast<int>(r.layers.size());

  std::vector<double> complete, all, profiler, prepare;
  for (const Step& s : r.steps) {
    if (s.complete && s.profiler_step_ns >= 0) profiler.push_back(static_cast<double>(s.profiler_step_ns) / 1e6);
    if (s.complete && s.host_prepare_ns >= 0) prepare.push_back(static_cast<double>(s.host_prepare_ns) / 1e6);
    double wall = static_cast<double>(s.anatomy.wall_ns) / 1e6;
    all.push_back(wall);
    if (s.complete) {
      complete.push_back(wall);
      ++k.complete_step_count;
      if (s.anatomy.has_bubble) ++k.bubbling_step_count;
    }
    k.wall_ms_sum += wall;
    k.busy_ms_sum += static_cast<double>(s.anatomy.busy_ns) / 1e6;
    k.bubble_ms_sum += static_cast<double>(s.anatomy.bubble_ns) / 1e6;
    k.comm_ms_sum += static_cast<double>(s.comm_ns) / 1e6;
  }
  k.step_wall_ms = Summarize(complete.empty() ? all : complete);
  k.profiler_step_ms = Summarize(profiler);
  k.host_prepare_ms = Summarize(prepare);
  k.bubble_ratio = Share(k.bubble_ms_sum, k.wall_ms_sum);
  k.comm_share = Share(k.comm_ms_sum, k.wall_ms_sum);

  std::map<std::string, double> kind_ms;
  for (const HcclSummary& h : r.summaries.hccl) {
    k.hccl_total_ms += h.stats.total_us / 1e3;
    kind_ms[h.kind] += h.stats.total_us / 1e3;
  }
  for (const auto& [kind, ms] : kind_ms) {
    if (ms > k.hccl_top_kind_ms) {
      k.hccl_top_kind = kind;
      k.hccl_top_kind_ms = ms;
    }
  }
  k.hccl_share_of_wall = Share(k.hccl_total_ms, k.wall_ms_sum);
  for (const HcclClassSummary& h : r.summaries.hccl_classes)
    if (h.rank_skew_ratio > k.hccl_max_rank_skew_ratio) k.hccl_max_rank_skew_ratio = h.rank_skew_ratio;

  const StepClassSummary* top = nullptr;
  for (const StepClassSummary& c : r.summaries.step_classes)
    if (top == nullptr || c.wall_ms_sum > top->wall_ms_sum) top = &c;
  if (top) {
    k.top_step_class_id = top->id;
    k.top_step_class_members = top->members;
    k.top_step_wall_ms_mean = top->wall_ms_mean;
    k.top_step_wall_ms_p90 = top->wall_ms_p90;
    k.top_step_bubble_ratio_mean = top->bubble_ratio_mean;
  }

  for (const OperatorClassSummary& o : r.summaries.operator_classes) {
    k.bound_family_ms[o.bound.bound_family.empty() ? "unknown" : o.bound.bound_family] += o.duration_sum_us / 1e3;
  }
  for (const RankSummary& s : r.summaries.ranks)
    for (int i = 0; i < kOpTypeCount; ++i) k.op_type_ms[std::string(OpTypeName(static_cast<OpType>(i)))] += s.op_type_ms[i];

  k.max_step_skew_ratio = r.cross_rank.max_step_skew_ratio;
  k.max_collective_skew_ratio = r.cross_rank.max_collective_skew_ratio;
  k.compute_imbalance_ratio = r.cross_rank.compute_imbalance_ratio;
  const Summaries& s = r.summaries;
  k.pipeline_event_coverage = Share(static_cast<double>(s.events_with_pipeline), static_cast<double>(s.events_total));
  k.pipeline_operator_coverage =
      Share(static_cast<double>(s.operators_with_pipeline), static_cast<double>(s.operators_total));

  for (Severity sev : {Severity::kHigh, Severity::kMedium, Severity::kLow, Severity::kInfo})
    k.finding_counts[std::string(SeverityName(sev))] = 0;
  for (const Finding& f : r.findings) ++k.finding_counts[std::string(SeverityName(f.severity))];
  return k;
}

}  // namespace optrace::analyze::report
