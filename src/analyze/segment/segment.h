// segment: steps per rank, step anatomy, layers inside steps from anchor operators.
//
//   SegmentRanks(result, rules);   // fills result.steps, result.layers, Step::anatomy and gaps
//
// Steps come from the events' step ids (kernel_details "Step Id", db STEP_TIME, or trace_view
// ProfilerStep markers assigned at normalize); without any, the whole capture is one incomplete
// step ("whole_capture"). Anatomy: wall = first start .. last end; busy = union of events;
// bubble = wall - busy; an internal idle gap >= max(bubble_gap_min_us, bubble_gap_min_wall_share
// * wall) makes the step a bubbling step. Pre-launch / tail gaps are the idle time to the
// previous / next step of the rank (-1 at the capture edges); heavy when >= max(heavy_gap_min_us,
// heavy_gap_wall_share * wall). Layers: the first anchor rule (rules order) matching at least
// min_anchor_count operators of the step starts a layer at each match; the last layer is as
// long (in events) as the median earlier layer; what precedes the first anchor is the head and
// what follows the last layer the tail.
#pragma once

#include <algorithm>

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {

// `threads` > 1 computes the steps' anatomies side by side (the result is the same).
void SegmentRanks(AnalysisResult& result, const Rules& rules, int threads = 1);

// Anatomy of the event range of one rank (exposed for tests).
StepAnatomy ComputeAnatomy(const RankTable& table, EventRange range, const Thresholds& t);

// The smallest internal idle gap that makes a bubble in a step whose wall is `wall_ns`.
inline double BubbleGapMinNs(const Thresholds& t, int64_t wall_ns) {
  return std::max(t.bubble_gap_min_us * 1000.0, t.bubble_gap_min_wall_share * double(wall_ns));
}

// Calls fn(gap_start_ns, next_event) for every idle gap inside `range` (events sorted by start):
// from the latest end so far to the start of event `next_event`, rank-relative.
template <typename Fn>
void ForEachIdleGap(const RankTable& t, EventRange range, Fn fn) {
  int64_t cur_end = -1;
  for (uint32_t i = range.first; i < range.last; ++i) {
    const Event& e = t.events[i];
    if (cur_end >= 0 && e.start_ns > cur_end) fn(cur_end, i);
    cur_end = std::max(cur_end, e.end_ns());
  }
}

}  // namespace optrace::analyze
