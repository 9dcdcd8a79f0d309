// Headline numbers of one analysis, computed once from the model and shared by
// analysis_summary.json, report.md, report.html and the sweep rollup.
//
//   Kpis k = ComputeKpis(result);
//   k.step_wall_ms.p50; k.hccl_share_of_wall; k.top_step_class_id;
//
// Definitions (docs/analyze.md, "KPIs"): step walls are taken over complete steps (all steps
// when none is complete); shares divide summed times by the summed step wall of all ranks.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analyze/model/model.h"
#include "core/quantile.h"

namespace optrace::analyze::report {

struct Kpis {
  int rank_count = 0;
  uint64_t event_count = 0;
  int step_count = 0, complete_step_count = 0, layer_count = 0;
  double wall_ms_sum = 0;   // summed step wall over all steps of all ranks
  SummaryStats step_wall_ms;  // over complete steps (all steps when none is complete)
  // The profiler's own step (host window or Preparing + device wall) and its host part, over the
  // steps that have one (count 0: the export states none).
  SummaryStats profiler_step_ms, host_prepare_ms;
  double busy_ms_sum = 0, bubble_ms_sum = 0, bubble_ratio = 0;
  double comm_ms_sum = 0, comm_share = 0;  // communication union time / wall
  int bubbling_step_count = 0;
  double hccl_total_ms = 0, hccl_share_of_wall = 0;
  std::string hccl_top_kind;
  double hccl_top_kind_ms = 0;
  double hccl_max_rank_skew_ratio = 0;
  std::string top_step_class_id;  // the class with the largest summed wall
  int top_step_class_members = 0;
  double top_step_wall_ms_mean = 0, top_step_wall_ms_p90 = 0, top_step_bubble_ratio_mean = 0;
  std::map<std::string, double> bound_family_ms;  // rank-merged operator time per bound family
  std::map<std::string, double> op_type_ms;       // event time per op type, all ranks
  double max_step_skew_ratio = 0, max_collective_skew_ratio = 0, compute_imbalance_ratio = 0;
  double pipeline_event_coverage = 0, pipeline_operator_coverage = 0;  // 0..1
  std::map<std::string, int> finding_counts;  // per severity name, all four present
};

Kpis ComputeKpis(const AnalysisResult& result);

}  // namespace optrace::analyze::report
