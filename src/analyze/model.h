// The analysis model: what every stage of `optrace analyze` produces and every writer consumes.
//
//   AnalyzeOptions opt;
//   opt.roots = {"prof_root"};
//   opt.out_dir = "out";                    // stages/ is written under it when persist_stages
//   OPTRACE_ASSIGN_OR_RETURN(AnalysisResult r, RunAnalysis(opt));
//   for (const Finding& f : r.findings) ...  // id, severity, type, summary, numbers, evidence
//
// Stages, in order: discover, normalize, segment, classify, summarize, cross_rank, diagnose
// (report is the writers' business). Each stage fills its part of AnalysisResult; each can be
// persisted to OUT/stages/<stage>.bin and reloaded (from/to/only in AnalyzeOptions).
//
// Times: int64 nanoseconds relative to the rank's base (RankTable::base_ns is the absolute
// Unix-epoch ns of time 0), so that events of one rank compare exactly. Cross-rank comparisons
// add the base back (AbsNs). Missing numbers are NaN (pipeline fields) or -1 (ids, gaps), never 0.
// Strings (operator names, types, shapes) are interned once for the whole analysis: an id
// compares equal across ranks.
//
// This header holds data only; the stages live in discover.h, normalize.h, segment.h,
// classify.h, summarize.h, cross_rank.h, diagnose.h and pipeline.h.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/packed_decimal.h"

