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

#include "analyze/model/model.h"

namespace optrace::analyze {

// Groups with grouped-matmul calls on at least two ranks; empty otherwise.
std::vector<ExpertGroupLoad> ExpertLoad(const AnalysisResult& r);

}  // namespace optrace::analyze
