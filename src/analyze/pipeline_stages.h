// Pipeline-parallel stages: per stage (a rank's index in its pp group, profiler_metadata.json),
// the mean per-step compute, communication and idle time of its ranks, and which stage bounds
// each step (the one with the most compute: the others wait for it in a 1F1B schedule).
//
//   std::vector<PipelineStage> stages = PipelineStages(result);  // empty without pp groups
#pragma once

#include <cstdint>
#include <vector>

#include "analyze/model.h"

namespace optrace::analyze {

struct PipelineStage {
  int stage = -1;
  std::vector<int> ranks;
  int steps = 0;                 // step ids seen on the stage's ranks
  double compute_ms = 0, comm_ms = 0, bubble_ms = 0, wall_ms = 0;  // per step, mean over ranks and steps
  // The 1F1B ramps, per step (mean over ranks and steps): warm-up from the step's first event to its
  // first compute kernel (a later stage waits for the earlier stages' first activations), cool-down
  // from its last compute kernel to the step's end (an earlier stage waits for the last gradients).
  double warmup_ms = 0, cooldown_ms = 0;
  int bounding_steps = 0;        // steps in which this stage has the most compute
  int64_t worst_step_id = -1;    // the step where its compute is largest (for evidence)
  int worst_rank = -1;
};

// Stages in order; empty when fewer than two stages are known.
std::vector<PipelineStage> PipelineStages(const AnalysisResult& r);

}  // namespace optrace::analyze
