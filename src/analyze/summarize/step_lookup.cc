#include "analyze/summarize/step_lookup.h"

#include <algorithm>

namespace optrace::analyze {

StepLookup::StepLookup(const std::vector<Step>& steps) {
  for (size_t i = 0; i < steps.size(); ++i)
    ranks_[steps[i].rank].by_start.push_back({steps[i].start_ns, steps[i].end_ns, i, steps[i].step_id});
  for (auto& [rank, r] : ranks_) {
    std::stable_sort(r.by_start.begin(), r.by_start.end(),
                     [](const Entry& a, const Entry& b) { return a.start_ns < b.start_ns; });
    r.max_end_upto.resize(r.by_start.size());
    int64_t max_end = INT64_MIN;
    for (size_t i = 0; i < r.by_start.size(); ++i) r.max_end_upto[i] = max_end = std::max(max_end, r.by_start[i].end_ns);
  }
}

int64_t StepLookup::StepAt(int rank, int64_t rel_ns) const {
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return -1;
  const RankSteps& r = it->second;
  // Steps starting at or before the time, walked back while one of them may still reach past it:
  // one step for steps that do not overlap.
  size_t i = static_cast<size_t>(
      std::upper_bound(r.by_start.begin(), r.by_start.end(), rel_ns,
                       [](int64_t t, const Entry& e) { return t < e.start_ns; }) -
      r.by_start.begin());
  const Entry* best = nullptr;
  while (i > 0 && r.max_end_upto[i - 1] > rel_ns) {
    const Entry& e = r.by_start[--i];
    if (rel_ns < e.end_ns && (!best || e.order < best->order)) best = &e;
  }
  return best ? best->step_id : -1;
}

}  // namespace optrace::analyze
