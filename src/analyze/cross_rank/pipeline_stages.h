// Pipeline-parallel stages: per stage (a rank's index in its pp group, profiler_metadata.json),
// the mean per-step compute, communication and idle time of its ranks, and which stage bounds
// each step (the one with the most compute: the others wait for it in a 1F1B schedule).
//
//   std::vector<PipelineStage> stages = PipelineStages(result);  // empty without pp groups
#pragma once

#include <cstdint>
#include <vector>

#include "analyze/model/model.h"

namespace optrace::analyze {

// Stages in order; empty when fewer than two stages are known.
std::vector<PipelineStage> PipelineStages(const AnalysisResult& r);

}  // namespace optrace::analyze
