#include "analyze/cross_rank/pipeline_stages.h"

#include <algorithm>
#include <map>

namespace optrace::analyze {

std::vector<PipelineStage> PipelineStages(const AnalysisResult& r) {
  std::map<int, int> stage_of;  // rank -> stage
  for (const RankSummary& s : r.summaries.ranks)
    if (s.pp_stage >= 0) stage_of[s.rank] = s.pp_stage;
  std::map<int, PipelineStage> stages;
  for (const auto& [rank, stage] : stage_of) {
    PipelineStage& p = stages[stage];
    p.stage = stage;
    p.ranks.push_back(rank);
  }
  if (stages.size() < 2) return {};
  // Per (stage, step id): sums over the stage's ranks.
  struct Acc {
    double compute = 0, comm = 0, bubble = 0, wall = 0, warmup = 0, cooldown = 0, worst = 0;
    int n = 0, worst_rank = -1;
  };
  std::map<int64_t, std::map<int, Acc>> by_step;
  for (const Step& s : r.steps) {
    auto it = stage_of.find(s.rank);
    if (it == stage_of.end() || s.step_id < 0 || s.partial_capture_boundary) continue;
    Acc& a = by_step[s.step_id][it->second];
    double c = double(s.compute_ns) / 1e6;
    a.compute += c;
    a.comm += double(s.comm_ns) / 1e6;
    a.bubble += double(s.anatomy.bubble_ns) / 1e6;
    a.wall += double(s.anatomy.wall_ns) / 1e6;
    // The ramps: events are in start order; the last compute end is the latest among them.
    if (const RankTable* t = r.FindRank(s.rank)) {
      int64_t first = -1, last_end = -1;
      for (uint32_t i = s.events.first; i < s.events.last; ++i) {
        const Event& e = t->events[i];
        if (IsComm(e.op_type)) continue;
        if (first < 0) first = e.start_ns;
        last_end = std::max(last_end, e.end_ns());
      }
      if (first >= 0) {
        a.warmup += double(first - s.start_ns) / 1e6;
        a.cooldown += double(s.end_ns - last_end) / 1e6;
      }
    }
    if (c > a.worst || a.worst_rank < 0) a.worst = c, a.worst_rank = s.rank;
    ++a.n;
  }
  std::map<int, double> worst_compute;
  for (const auto& [step, per_stage] : by_step) {
    int bound = -1;
    double most = -1;
    for (const auto& [stage, a] : per_stage) {
      PipelineStage& p = stages[stage];
      double mean = a.compute / a.n;
      p.compute_ms += mean;
      p.comm_ms += a.comm / a.n;
      p.bubble_ms += a.bubble / a.n;
      p.wall_ms += a.wall / a.n;
      p.warmup_ms += a.warmup / a.n;
      p.cooldown_ms += a.cooldown / a.n;
      ++p.steps;
      if (mean > most) most = mean, bound = stage;
      if (!worst_compute.count(stage) || a.worst > worst_compute[stage]) {
        worst_compute[stage] = a.worst;
        p.worst_step_id = step;
        p.worst_rank = a.worst_rank;
      }
    }
    if (per_stage.size() >= 2 && bound >= 0) ++stages[bound].bounding_steps;
  }
  std::vector<PipelineStage> out;
  for (auto& [stage, p] : stages) {
    if (p.steps > 0) {
      p.compute_ms /= p.steps;
      p.comm_ms /= p.steps;
      p.bubble_ms /= p.steps;
      p.wall_ms /= p.steps;
      p.warmup_ms /= p.steps;
      p.cooldown_ms /= p.steps;
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace optrace::analyze
