// The normalize stage's part of the model: one event table per rank (the 72-byte Event, its
// pipeline fields, the rank's side files: step_trace, communication, metadata).
#pragma once

#include "analyze/model/inputs.h"
#include "analyze/model/pipes.h"

namespace optrace::analyze {

enum class OpType : uint8_t { kAic, kAiv, kMixCv, kMixCommAiv, kCommunication, kAicpu, kDsa, kUnknown };
inline constexpr int kOpTypeCount = 8;
std::string_view OpTypeName(OpType t);
std::optional<OpType> ParseOpType(std::string_view name);
// Communication, or a fused communication + AIV kernel: what the compute unions leave out.
inline bool IsComm(OpType t) { return t == OpType::kCommunication || t == OpType::kMixCommAiv; }

inline constexpr uint32_t kNone32 = 0xffffffffu;

// "Wait Time(us)" of an event in 4 bytes (Event::wait): a wait below 2^31 ns (2.1 s) as it is, a
// longer one as the index of its value in RankTable::long_waits with kLongWait set, kNoWait when
// the export has none or gives a negative one (every output shows those alike). Read it through
// RankTable::WaitNs.
inline constexpr uint32_t kNoWait = 0xffffffffu;
inline constexpr uint32_t kLongWait = 0x80000000u;
inline uint32_t PackWait(int64_t ns, std::vector<int64_t>& long_waits) {
  if (ns < 0) return kNoWait;
  if (ns < int64_t{kLongWait}) return static_cast<uint32_t>(ns);
  if (long_waits.size() >= kLongWait - 1) return kNoWait;  // 2^31 long waits: beyond any capture
  long_waits.push_back(ns);
  return kLongWait | static_cast<uint32_t>(long_waits.size() - 1);
}
inline bool IsLongWait(uint32_t w) { return w != kNoWait && (w & kLongWait) != 0; }
// A packed wait moved from one table's long waits to another's.
inline uint32_t RepackWait(uint32_t w, const std::vector<int64_t>& from, std::vector<int64_t>& to) {
  return IsLongWait(w) ? PackWait(from[w & ~kLongWait], to) : w;
}

// One device task (kernel, communication big op, AI CPU op, DSA op). 72 bytes: a capture holds
// millions of these (the layout is the stage file's too).
struct Event {
  int64_t start_ns = 0;  // relative to RankTable::base_ns
  int64_t dur_ns = 0;
  uint32_t wait = kNoWait;  // "Wait Time(us)", packed (PackWait): read it with RankTable::WaitNs
  uint32_t name = 0;     // interned "Name"
  uint32_t type = 0;     // interned "Type" (op type string, "MatMulV2"; "" when N/A)
  uint32_t core = 0;     // interned "Accelerator Core" value ("AI_CORE", "HCCL", "" when N/A)
  uint32_t input_shapes = 0;   // interned, outer quotes removed; 0 when missing
  uint32_t output_shapes = 0;
  uint32_t input_dtypes = 0;
  int32_t step_id = -1;  // "Step Id" (or db STEP_TIME id), -1 when none or out of range
  int32_t stream_id = -1;
  int32_t task_id = -1;
  int32_t block_dim = -1;  // ("Mix Block Dim" is not kept: no output reads it)
  OpType op_type = OpType::kUnknown;
  int8_t device = -1;         // "Device_id" of the row (0..127), -1 when the export has none
  uint16_t file = 0;          // index into RankTable::files
  uint32_t row = 0;           // provenance: 1-based line in the CSV, or rowid in the db table
  uint32_t pipe = kNone32;    // index into RankTable::pipes, kNone32 when no pipeline data
  int64_t end_ns() const { return start_ns + dur_ns; }
};
// A step id as an event keeps it: -1 when negative or beyond int32 (no real step count is).
inline int32_t EventStepId(int64_t id) { return id >= 0 && id <= INT32_MAX ? static_cast<int32_t>(id) : -1; }
static_assert(sizeof(Event) == 72, "Event is stored by the million: keep it at 72 bytes");

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

// A row of api_statistic.csv: one host API over the whole capture (times in us).
struct ApiStat {
  std::string level;  // acl, hccl, runtime, node, ...
  std::string name;   // aclopCompileAndExecute, aclrtSynchronizeStreamWithTimeout, ...
  double time_us = kMissing;
  int64_t count = 0;
  uint32_t row = 0;   // line in the file
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

// One HCCL operator's SDMA copies (Memcpy / Reduce_Inline tasks over a link other than ON_CHIP,
// above the minimum size) on one rank, summed over its calls: the sizes msprof-analyze's advisor
// checks for 512-byte alignment (a copy whose size is not a multiple runs slower). From a db
// export's COMMUNICATION_TASK_INFO; text exports do not carry per-task sizes.
struct SdmaOpAlignment {
  std::string op;                 // the communication operator's name ("hcom_allReduce__...")
  uint32_t calls = 0, unaligned_calls = 0;  // op instances; those with an unaligned copy
  uint32_t tasks = 0, unaligned_tasks = 0;
  int64_t bytes = 0, dur_ns = 0, unaligned_dur_ns = 0;
  int64_t unaligned_example_bytes = 0;  // the size of one unaligned copy
};

// Who recorded a rank (read/process_identity.h says from where): "" / -1 when no file says it.
struct ProcessIdentity {
  std::string hostname, hostname_from;
  int64_t pid = -1;
  std::string pid_from;
  bool inferred = false;  // a value came from the folder name only
  std::string conflict;   // "pid 12 (trace_view.json) against 13 (info.json)", "" when none
};

struct RankIdentity {
  std::string profiler_level;   // "Level0".."Level2"
  std::string aic_metrics;
  std::string torch_npu_version;
  std::string cann_version;
  std::string device_name;      // NPU_INFO name where known
  std::vector<std::string> csv_columns;  // header of kernel_details / op_summary
  ProcessIdentity process;
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
  PipeStore pipes;                     // Event::pipe indexes its rows
  std::vector<double> pipe_overflow;   // pipeline values that do not pack (negative, long digit strings)
  std::vector<int64_t> long_waits;     // waits of 2^31 ns and more (Event::wait)
  std::vector<SourceFile> files;
  std::vector<StepMarker> step_markers;
  std::vector<StepTraceRow> step_trace;
  std::vector<ApiStat> api_stats;        // api_statistic.csv (text exports)
  std::string api_statistic;             // its path, for evidence
  std::vector<CommOp> comm_ops;
  std::vector<CommMatrixLink> comm_matrix;  // communication_matrix.json
  std::vector<ParallelGroup> parallel_groups;  // profiler_metadata.json parallel_group_info
  std::vector<SdmaOpAlignment> sdma_alignment;  // db exports: per communication operator, by name
  RankIdentity identity;
  int64_t AbsNs(int64_t rel) const { return base_ns + rel; }
  // The event's wait in ns, -1 when missing.
  int64_t WaitNs(const Event& e) const {
    if (e.wait == kNoWait) return -1;
    return IsLongWait(e.wait) ? long_waits[e.wait & ~kLongWait] : int64_t{e.wait};
  }
  std::optional<PipeView> PipeOf(const Event& e) const {
    if (e.pipe == kNone32) return std::nullopt;
    return pipes.View(e.pipe);
  }
  // Field `field` (an index into kPipeSumFields) of `p`: NaN when missing.
  double PipeValue(const PipeView& p, int field) const { return UnpackDecimal(p.Packed(field), pipe_overflow); }
  double PipeValue(const PipeView& p, Pipe pipe) const {
    int i = StoredPipeIndex(pipe);
    return i < 0 ? kMissing : PipeValue(p, i);
  }
  // Sets a kept field of `p` (a row about to be added to this table's pipes) to `v`.
  void SetPipe(PipelineFields& p, Pipe pipe, double v) {
    int i = StoredPipeIndex(pipe);
    if (i >= 0) p.packed[i] = PackDecimalValue(v, pipe_overflow);
  }
};

}  // namespace optrace::analyze
