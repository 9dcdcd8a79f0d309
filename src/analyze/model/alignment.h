// The cross_rank stage's part of the model: steps and collectives aligned across ranks, skew,
// slow-rank votes, host attribution and launches, expert-parallel load, pipeline stages.
#pragma once

#include "analyze/model/summaries.h"

namespace optrace::analyze {

struct RankValue {
  int rank = -1;
  double value = 0;
};

struct AlignedStep {
  int64_t step_id = -1;
  std::vector<RankValue> wall_ms;      // per rank
  std::vector<RankValue> compute_ms;   // per rank
  double wall_skew_ratio = 0;          // (max - min) / mean
  double compute_skew_ratio = 0;
  int slowest_rank = -1, fastest_rank = -1;
};

// One collective matched across ranks: same step, same name, same occurrence index.
struct AlignedCollective {
  int64_t step_id = -1;
  uint32_t name = 0;
  int occurrence = 0;
  std::string kind;
  std::vector<RankValue> dur_us;
  double skew_ratio = 0;
  int shortest_rank = -1;  // arrived last (the others waited for it)
  int outlier_rank = -1;   // shortest_rank when the outlier test flagged it, else -1
  // Lateness as time (issue 52): the rank that waited longest for shortest_rank, and how long
  // (its duration minus the shortest): what the late arrival cost this collective.
  int waiter_rank = -1;
  double wait_caused_us = 0;
  std::string test;        // "dixon_q", "three_sigma", "two_rank_skew", "none"
  double statistic = 0, critical = 0;
  struct Where { int rank; uint32_t event; };  // event index on each rank (evidence)
  std::vector<Where> events;
};

// A host event near a device bubble (trace_view.json), as kept with the bubble.
struct HostEventNear {
  std::string process, name, cat;
  int64_t start_ns = 0, dur_ns = 0;  // absolute Unix ns
  int64_t overlap_ns = 0;            // overlap with the bubble
};

// A device bubble (an idle gap inside a step at or above the bubble threshold) and the host
// activity around it, with a candidate cause (host_attribution.h).
struct BubbleWindow {
  int rank = -1;
  int64_t step_id = -1;
  int64_t start_ns = 0, end_ns = 0;  // absolute Unix ns
  uint32_t next_event = kNone32;     // index of the event that ends the gap
  std::string label;  // possible_sync_or_h2d, possible_communication_wait, possible_host_launch_lag,
                      // possible_python_serialization_or_lock, possible_untraced_host_blocking,
                      // insufficient_evidence
  std::string rule;   // why that label, in words
  std::vector<HostEventNear> host;   // overlapping host events, longest overlap first (at most 8)
};

// How the host fed the device in one step (host_launch.h), from trace_view.json's launch flows.
struct StepLaunch {
  int rank = -1;
  int64_t step_id = -1;
  bool complete = true;
  int64_t step_wall_ns = 0;
  uint32_t launches = 0;  // HostToDevice flows whose device task starts in the step
  int64_t delay_p50_ns = 0, delay_p90_ns = 0, delay_max_ns = 0;  // API call -> device task start
  // Idle device time that ended with a task whose launch began only after the device went idle:
  // the device waited on the host (gaps inside the step).
  int64_t launch_bound_idle_ns = 0;
  uint32_t launch_bound_gaps = 0;
  int64_t longest_wait_start_ns = -1, longest_wait_end_ns = -1;  // absolute ns of the longest such gap
  int32_t max_queue_depth = -1;  // torch_npu task queue (enqueued, not yet dequeued); -1 without its flows
};

// Expert-parallel load of one EP group (expert_load.h).
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

// One pipeline-parallel stage (pipeline_stages.h).
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

struct SlowRankVote {
  int rank = -1;
  int votes = 0;
  double vote_share = 0;  // votes / tested collectives
};

// What one rank's late arrivals cost the others: the wait it caused, summed over the collectives
// where it arrived last, and its share of the aligned steps' wall.
struct RankLateness {
  int rank = -1;
  int late_collectives = 0;   // collectives where it arrived last (durations not all equal)
  double caused_wait_ms = 0;  // sum of wait_caused_us over them
  double caused_wait_share = 0;  // caused_wait_ms / the aligned steps' wall (mean across ranks)
  double worst_wait_ms = 0;      // the largest single wait it caused
  int64_t worst_step_id = -1;
  double worst_step_share = 0;   // the wait it caused in its worst step / that step's wall (waiter's)
};

struct CrossRank {
  std::vector<int> ranks;
  std::string alignment_method;  // "step_id", "step_ordinal", "single_rank"
  std::vector<AlignedStep> steps;
  std::vector<AlignedCollective> collectives;
  int tested_collectives = 0;
  std::vector<SlowRankVote> votes;  // sorted by votes desc
  std::vector<RankLateness> lateness;  // sorted by caused_wait_ms desc
  double aligned_wall_ms = 0;          // sum over aligned steps of the mean wall across ranks
  double max_step_skew_ratio = 0;
  double max_collective_skew_ratio = 0;
  double compute_imbalance_ratio = 0;  // (max - min) / mean of per-rank compute over all aligned steps
  std::vector<GroupSkew> groups;       // per communication group (named by communication.json), by hash
  std::vector<BubbleWindow> bubbles;   // device bubbles with their host-side attribution
  int bubbles_without_trace = 0;       // bubbles of ranks without trace_view.json (not attributed)
  std::vector<StepLaunch> launches;    // per rank and step, ranks whose trace_view.json has launch flows
  int launch_ranks_without_flows = 0;  // ranks with a timeline but no trace_view.json launch flows
  std::vector<ExpertGroupLoad> expert_load;     // EP groups with grouped matmuls on two ranks or more
  std::vector<PipelineStage> pipeline_stages;   // in stage order; empty below two stages
};

}  // namespace optrace::analyze
