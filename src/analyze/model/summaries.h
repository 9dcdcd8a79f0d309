// The summarize stage's part of the model: operator, HCCL, class, rank, communication and memory
// summaries.
#pragma once

#include "analyze/model/segments.h"

namespace optrace::analyze {

struct DurationStats {
  uint64_t count = 0;
  double total_us = 0, mean_us = 0, p50_us = 0, p90_us = 0, max_us = 0, min_us = 0;
};

// The 11 kept pipeline fields summed (us), in kPipeSumFields order; NaN when no event of the
// group had the field.
using PipeSums = std::array<double, kPipeSumFields.size()>;

struct BoundInfo {
  std::string bound_stage;   // "aic_mac_time", ... or "" when unknown
  std::string bound_family;  // cube, vector, aic_mte, aiv_mte, scalar, mixed, aicpu, communication, comm_aiv_mix, dsa, unknown
  std::string dominant_core; // aic, aiv, mix, none
};

struct OperatorSummary {
  int rank = -1;
  uint32_t name = 0, type = 0;
  OpType op_type = OpType::kUnknown;
  DurationStats stats;
  PipeSums pipe_sums{};
  uint64_t pipe_event_count = 0;  // events that carried pipeline data
  BoundInfo bound;
  uint32_t first_row = 0, last_row = 0;  // provenance: first and last source row of the group
  uint16_t file = 0;
  // Calls whose OP State was dynamic / static, and their time (0 when the export has no OP State).
  uint64_t dynamic_calls = 0, static_calls = 0;
  double dynamic_us = 0, static_us = 0;
};

// Rank-merged operator summary (operator_class_summary.csv).
struct OperatorClassSummary {
  uint32_t name = 0, type = 0;
  OpType op_type = OpType::kUnknown;
  int rank_count = 0;
  uint64_t call_count = 0;
  double duration_sum_us = 0;
  PipeSums pipe_sums{};
  BoundInfo bound;
  double rank_duration_min_us = 0, rank_duration_max_us = 0, rank_duration_p50_us = 0;
  double rank_duration_skew_ratio = 0;  // (max - min) / mean over ranks
};

// HCCL kinds: allreduce, allgather, reducescatter, alltoallv, broadcast, send_recv, barrier, other.
struct HcclSummary {
  std::string kind;
  bool comm_aiv_fused = false;  // op_type mix_comm_aiv
  int rank = -1;
  DurationStats stats;
};

struct HcclClassSummary {
  std::string kind;
  bool comm_aiv_fused = false;
  int rank_count = 0;
  uint64_t count = 0;
  double total_us = 0;
  double rank_avg_min_us = 0, rank_avg_max_us = 0, rank_avg_mean_us = 0;
  double rank_skew_ratio = 0;  // (max_rank_avg - min_rank_avg) / mean_rank_avg
  int min_rank = -1, max_rank = -1;
};

struct StepClassSummary {
  std::string id;
  int members = 0;
  double wall_ms_sum = 0, wall_ms_mean = 0, wall_ms_p50 = 0, wall_ms_p90 = 0;
  double head_ratio_mean = 0, main_ratio_mean = 0, tail_ratio_mean = 0, bubble_ratio_mean = 0;
  std::vector<std::pair<std::string, double>> top_layer_classes;  // (class, wall ms)
  std::vector<std::pair<uint32_t, double>> top_ops;                // (name, total us)
};

struct LayerClassSummary {
  std::string id;
  int members = 0;
  bool companion_layer = false;
  std::vector<BlockKind> block_kinds;
  std::vector<double> block_kind_wall_share_mean;  // parallel to block_kinds
  double wall_ms_sum = 0, wall_ms_mean = 0, wall_ms_p50 = 0, wall_ms_p90 = 0;
  std::vector<std::pair<uint32_t, double>> top_ops;
};

struct BlockSummary {
  uint32_t block = 0;  // index into AnalysisResult::blocks
  double wall_ms = 0;
  double comm_share = 0;  // HCCL + mix_comm_aiv time / wall
  PipeSums pipe_sums{};
  BoundInfo bound;
  std::vector<std::pair<uint32_t, double>> top_ops;  // top-5 (name, total us)
};

struct BlockClassSummary {
  std::string id;
  BlockKind kind = BlockKind::kOther;
  int members = 0;
  double wall_ms_sum = 0, wall_ms_mean = 0, wall_ms_p50 = 0, wall_ms_p90 = 0;
  double comm_share_mean = 0;
  PipeSums pipe_sums{};
  BoundInfo bound;
  std::map<std::string, int> bound_family_member_histogram;
  std::vector<std::pair<uint32_t, double>> top_ops;  // top-10
};

struct RankSummary {
  int rank = -1;
  uint64_t event_count = 0;
  int step_count = 0, complete_step_count = 0;
  double wall_ms_sum = 0, busy_ms_sum = 0, bubble_ms_sum = 0, comm_ms_sum = 0, compute_ms_sum = 0;
  double step_wall_ms_p50 = 0, step_wall_ms_p90 = 0;
  int bubbling_step_count = 0;
  double bubble_recurrence_ratio = 0;  // bubbling complete steps / complete steps
  std::string dominant_idle_pattern;   // prelaunch, tail, internal_bubble, none
  bool recurring_bubble_pattern = false;
  std::array<double, kOpTypeCount> op_type_ms{};  // total event time per op type
  double kernel_coverage = kMissing;  // lowest StepCoverage::coverage of the rank (NaN: nothing to check)
  bool low_confidence = false;        // kernel_coverage below kernel_coverage_min: its KPIs miss work
  std::string event_source;           // RankTable::event_source
  int pp_stage = -1;                   // index of the rank in its pp group (profiler_metadata), -1 unknown
};

// How the collectives of one communication group differ across its ranks (cross_rank).
struct GroupSkew {
  std::string group;          // hash, as in communication.json keys
  std::string pg_name, kind;  // from profiler_metadata.json ("" when the capture does not say)
  int collectives = 0;        // collectives of the group matched across ranks
  double max_skew_ratio = 0;  // largest (max - min) / mean of one of them
  double mean_skew_ratio = 0;
  int last_rank = -1;         // the rank most often shortest (it arrived last), -1 none
  int last_rank_count = 0;
};

// Kernel rows against what the rank's own summaries say (source_check.cc), per step.
struct StepCoverage {
  int rank = -1;
  int64_t step_id = -1;
  double kernel_compute_ms = kMissing, trace_compute_ms = kMissing;  // union of compute events vs "Computing"
  double kernel_comm_ms = kMissing, trace_comm_ms = kMissing;        // union of HCCL events vs "Communication"
  double kernel_wall_ms = kMissing, trace_step_ms = kMissing;        // step wall vs Computing + Comm(Not Overlapped) + Free
  int kernel_hccl_ops = 0, json_hccl_ops = -1;                        // HCCL ops in kernel rows vs communication.json
  double coverage = kMissing;  // the lowest of the ratios above (kernel / summary), NaN when none applies
};

// Communication (communication.json, communication_matrix.json): sums per rank, per rank and
// transport, and per link. NaN where the export gave none of the field ("not provided").
struct CommRankSummary {
  int rank = -1;
  uint64_t ops = 0;  // collective ops (the time split leaves p2p out: a receive waits for its pipeline stage)
  double elapse_ms = kMissing, transit_ms = kMissing, wait_ms = kMissing, sync_ms = kMissing, idle_ms = kMissing;
  double wait_ratio = kMissing;  // wait / (wait + transit) over the rank's ops
  double sync_ratio = kMissing;  // sync / (sync + transit)
};

struct CommTransportSummary {
  int rank = -1;
  std::string transport;
  uint64_t ops = 0;
  double size_mb = 0, time_ms = 0;
  double bandwidth_gbps = kMissing;           // size / time (MB/ms = GB/s)
  double small_packet_time_share = kMissing;  // of the "Size Distribution" time; NaN without one
  double small_packet_count = 0;
};

struct CommLinkSummary {
  std::string group;
  int src = -1, dst = -1;  // ranks local to the group
  std::string transport;
  int reported_by = -1;    // the rank whose communication_matrix.json lists it
  int src_global = -1, dst_global = -1;  // global ranks through the group's parallel_group_info, -1 unknown
  uint64_t entries = 0;    // op (or op class "-total") entries summed
  double size_mb = 0, time_ms = 0;
  double bandwidth_gbps = kMissing;
};

// Device memory of one rank (memory.h), from memory_record.csv / operator_memory.csv or the db
// layout's MEMORY_RECORD / OP_MEMORY tables.
struct LiveAllocation {
  std::string name;       // "aten::empty_strided"
  double size_mb = 0;
  uint64_t row = 0;       // line in operator_memory.csv (rowid in the db)
};

struct ComponentMemory {
  std::string component;  // "PTA", "APP", ...
  double peak_reserved_mb = kMissing, peak_allocated_mb = kMissing;
  int64_t peak_rel_ns = 0;  // when the reserved peak was reached, rank-relative
  int64_t peak_step_id = -1;
  uint64_t peak_row = 0;    // line in memory_record.csv
};

struct MemoryPoint {
  int64_t rel_ns = 0;  // rank-relative
  double reserved_mb = kMissing, allocated_mb = kMissing;
};

struct RankMemory {
  int rank = -1;
  std::string memory_record, operator_memory;  // paths ("" when absent)
  std::vector<ComponentMemory> components;      // by peak reserved, largest first
  // Allocations live at the reserved peak of the largest component that reports allocated
  // memory (live_component), largest first (at most 5).
  std::vector<LiveAllocation> live_at_peak;
  std::string live_component;
  // The allocator component's reserved and allocated MB over time (the component of the peak:
  // the first that reports allocated memory, else the largest), in time order, cut to at most
  // kMemoryTimelinePoints points that keep each time bucket's largest reserved sample.
  std::string timeline_component;
  std::vector<MemoryPoint> timeline;
};
inline constexpr size_t kMemoryTimelinePoints = 400;

struct Summaries {
  std::vector<OperatorSummary> operators;        // sorted by rank, then total desc
  std::vector<OperatorClassSummary> operator_classes;  // sorted by duration_sum desc
  std::vector<HcclSummary> hccl;
  std::vector<HcclClassSummary> hccl_classes;
  std::vector<StepClassSummary> step_classes;
  std::vector<LayerClassSummary> layer_classes;
  std::vector<BlockSummary> blocks;
  std::vector<BlockClassSummary> block_classes;
  std::vector<RankSummary> ranks;
  std::vector<StepCoverage> coverage;           // ranks with kernel rows and step_trace_time / communication.json
  std::vector<CommRankSummary> comm_ranks;      // ranks with communication.json
  std::vector<CommTransportSummary> comm_transports;
  std::vector<CommLinkSummary> comm_links;      // from communication_matrix.json
  std::vector<ParallelGroup> groups;            // parallel groups (profiler_metadata.json), by hash
  std::vector<RankMemory> memory;               // ranks whose export records device memory
  // Pipeline coverage: events / operators with any pipeline data.
  uint64_t events_with_pipeline = 0, events_total = 0;
  uint64_t operators_with_pipeline = 0, operators_total = 0;
};

}  // namespace optrace::analyze
