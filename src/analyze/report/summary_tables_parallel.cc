// The MoE / LLM tables: host launch per step, expert-parallel load, pipeline stages, device
// memory peaks. Each is written only when the capture holds its inputs.
#include "analyze/report/summary_tables.h"

#include "analyze/report/table_helpers.h"

namespace optrace::analyze::report {

using namespace internal;

Table HostLaunchTable(const AnalysisResult& r) {
  Table t{"host_launch_summary",
          {"rank", "step_id", "complete", "wall_ms", "launches", "delay_p50_ms", "delay_p90_ms", "delay_max_ms",
           "launch_bound_idle_ms", "launch_bound_idle_share", "launch_bound_gaps", "max_task_queue_depth"},
          {}};
  for (const StepLaunch& L : r.cross_rank.launches)
    t.rows.push_back({I(L.rank), I(L.step_id), Bool(L.complete), D(NsToMs(L.step_wall_ns)),
                      I(int64_t(L.launches)), D(NsToMs(L.delay_p50_ns)), D(NsToMs(L.delay_p90_ns)),
                      D(NsToMs(L.delay_max_ns)), D(NsToMs(L.launch_bound_idle_ns)),
                      D(L.step_wall_ns > 0 ? double(L.launch_bound_idle_ns) / double(L.step_wall_ns) : kMissing),
                      I(int64_t(L.launch_bound_gaps)), KnownI(L.max_queue_depth)});
  return t;
}

Table ExpertLoadSummaryTable(const std::vector<ExpertGroupLoad>& groups) {
  Table t{"expert_load_summary",
          {"group", "load_measure", "rank", "calls", "tokens_per_step", "ms_per_step", "hot_steps", "group_steps",
           "group_mean_peak_to_mean", "group_max_peak_to_mean"},
          {}};
  for (const ExpertGroupLoad& g : groups)
    for (const ExpertRankLoad& l : g.ranks)
      t.rows.push_back({S(g.group), S(std::string(g.by_tokens ? "tokens" : "time")), I(l.rank), I(int64_t(l.calls)),
                        g.by_tokens ? D(l.tokens_per_step) : Cell(), D(l.ms_per_step), I(l.hot_steps), I(g.steps),
                        D(g.mean_peak_to_mean), D(g.max_peak_to_mean)});
  return t;
}

Table PipelineStageSummaryTable(const std::vector<PipelineStage>& stages) {
  Table t{"pipeline_stage_summary",
          {"stage", "ranks", "steps", "compute_ms", "comm_ms", "idle_ms", "warmup_ms", "cooldown_ms", "wall_ms",
           "bounding_steps"},
          {}};
  for (const PipelineStage& p : stages)
    t.rows.push_back({I(p.stage), S(FormatRankList(p.ranks)), I(p.steps), D(p.compute_ms), D(p.comm_ms), D(p.bubble_ms),
                      D(p.warmup_ms), D(p.cooldown_ms), D(p.wall_ms), I(p.bounding_steps)});
  return t;
}

Table MemoryPeakTable(const std::vector<RankMemory>& memory) {
  Table t{"memory_peak_summary",
          {"rank", "component", "peak_reserved_mb", "peak_allocated_mb", "peak_step_id", "memory_record_row"},
          {}};
  for (const RankMemory& m : memory)
    for (const ComponentMemory& c : m.components)
      t.rows.push_back({I(m.rank), S(c.component), D(c.peak_reserved_mb), D(c.peak_allocated_mb),
                        KnownI(c.peak_step_id), I(int64_t(c.peak_row))});
  return t;
}

void BuildParallelTables(const AnalysisResult& r, const std::function<void(Table&&)>& sink) {
  if (!r.cross_rank.launches.empty()) sink(HostLaunchTable(r));
  if (const auto& g = r.cross_rank.expert_load; !g.empty()) sink(ExpertLoadSummaryTable(g));
  if (const auto& p = r.cross_rank.pipeline_stages; !p.empty()) sink(PipelineStageSummaryTable(p));
  if (const auto& m = r.summaries.memory; !m.empty()) sink(MemoryPeakTable(m));
}

}  // namespace optrace::analyze::report
