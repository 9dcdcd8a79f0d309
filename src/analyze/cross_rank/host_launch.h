// host_launch: how the host fed the device, per rank and step. Part of the cross_rank stage: the
// flows come from the pass over trace_view.json that AttributeBubbles makes.
//
//   std::vector<StepLaunch> steps = StepLaunches(rank_table, result.steps, flows);
//
// torch_npu's trace_view.json links each launch to its device task with a HostToDevice flow (from
// the CANN API call to the task's start on the device) and each operator's trip through the task
// queue with an async_task_queue flow (Enqueue -> Dequeue). Per step this gives:
//   - the launch delay (API call -> device start): median, p90, max. A long delay is a deep queue
//     (the host runs ahead: good); it alone does not say the device waited.
//   - launch-bound idle: device idle time that ends with a task whose launch began only after the
//     device had gone idle. That device waited on the host, whatever the delay.
//   - the task-queue depth (enqueued, not yet dequeued), its maximum while the step ran.
// Ranks without trace_view.json, or whose trace has no such flows, are counted, not guessed.
#pragma once

#include "analyze/model/model.h"
#include "analyze/read/normalize.h"
#include "core/status.h"

namespace optrace::analyze {

// The per-step numbers of one rank from its flows (absolute ns: ReadTraceViewHostEvents and
// ReadDbLaunchFlows, normalize.h), its device events and its steps.
std::vector<StepLaunch> StepLaunches(const RankTable& table, const std::vector<Step>& steps,
                                     std::vector<TraceFlow> flows);

}  // namespace optrace::analyze
