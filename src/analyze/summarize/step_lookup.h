// StepLookup: which step of a rank holds a rank-relative time, in O(log steps).
//
//   StepLookup steps(result.steps);
//   int64_t id = steps.StepAt(rank, peak_rel_ns);   // -1 when no step of the rank holds it
//
// The memory summary asks this once per component per rank; scanning every step each time made
// 100,000 steps x 100,000 components take 61 s (issue 53.6). Where a rank's steps overlap, the
// answer is the first of them in the given order that holds the time, as that scan gave.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analyze/model/segments.h"

namespace optrace::analyze {

class StepLookup {
 public:
  explicit StepLookup(const std::vector<Step>& steps);
  int64_t StepAt(int rank, int64_t rel_ns) const;

 private:
  struct Entry {
    int64_t start_ns, end_ns;
    size_t order;  // index in the given steps
    int64_t step_id;
  };
  struct RankSteps {
    std::vector<Entry> by_start;       // sorted by start_ns
    std::vector<int64_t> max_end_upto;  // max end_ns of by_start[0..i]
  };
  std::unordered_map<int, RankSteps> ranks_;
};

}  // namespace optrace::analyze
