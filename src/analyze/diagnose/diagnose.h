// diagnose: findings with evidence, from the summaries and cross-rank results.
//
//   Diagnose(result, rules);   // fills result.findings (ids F001.., by severity) and limitations
//
// Finding types and triggers (thresholds: diagnosis_rules.json):
//   slow_rank                     high/medium/low  the rank whose late arrivals cost the others the
//                                         most wait, net of the next rank's, >= slow_rank_min_wait_ms and
//                                         slow_rank_min_wait_share of the step wall (low on low-confidence ranks)
//   communication_dominated_step  medium  per rank: steps whose comm union >= comm_dominated_share of wall
//   exposed_communication         medium  per rank: steps whose comm not hidden under compute >=
//                                         exposed_comm_min_share of wall, overlap <= comm_overlap_max_ratio
//   expert_load_imbalance         medium  an EP group's per-step peak-to-mean grouped-matmul load >=
//                                         ep_peak_to_mean with one rank hot in >= ep_hot_step_share of steps
//   slow_pipeline_stage           medium  the pp stage with the most compute in >= pp_stage_bound_share of
//                                         steps and >= pp_stage_imbalance_ratio x the other stages' compute
//   outlier_step                  medium  per rank: complete steps >= outlier_step_ratio x the median complete
//                                         step (and outlier_step_min_ms longer), with what was different
//   recurring_bubble_pattern      medium  per rank: bubbling complete steps / complete steps >=
//                                         recurring_bubble_min_ratio with >= recurring_bubble_min_complete_steps
//   host_op_compile               medium/low  api_statistic.csv: aclopCompileAndExecute host time >=
//                                         host_compile_min_share of the profiler step time
//   host_sync                     low     api_statistic.csv: >= host_sync_min_calls_per_step device syncs per step
//   prelaunch_gap_heavy / tail_gap_heavy  low  per rank: steps with a gap >= max(heavy_gap_min_us, 10% wall)
//   aicpu_on_critical_path        medium  per rank: AI CPU time not overlapped by other device work
//                                         >= max(aicpu_min_exposed_us, aicpu_min_wall_share * wall)
//   rank_step_skew                medium  aligned steps with wall skew > rank_skew_ratio
//   compute_imbalance             medium  per-rank compute over aligned steps, skew > compute_imbalance_ratio
//   top_operator                  info    the top_operators compute operators (rank-merged, communication
//                                         excluded) by total time
//   slow_link                     medium  a communication_matrix link below slow_link_ratio x the median
//                                         bandwidth of its transport (>= slow_link_min_links links)
//   mixed_transport_group         low     a group whose links use two transports, the slower one's median
//                                         bandwidth below slow_link_ratio x the faster one's
//   comm_wait_dominated           medium  ranks whose wait / (wait + transit) > comm_wait_ratio_high; the
//                                         rank that waits least is named as the likely late rank
//   small_packets                 low     a rank and transport whose packets below small_packet_mb carry
//                                         >= small_packet_time_share of its transit time
//   unaligned_sdma_copies         by share  db exports: SDMA copies (not ON_CHIP, > byte_alignment_min_bytes)
//                                         whose size is not a multiple of byte_alignment_bytes; low below
//                                         byte_alignment_low_share of the checked copy time, high from
//                                         byte_alignment_high_share
// Evidence: file + row range of the events, or rank + absolute time window (Unix ns).
#pragma once

#include <optional>

#include "analyze/cost/hardware.h"
#include "analyze/model/model.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {

void Diagnose(AnalysisResult& result, const Rules& rules);

// The communication findings (findings_comm.cc); slow_rank: the slow_rank finding's rank or -1.
std::vector<Finding> CommunicationFindings(const AnalysisResult& result, const Rules& rules, int slow_rank);

// memory_near_device_limit: a rank whose peak reserved memory (any component) reaches
// `memory_near_limit_share` of the device's HBM. Added at the report stage, where the device is
// known (--hardware-model / --hardware-profile, or the capture's own device name); without a
// device or its HBM size, nothing is added (the report says the limit is unknown).
void AddMemoryLimitFinding(AnalysisResult& r, const std::vector<RankMemory>& memory,
                           const std::optional<HardwarePeaks>& hardware, const Thresholds& th);

}  // namespace optrace::analyze
