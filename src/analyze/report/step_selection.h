// Which steps a bounded document shows (internal to src/analyze/report): the steps of each rank,
// and the heaviest of them when there are too many to list (issue 29.12).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "analyze/model/model.h"

namespace optrace::analyze::report::internal {

// The steps of each rank, in the model's order: one pass, not a pass over all steps per rank.
inline std::map<int, std::vector<const Step*>> StepsByRank(const AnalysisResult& r) {
  std::map<int, std::vector<const Step*>> out;
  for (const Step& s : r.steps) out[s.rank].push_back(&s);
  return out;
}

// 1 for the `n` heaviest steps by wall (ties to the earlier one), 0 for the rest; all 1 when
// there are at most `n`.
inline std::vector<uint8_t> HeaviestSteps(const std::vector<const Step*>& steps, size_t n) {
  std::vector<uint8_t> keep(steps.size(), 1);
  if (steps.size() <= n) return keep;
  std::vector<size_t> order(steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto wall = [&](size_t i) { return steps[i]->end_ns - steps[i]->start_ns; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return wall(a) > wall(b); });
  std::fill(keep.begin(), keep.end(), 0);
  for (size_t k = 0; k < n; ++k) keep[order[k]] = 1;
  return keep;
}

}  // namespace optrace::analyze::report::internal
