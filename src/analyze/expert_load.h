// Expert-parallel load balance: per EP group (profiler_metadata.json, kind "ep": MindSpeed's
// "exp"), each rank's grouped-matmul work per step: tokens (the first dimension of the first
// input shape of GroupedMatmul, the rows routed to this rank's experts) where the export has
// shapes, else time. Per step the peak-to-mean over the group's ranks says how uneven the
// routing was, and which rank was hot.
//
//   for (const ExpertGroupLoad& g : ExpertLoad(result)) ... g.hot_rank, g.mean_peak_to_mean
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/model.h"

namespace optrace::analyze {

struct ExpertRankLoad {
  int rank = -1;
  uint64_t calls = 0;
  double tokens_per_step = 0;  // mean over its steps (0 when shapes are missing)
  double ms_per_step = 0;
  int hot_steps = 0;           // steps in which this rank carried the most load of the group
  uint32_t first_row = 0, last_row = 0;
  uint16_t file = 0;
};

struct ExpertGroupLoad {
  std::string group;           // the EP group's name, or "all ranks" without one in the metadata
  bool by_tokens = false;      // load measured in routed tokens (else in grouped-matmul time)
  std::vector<ExpertRankLoad> ranks;
  int steps = 0;               // steps with the operator on at least two of the group's ranks
  double mean_peak_to_mean = 0, max_peak_to_mean = 0;
  double max_over_min = 0;     // worst step
  int hot_rank = -1;           // the rank hot in the most steps
  int64_t worst_step_id = -1;
};

// Groups with grouped-matmul calls on at least two ranks; empty otherwise.
std::vector<ExpertGroupLoad> ExpertLoad(const AnalysisResult& r);

}  // namespace optrace::analyze
