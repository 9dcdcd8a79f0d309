// Findings of the parallel layout: an expert-parallel rank that is persistently hot, the pipeline
// stage that bounds the step.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analyze/diagnose/finding_builder.h"

namespace optrace::analyze::findings {

// One rank of an expert-parallel group persistently carries more routed tokens (expert_load.h).
void ExpertLoadImbalance(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  for (const ExpertGroupLoad& g : res.cross_rank.expert_load) {
    const ExpertRankLoad* hot = nullptr;
    for (const ExpertRankLoad& l : g.ranks)
      if (l.rank == g.hot_rank) hot = &l;
    if (!hot || g.mean_peak_to_mean < th.ep_peak_to_mean || hot->hot_steps < th.ep_hot_step_share * g.steps) continue;
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "expert_load_imbalance";
    f.rank = g.hot_rank;
    f.step_id = g.worst_step_id;
    const char* unit = g.by_tokens ? "tokens" : "ms";
    for (const ExpertRankLoad& l : g.ranks) {
      const RankTable& t = *res.FindRank(l.rank);
      Evidence ev;
      ev.rank = l.rank;
      ev.file = t.files[l.file].path + (t.files[l.file].table.empty() ? "" : "#" + t.files[l.file].table);
      ev.row_first = l.first_row;
      ev.row_last = l.last_row;
      ev.note = fmt::format("rank {}: {:.1f} {} per step over {} grouped-matmul calls; hot in {} of {} steps", l.rank,
                            g.by_tokens ? l.tokens_per_step : l.ms_per_step, unit, l.calls, l.hot_steps, g.steps);
      f.evidence.push_back(ev);
    }
    f.summary = fmt::format(
        "Expert-parallel group {}: rank {} carries the most {} in {} of {} steps; per step the busiest rank has "
        "{:.2f}x the group's mean on average (worst {:.2f}x in step {}, {:.2f}x the least loaded rank). The router "
        "sends this rank's experts more tokens: check the auxiliary balance loss / capacity factor, or redistribute "
        "hot experts across ranks.",
        g.group, g.hot_rank, g.by_tokens ? "routed tokens" : "grouped-matmul time", hot->hot_steps, g.steps,
        g.mean_peak_to_mean, g.max_peak_to_mean, g.worst_step_id, g.max_over_min);
    f.numbers = {{"mean_peak_to_mean", g.mean_peak_to_mean},
                 {"max_peak_to_mean", g.max_peak_to_mean},
                 {"max_over_min", g.max_over_min},
                 {"hot_steps", double(hot->hot_steps)}};
    b.Add(std::move(f));
  }
}

// The pipeline stage that bounds the step: the others wait for it (pipeline_stages.h).
void SlowPipelineStage(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  const std::vector<PipelineStage>& stages = res.cross_rank.pipeline_stages;
  if (stages.size() < 2) return;
  const PipelineStage* top = nullptr;
  int steps = 0;
  for (const PipelineStage& p : stages) {
    steps = std::max(steps, p.steps);
    if (!top || p.bounding_steps > top->bounding_steps) top = &p;
  }
  double others = 0;
  for (const PipelineStage& p : stages)
    if (&p != top) others += p.compute_ms;
  others /= double(stages.size() - 1);
  if (steps == 0 || top->bounding_steps < th.pp_stage_bound_share * steps || others <= 0 ||
      top->compute_ms < th.pp_stage_imbalance_ratio * others)
    return;
  Finding f;
  f.severity = Severity::kMedium;
  f.type = "slow_pipeline_stage";
  f.rank = top->worst_rank;
  f.ranks = top->ranks;
  f.step_id = top->worst_step_id;
  for (const PipelineStage& p : stages) {
    for (const Step& s : res.steps) {
      if (s.rank != p.worst_rank || s.step_id != p.worst_step_id) continue;
      f.evidence.push_back(b.RangeEvidence(
          s.rank, s.events, s.step_id,
          fmt::format("stage {} (ranks {}): {:.2f} ms compute, {:.2f} ms communication, {:.2f} ms idle per step; "
                      "bounds {} of {} steps",
                      p.stage, FormatRankList(p.ranks), p.compute_ms, p.comm_ms, p.bubble_ms, p.bounding_steps,
                      steps)));
      break;
    }
  }
  f.summary = fmt::format(
      "Pipeline stage {} (ranks {}) bounds {} of {} steps: {:.2f} ms compute per step, {:.2f}x the other stages' "
      "{:.2f} ms, so they wait for it (their idle time grows in the warm-up and cool-down). Move layers off stage {} "
      "or rebalance its layer split.",
      top->stage, FormatRankList(top->ranks), top->bounding_steps, steps, top->compute_ms, top->compute_ms / others,
      others, top->stage);
  f.numbers = {{"stage", double(top->stage)},
               {"bounding_steps", double(top->bounding_steps)},
               {"compute_ms", top->compute_ms},
               {"imbalance_ratio", top->compute_ms / others}};
  b.Add(std::move(f));
}

}  // namespace optrace::analyze::findings
