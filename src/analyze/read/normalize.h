// normalize: one event table per rank from whatever export the rank has.
//
//   OPTRACE_ASSIGN_OR_RETURN(RankTable t, NormalizeRank(discovery.ranks[0], rules, strings, issues));
//
// kernel_details.csv / op_summary_*.csv are streamed (columns by name, FORMATS.md section 2
// quirks); the db export is joined TASK x COMPUTE_TASK_INFO (+ TASK_PMU_INFO) plus
// COMMUNICATION_OP. Side files (communication.json, step_trace_time.csv, trace_view.json step
// markers, profiler_info) fill the rest of the RankTable. Errors name the file and what is wrong:
// a missing required column, malformed JSON (with byte offset), an unreadable db.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"
#include "core/status.h"

namespace optrace::analyze {

// A per-node export (msprof op_summary with a Device_id column holding several devices) as one
// table per device, each with its own time base; a single-device table comes back as it is (with
// device_id set). Ranks are numbered by the caller.
std::vector<RankTable> SplitDevices(RankTable table);

// The "rank_id" msprof records for a device (PROF_*/device_<id>/info.json*), -1 when absent.
int MsprofDeviceRankId(const std::filesystem::path& prof_dir, int device_id);

// How a large file may be read: ranges of at least min_chunk_bytes parsed on up to `threads`
// threads, merged in file order (the same table, string ids and issues as one pass).
struct ParallelRead {
  int threads = 1;
  uint64_t min_chunk_bytes = 8u << 20;
};

Result<RankTable> NormalizeRank(const RankInput& input, const Rules& rules, StringTable& strings,
                                std::vector<DataIssue>& issues, const ParallelRead& parallel = {});

// Every rank of `inputs`, ranks on up to `threads` threads (a single rank: its kernel files in
// ranges on all of them). Strings are interned and issues added in rank order, so the tables, ids
// and issues are those of one rank after another. The first failing rank's error is returned.
Result<std::vector<RankTable>> NormalizeRanks(const std::vector<RankInput>& inputs, const Rules& rules,
                                              StringTable& strings, std::vector<DataIssue>& issues, int threads);

// Per-file readers (exposed for tests and the benchmark). They append to `table`, times absolute.
Status ReadKernelCsv(const std::filesystem::path& path, const Rules& rules, StringTable& strings, RankTable& table,
                     std::vector<DataIssue>& issues, const ParallelRead& parallel = {});
Status ReadTorchDb(const std::filesystem::path& path, const Rules& rules, StringTable& strings, RankTable& table,
                   std::vector<DataIssue>& issues);
Status ReadCommunicationJson(const std::filesystem::path& path, RankTable& table);
// communication.json / communication_matrix.json of a db export: analysis.db CommAnalyzerTime,
// CommAnalyzerBandwidth (one row per packet-size bucket) and CommAnalyzerMatrix.
Status ReadAnalysisDbCommunication(const std::filesystem::path& path, RankTable& table);
Status ReadAnalysisDbStepTrace(const std::filesystem::path& path, RankTable& table);
Status ReadApiStatisticCsv(const std::filesystem::path& path, RankTable& table);
// Links (src-dst, transport, size, time, bandwidth) of every op or op class, "Total Op Info" left out.
Status ReadCommunicationMatrixJson(const std::filesystem::path& path, RankTable& table);
Status ReadStepTraceCsv(const std::filesystem::path& path, RankTable& table);
// ProfilerStep#N markers of a trace_view.json, streamed through a 1 MiB buffer (trace views run
// to GBs; only these few events are kept).
// "step50" -> 50 (communication.json step keys); -1 when the key holds no number.
int64_t StepOfCommKey(const std::string& key);

Status ReadTraceViewSteps(const std::filesystem::path& path, RankTable& table);
// A rank without kernel rows: the device tasks of its trace_view.json (the compute tasks of the
// "Ascend Hardware" process and the hcom_ ops of the "HCCL" process) as events, plus its markers.
Status ReadTraceViewDeviceTasks(const std::filesystem::path& path, const Rules& rules, StringTable& strings,
                                RankTable& table);
Status ReadProfilerInfo(const std::filesystem::path& path, RankTable& table);

// A host event of trace_view.json (a complete "X" event without a device Task Type).
struct TraceHostEvent {
  std::string process;  // pid, then its process_name ("Python", "CANN", ...) once the file is read
  std::string name, cat;
  int64_t start_ns = 0, dur_ns = 0;  // absolute Unix ns
};
// A flow of trace_view.json that times the launch path: HostToDevice runs from the CANN API call
// that launched a task to the task's start on the device; async_task_queue from torch_npu's
// Enqueue of an operator to its Dequeue by the launch thread.
struct TraceFlow {
  enum Kind : uint8_t { kHostToDevice, kTaskQueue } kind = kHostToDevice;
  int64_t start_ns = -1, finish_ns = -1;  // absolute Unix ns
};
// The host events overlapping any of `windows` (absolute ns [lo, hi], sorted, disjoint) and, with
// `flows`, the complete (both halves present) launch-path flows, in one streamed pass: memory is
// the buffer plus what is kept, whatever the file size.
Status ReadTraceViewHostEvents(const std::filesystem::path& path,
                               const std::vector<std::pair<int64_t, int64_t>>& windows,
                               std::vector<TraceHostEvent>& events, std::vector<TraceFlow>* flows = nullptr);
// The db layout's launch links: CANN_API joined with TASK on connectionId (the API call that
// launched each compute task, COMPUTE_TASK_INFO), as HostToDevice flows; the db keeps no
// task-queue flows. Appends to `flows`; a db without those tables adds nothing (torch_db.cc).
Status ReadDbLaunchFlows(const std::filesystem::path& db, std::vector<TraceFlow>& flows);
// "parallel_group_info" of profiler_metadata.json: group key -> pg name, global ranks (absent: none).
Status ReadProfilerMetadata(const std::filesystem::path& path, RankTable& table);

// "1736405443881410.320\t" (microseconds) -> 1736405443881410320 ns; nullopt when missing.
std::optional<int64_t> ParseUsToNs(std::string_view text);

// Events read with a string table of their own (a range of a file, a rank read on another
// thread) join the analysis's: MergeStrings interns every local string in local id order (the
// order one pass over the input would have given) and returns the new id of each; RemapStrings
// rewrites an event's string ids through that table.
std::vector<uint32_t> MergeStrings(const StringTable& local, StringTable& strings);
void RemapStrings(Event& e, const std::vector<uint32_t>& ids);

// Adds a data issue (`count` occurrences, `example` the first) or bumps the count of an existing
// one with the same name.
void AddIssue(std::vector<DataIssue>& issues, std::string_view name, std::string_view severity,
              std::string_view description, std::string_view example, uint64_t count = 1);

}  // namespace optrace::analyze
