// host_attribution: what the host was doing during each device bubble (seed 002's "soft
// attribution"). Part of the cross_rank stage.
//
//   OPTRACE_RETURN_IF_ERROR(AttributeBubbles(result, rules));   // cross_rank.bubbles and .launches
//
// A bubble is an idle gap inside a step at or above the bubble threshold (segment's rule). Each
// rank's trace_view.json is streamed once, keeping only the host events (complete events
// without a device Task Type: cpu_op, python_function, CANN / AscendCL API) that overlap one of
// its bubbles. The first rule that holds labels the bubble:
//   possible_sync_or_h2d                 a host event in the bubble synchronizes or copies to the
//                                        device (synchronize, aten::item / to / copy_, Memcpy, H2D)
//   possible_communication_wait          a host event in the bubble is a collective (hcom, HCCL, c10d)
//   possible_host_launch_lag             the host launches a kernel (aclnn*, Launch) inside the
//                                        bubble: the device waited for the launch
//   possible_python_serialization_or_lock  Python code covers most of the bubble with no CANN call
//   possible_untraced_host_blocking      no host event overlaps the bubble at all
//   insufficient_evidence                host events overlap, none of the above
// These are candidates, not proof: the report says so. The same pass reads the trace's launch
// flows for host_launch (StepLaunches: launch delay, launch-bound idle, task-queue depth per step).
#pragma once

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"
#include "core/status.h"

namespace optrace::analyze {

Status AttributeBubbles(AnalysisResult& result, const Rules& rules);

// The label and rule for a bubble [start, end] (absolute ns) from the host events overlapping it.
std::pair<std::string, std::string> LabelBubble(int64_t start_ns, int64_t end_ns, const std::vector<HostEventNear>& host);

}  // namespace optrace::analyze