namespace optrace::analyze {

inline constexpr int kModelSchemaVersion = 1;
inline constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
inline bool IsMissing(double v) { return std::isnan(v); }

// ---------------------------------------------------------------------------------------------
// Interned strings shared by all ranks.
class StringTable {
 public:
  StringTable() { Intern(""); }  // id 0 is the empty string ("missing")
  uint32_t Intern(std::string_view s);
  const std::string& Get(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  const std::vector<std::string>& strings() const { return strings_; }
  void Assign(std::vector<std::string> strings);  // used when reloading a stage file

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
};

// ---------------------------------------------------------------------------------------------
// Inputs (discover).

enum class InputKind : uint8_t {
  kTorchText,  // *_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv (+ trace_view.json, ...)
  kTorchDb,    // ascend_pytorch_profiler_<rank>.db
  kMsprof,     // PROF_*/mindstudio_profiler_output/op_summary_*.csv
};
std::string_view InputKindName(InputKind k);

// One rank's input files as found on disk. Paths are absolute.
struct RankInput {
  int rank = -1;
  std::string rank_source;  // how the rank id was decided: "profiler_info_3.json", "rank_id", "RANK_DEVICE_MAP", "order"
  InputKind kind = InputKind::kTorchText;
  std::filesystem::path dir;  // the *_ascend_pt or PROF_* directory
  std::filesystem::path kernel_details;  // kernel_details.csv or op_summary_*.csv (empty for db)
  std::vector<std::filesystem::path> kernel_slices;  // further slices of a sliced op_summary (_2, _3, ...)
  std::filesystem::path db;              // ascend_pytorch_profiler_<rank>.db
  std::filesystem::path trace_view;
  std::filesystem::path communication;
  std::filesystem::path communication_matrix;
  std::filesystem::path step_trace_time;
  std::filesystem::path op_statistic;
  std::filesystem::path profiler_info;
  std::filesystem::path profiler_metadata;
  std::filesystem::path analysis_db;     // db export: communication tables (CommAnalyzerTime, ...)
  bool has_kernel_data() const { return !kernel_details.empty() || !db.empty(); }
  // Without kernel rows a rank still takes part with its step and communication summaries.
  bool has_partial_data() const { return !step_trace_time.empty() || !communication.empty() || !trace_view.empty(); }
};

struct Discovery {
  std::vector<std::filesystem::path> roots;  // absolute; --from-stage refuses stage files of other roots
  std::string rules_fingerprint;             // Rules::fingerprint of the run that discovered (same check)
  int run = 0;                               // --run N when the roots held several captures (0: not given)
  int capture_count = 0;                     // captures found under the roots
  std::string capture;                       // the analyzed capture, described (capture.h)
  std::vector<RankInput> ranks;             // with kernel data or partial data (has_partial_data), sorted by rank
  std::vector<RankInput> ranks_without_kernels;  // seen (profiler_info, ...) with nothing to analyze
};

// ---------------------------------------------------------------------------------------------
// normalize: one event table per rank.

enum class OpType : uint8_t { kAic, kAiv, kMixCv, kMixCommAiv, kCommunication, kAicpu, kDsa, kUnknown };
inline constexpr int kOpTypeCount = 8;
std::string_view OpTypeName(OpType t);
std::optional<OpType> ParseOpType(std::string_view name);
// Communication, or a fused communication + AIV kernel: what the compute unions leave out.
inline bool IsComm(OpType t) { return t == OpType::kCommunication || t == OpType::kMixCommAiv; }

// Pipeline (PMU PipeUtilization) fields of kernel_details / op_summary / TASK_PMU_INFO. Times in
// microseconds as the CSV writes them; ratios 0..1. Missing = NaN.
enum class Pipe : uint8_t {
  kAicoreTime, kAicTotalCycles, kAicMacTime, kAicMacRatio, kAicScalarTime, kAicScalarRatio,
  kAicMte1Time, kAicMte1Ratio, kAicMte2Time, kAicMte2Ratio, kAicFixpipeTime, kAicFixpipeRatio,
  kAicIcacheMissRate,
  kAivTime, kAivTotalCycles, kAivVecTime, kAivVecRatio, kAivScalarTime, kAivScalarRatio,
  kAivMte2Time, kAivMte2Ratio, kAivMte3Time, kAivMte3Ratio, kAivIcacheMissRate,
  kCubeUtilization,
  kCount
};
inline constexpr int kPipeCount = static_cast<int>(Pipe::kCount);
// The kernel_details column name of a field ("aic_mac_time(us)"), and the db TASK_PMU_INFO name.
std::string_view PipeColumnName(Pipe p);
std::string_view PipeDbName(Pipe p);   // "aic_mac_time" ("" when the db has no such metric)
std::string_view PipeShortName(Pipe p);  // "aic_mac_time" — the CSV column name in our outputs

// The pipeline fields an event keeps: the 11 stage times (us) the summaries add up and the bound
// classification reads. The other columns of the export (ratios, cycles, icache miss rates) are
// derived from these or unused, and are not materialised.
inline constexpr std::array<Pipe, 11> kPipeSumFields = {
    Pipe::kAicoreTime, Pipe::kAivTime, Pipe::kAicMacTime, Pipe::kAicFixpipeTime, Pipe::kAicMte1Time,
    Pipe::kAicMte2Time, Pipe::kAicScalarTime, Pipe::kAivVecTime, Pipe::kAivMte2Time, Pipe::kAivMte3Time,
    Pipe::kAivScalarTime};
inline constexpr int kStoredPipeCount = static_cast<int>(kPipeSumFields.size());
// Index of `p` in kPipeSumFields, -1 when it is not kept.
constexpr int StoredPipeIndex(Pipe p) {
  for (int i = 0; i < kStoredPipeCount; ++i)
    if (kPipeSumFields[i] == p) return i;
  return -1;
}

// One event's kept pipeline fields as packed decimals (core/packed_decimal.h: 4 bytes a field,
// the exact double the export's text gives; NaN when missing). Values that do not pack sit in
// RankTable::pipe_overflow, so a value is read through its table: RankTable::PipeValue.
// An operator's "OP State" column (Level1/2 kernel_details, op_summary): whether it was compiled
// for a dynamic shape. It rides with the pipeline fields, which the same exports carry.
enum class OpState : uint8_t { kUnknown, kDynamic, kStatic };

struct PipelineFields {
  std::array<uint32_t, kStoredPipeCount> packed;
  OpState op_state = OpState::kUnknown;
  uint8_t reserved[3] = {};  // explicit: the struct is written to stage files as bytes
  PipelineFields() { packed.fill(kPackedMissing); }
  bool Has(int field) const { return packed[field] != kPackedMissing; }
  // Whether any pipeline field is present (a row may carry only the OP State).
  bool AnyPipe() const {
    for (uint32_t v : packed)
      if (v != kPackedMissing) return true;
    return false;
  }
};

inline constexpr uint32_t kNone32 = 0xffffffffu;

// One device task (kernel, communication big op, AI CPU op, DSA op). 80 bytes: a capture holds
// millions of these (the layout is the stage file's too).
struct Event {
  int64_t start_ns = 0;  // relative to RankTable::base_ns
  int64_t dur_ns = 0;
  int64_t wait_ns = -1;  // "Wait Time(us)", -1 when missing
  uint32_t name = 0;     // interned "Name"
  uint32_t type = 0;     // interned "Type" (op type string, "MatMulV2"; "" when N/A)
  uint32_t core = 0;     // interned "Accelerator Core" value ("AI_CORE", "HCCL", "" when N/A)
  uint32_t input_shapes = 0;   // interned, outer quotes removed; 0 when missing
  uint32_t output_shapes = 0;
  uint32_t input_dtypes = 0;
  int32_t step_id = -1;  // "Step Id" (or db STEP_TIME id), -1 when none or out of range
  int32_t stream_id = -1;
  int32_t task_id = -1;
  int32_t block_dim = -1;
  int32_t mix_block_dim = -1;
  OpType op_type = OpType::kUnknown;
  int8_t device = -1;         // "Device_id" of the row (0..127), -1 when the export has none
  uint16_t file = 0;          // index into RankTable::files
  uint32_t row = 0;           // provenance: 1-based line in the CSV, or rowid in the db table
  uint32_t pipe = kNone32;    // index into RankTable::pipes, kNone32 when no pipeline data
  int64_t end_ns() const { return start_ns + dur_ns; }
};
// A step id as an event keeps it: -1 when negative or beyond int32 (no real step count is).
inline int32_t EventStepId(int64_t id) { return id >= 0 && id <= INT32_MAX ? static_cast<int32_t>(id) : -1; }
static_assert(sizeof(Event) == 80, "Event is stored by the million: keep it at 80 bytes");

// A file an event came from (provenance).
struct SourceFile {
  std::string path;   // absolute path
  std::string table;  // db table ("TASK", "COMMUNICATION_OP") or "" for CSV
};

// A step window from ProfilerStep markers (trace_view), db STEP_TIME, or step_trace_time.csv.
struct StepMarker {
  int64_t step_id = -1;
  int64_t start_ns = 0;  // rank-relative
  int64_t end_ns = 0;
  std::string source;    // "trace_view.json", "STEP_TIME", ...
};

// A row of step_trace_time.csv (all microseconds; NaN when absent).
struct StepTraceRow {
  int64_t step_id = -1;
  double computing_us = kMissing, comm_not_overlapped_us = kMissing, overlapped_us = kMissing,
         communication_us = kMissing, free_us = kMissing, stage_us = kMissing, bubble_us = kMissing,
         preparing_us = kMissing;
};

// A "Size Distribution" bucket of communication.json: transfers of one packet size.
struct CommPacketBucket {
  double packet_mb = 0;
  double count = 0;
  double total_ms = 0;
};

// One transport's part of a communication op ("Communication Bandwidth Info"). NaN when the
// export does not give the field (never 0).
struct CommBandwidth {
  std::string transport;  // RDMA, HCCS, PCIE, SDMA, SIO
  double size_mb = kMissing, time_ms = kMissing, bandwidth_gbps = kMissing, large_packet_ratio = kMissing;
  std::vector<CommPacketBucket> sizes;
};

// A collective/p2p op from communication.json (or analysis.db CommAnalyzerTime). Field meanings
// are the Ascend profiler's (docs/analyze-pipeline.md, communication): elapse = transit + wait +
// idle; wait ratio = wait / (wait + transit); synchronization ratio = sync / (sync + transit).
struct CommOp {
  std::string name;    // "hcom_allReduce__586_0_1"
  std::string group;   // "17522688603477080586"
  std::string step;    // "step50"
  bool p2p = false;
  int64_t start_ns = -1;  // rank-relative; -1 when absent
  double elapse_ms = kMissing, transit_ms = kMissing, wait_ms = kMissing, sync_ms = kMissing,
         idle_ms = kMissing, wait_ratio = kMissing, sync_ratio = kMissing;
  std::vector<CommBandwidth> bandwidth;  // transports with a non-zero size or time
};

// One src -> dst link of communication_matrix.json. src and dst are ranks local to the group
// (FORMATS.md 7.3), not global ranks.
struct CommMatrixLink {
  std::string step;     // "step13"
  std::string key;      // the op ("hcom_broadcast__483_1") or op class ("allreduce-top1", "-total")
  std::string group;
  std::string op_name;  // "Op Name" (the concrete op of a class), "" when absent
  bool p2p = false;
  int src = -1, dst = -1;
  std::string transport;  // LOCAL, HCCS, PCIE, RDMA, SIO
  double size_mb = kMissing, time_ms = kMissing, bandwidth_gbps = kMissing;
};

// A communication group from profiler_metadata.json "parallel_group_info": its HCCL group hash
// (the "@<hash>" of communication.json keys), the framework's process-group name and its ranks.
struct ParallelGroup {
  std::string hash;        // "5862276114690318097": GroupHash of the key
  std::string key;         // "group_name_5" or the HCCL group string
  std::string pg_name;     // "dp_cp", "tp", "pp", "default_group", ...
  std::string kind;        // tp, dp, pp, ep, cp, mp, world, other (ParallelKind)
  std::vector<int> global_ranks;  // sorted: index = the rank local to the group
};

// The HCCL group hash of a group name string (msprof-analyze's double hash, FORMATS.md 7.1):
// (polynomial hash x29 mod 2^32) << 32 | (polynomial hash x131 mod 2^32), as a decimal string.
std::string GroupHash(std::string_view group_name);
// tp / dp / pp / ep / cp / mp / world / other from a process-group name ("dp_cp" -> dp, "default_group" -> world).
std::string ParallelKind(std::string_view pg_name);

struct RankIdentity {
  std::string profiler_level;   // "Level0".."Level2"
  std::string aic_metrics;
  std::string torch_npu_version;
  std::string cann_version;
  std::string device_name;      // NPU_INFO name where known
  std::vector<std::string> csv_columns;  // header of kernel_details / op_summary
};

struct RankTable {
  int rank = -1;
  InputKind kind = InputKind::kTorchText;
  // Where the events came from: "kernels" (kernel_details / db / op_summary: the device timeline),
  // "trace_view.json" (its device tasks: the same timeline), "communication.json" (HCCL ops only),
  // "" (no events: step_trace_time.csv only).
  std::string event_source = "kernels";
  bool has_timeline() const { return event_source == "kernels" || event_source == "trace_view.json"; }
  std::string node;    // the export directory the rank came from (a node's PROF_* for per-node msprof)
  int device_id = -1;  // Device_id of its rows (-1 when the export has none)
  std::string dir;
  int64_t base_ns = 0;                 // absolute Unix ns of relative time 0 (first event start)
  std::vector<Event> events;           // sorted by (start_ns, row)
  std::vector<PipelineFields> pipes;
  std::vector<double> pipe_overflow;   // pipeline values that do not pack (negative, long digit strings)
  std::vector<SourceFile> files;
  std::vector<StepMarker> step_markers;
  std::vector<StepTraceRow> step_trace;
  std::vector<CommOp> comm_ops;
  std::vector<CommMatrixLink> comm_matrix;  // communication_matrix.json
  std::vector<ParallelGroup> parallel_groups;  // profiler_metadata.json parallel_group_info
  RankIdentity identity;
  int64_t AbsNs(int64_t rel) const { return base_ns + rel; }
  const PipelineFields* PipeOf(const Event& e) const { return e.pipe == kNone32 ? nullptr : &pipes[e.pipe]; }
  // Field `field` (an index into kPipeSumFields) of `p`: NaN when missing.
  double PipeValue(const PipelineFields& p, int field) const { return UnpackDecimal(p.packed[field], pipe_overflow); }
  double PipeValue(const PipelineFields& p, Pipe pipe) const {
    int i = StoredPipeIndex(pipe);
    return i < 0 ? kMissing : PipeValue(p, i);
  }
  // Sets a kept field of `p` (a row of this table's pipes, or one about to be) to `v`.
  void SetPipe(PipelineFields& p, Pipe pipe, double v) {
    int i = StoredPipeIndex(pipe);
    if (i >= 0) p.packed[i] = PackDecimalValue(v, pipe_overflow);
  }
};

// ---------------------------------------------------------------------------------------------
// segment + classify.

enum class BlockKind : uint8_t { kAttention, kFfn, kMoe, kCommunication, kAicpu, kOther };
std::string_view BlockKindName(BlockKind k);

// Half-open event index range [first, last) into RankTable::events.
struct EventRange {
  uint32_t first = 0, last = 0;
  uint32_t size() const { return last - first; }
  bool empty() const { return first >= last; }
};

struct StepAnatomy {
  int64_t wall_ns = 0;    // first event start to last event end
  int64_t busy_ns = 0;    // union of event intervals
  int64_t bubble_ns = 0;  // wall - busy
  int64_t head_ns = 0;    // step start to first layer start (0 without layers)
  int64_t main_ns = 0;    // first layer start to last layer end (wall without layers)
  int64_t tail_ns = 0;    // last layer end to step end
  int64_t max_gap_ns = 0;         // largest internal idle gap
  int64_t max_gap_start_ns = -1;  // where it starts (rank-relative)
  uint32_t max_gap_next_event = kNone32;  // index of the event that ends the largest gap
  int bubble_gap_count = 0;       // internal gaps at/above the bubble threshold
  int64_t bubble_gap_ns = 0;      // their total
  bool has_bubble = false;        // bubble_gap_count > 0
};

struct Step {
  int rank = -1;
  int64_t step_id = -1;  // profiler step number; ordinal when the source had none
  std::string step_source;  // "Step Id", "STEP_TIME", "trace_view.json", "step_trace_time.csv", "whole_capture"
  EventRange events;
  int64_t start_ns = 0, end_ns = 0;  // rank-relative, from its events
  bool complete = true;              // false for a capture-edge fragment
  bool partial_capture_boundary = false;
  StepAnatomy anatomy;
  int64_t prelaunch_gap_ns = -1;  // idle before it since the previous step on the rank; -1 unknown
  int64_t tail_gap_ns = -1;       // idle after it until the next step; -1 unknown
  int64_t comm_ns = 0;            // union of communication (and mix_comm_aiv) event time
  int64_t compute_ns = 0;         // union of the other events
  // Communication hidden under compute: |comm ∩ compute| = comm + compute - busy.
  int64_t comm_overlap_ns() const { return std::max<int64_t>(0, comm_ns + compute_ns - anatomy.busy_ns); }
  int64_t exposed_comm_ns() const { return comm_ns - comm_overlap_ns(); }
  std::vector<uint32_t> layers;   // indexes into AnalysisResult::layers
  std::string layer_anchor;       // the anchor rule that cut this step ("" when none matched)
  std::string step_class;         // "S1", ...
  std::vector<std::string> anomaly_tags;  // PRELAUNCH_GAP_HEAVY, TAIL_GAP_HEAVY, PARTIAL_CAPTURE_BOUNDARY, BUBBLE
};

struct Block {
  int rank = -1;
  uint32_t layer = 0;  // index into AnalysisResult::layers
  BlockKind kind = BlockKind::kOther;
  EventRange events;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t block_class = kNone32;  // index into AnalysisResult::block_classes (id "B1", ...)
};

struct Layer {
  int rank = -1;
  uint32_t step = 0;  // index into AnalysisResult::steps
  int index_in_step = 0;
  EventRange events;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t anchor_name = 0;  // interned name of the anchor operator
  bool companion_layer = false;  // no attention block
  // Wall above layer_outlier_ratio x the rank's median layer: it absorbed work that is not a layer
  // (output head, loss, a collective); kept out of layer statistics.
  bool outlier = false;
  std::string absorbed;          // its longest operators: "hcom_allReduce_ 121.0 ms, ..."
  std::vector<uint32_t> blocks;  // indexes into AnalysisResult::blocks
  uint32_t layer_class = kNone32;  // index into AnalysisResult::layer_classes (id "L1", ...)
};

// A class of steps / layers / blocks with exactly the same (name, shape) sequence.
struct ShapeClass {
  std::string id;         // "S1", "L3", "B2"
  std::string signature;  // hex digest of the sequence, or "noshape:<member>" when shapes are missing
  bool has_shapes = true;
  std::vector<uint32_t> members;  // indexes into steps / layers / blocks
};

// ---------------------------------------------------------------------------------------------
// summarize.

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

// ---------------------------------------------------------------------------------------------
// cross_rank.

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

struct CrossRank {
  std::vector<int> ranks;
  std::string alignment_method;  // "step_id", "step_ordinal", "single_rank"
  std::vector<AlignedStep> steps;
  std::vector<AlignedCollective> collectives;
  int tested_collectives = 0;
  std::vector<SlowRankVote> votes;  // sorted by votes desc
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

// ---------------------------------------------------------------------------------------------
// diagnose.

enum class Severity : uint8_t { kInfo, kLow, kMedium, kHigh };
std::string_view SeverityName(Severity s);
// "0-3,5,7": sorted rank ids with runs collapsed.
std::string FormatRankList(std::vector<int> ranks);

struct Evidence {
  std::string file;         // source file ("" for a rank/time-window evidence)
  uint32_t row_first = 0;   // row range in that file (inclusive), 0 when not applicable
  uint32_t row_last = 0;
  int rank = -1;
  int64_t step_id = -1;
  int64_t window_start_ns = -1;  // absolute Unix ns; -1 when not applicable
  int64_t window_end_ns = -1;
  std::string note;         // "collective hcom_allReduce__586_0_1 #0 on rank 5"
};

struct Finding {
  std::string id;      // "F001"
  Severity severity = Severity::kInfo;
  std::string type;    // slow_rank, communication_dominated_step, recurring_bubble_pattern, prelaunch_gap_heavy,
                       // tail_gap_heavy, aicpu_on_critical_path, top_operator, rank_step_skew, compute_imbalance,
                       // collective_rank_skew
  std::string summary; // one sentence
  int rank = -1;       // the rank it is about (-1 for all); for a rolled-up finding the worst rank
  std::vector<int> ranks;  // every rank the pattern was seen on (rolled up: one finding per pattern)
  int64_t step_id = -1;
  std::vector<std::pair<std::string, double>> numbers;  // named values ("votes", 7)
  std::vector<Evidence> evidence;
};

// A data problem: counted, not fatal (the stats table of STYLE.md).
struct DataIssue {
  std::string name;         // "csv_row_unparsable", "rank_without_kernel_data", ...
  std::string severity;     // info, data_loss, error
  std::string description;
  uint64_t count = 0;
  std::string example;      // "file:line" of the first occurrence
};

// ---------------------------------------------------------------------------------------------
// Whole result.

struct StageTiming {
  std::string stage;
  std::string status;  // ran, loaded, skipped
  double seconds = 0;
};

struct Identity {
  std::vector<std::string> roots;
  std::vector<int> ranks;
  std::vector<std::string> input_kinds;  // per rank, same order as ranks
  std::string profiler_level, torch_npu_version, cann_version, device_name;
  uint64_t event_count = 0;
  int step_count = 0, layer_count = 0;
};

struct AnalysisResult {
  int schema_version = kModelSchemaVersion;
  Discovery discovery;
  StringTable strings;
  std::vector<RankTable> ranks;   // sorted by rank id
  std::vector<Step> steps;        // sorted by (rank, start)
  std::vector<Layer> layers;
  std::vector<Block> blocks;
  std::vector<ShapeClass> step_classes, layer_classes, block_classes;
  Summaries summaries;
  CrossRank cross_rank;
  std::vector<Finding> findings;  // sorted by severity desc, then id
  std::vector<DataIssue> issues;
  std::vector<std::string> limitations;  // sentences for the report
  std::vector<StageTiming> timings;
  Identity identity;

  const RankTable* FindRank(int rank) const;
  const std::string& Str(uint32_t id) const { return strings.Get(id); }
};

}  // namespace optrace::analyze
