// NormalizeRank: one rank's event table from its kernel export (kernel_details_csv.cc, torch_db.cc)
// and its side files (communication_json.cc, step_trace.cc, metadata.cc, trace_view.cc), devices of
// a per-node export split into ranks.
#include "analyze/read/normalize.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "analyze/read/json_file.h"
#include "analyze/read/process_identity.h"
#include "core/csv_reader.h"
#include "core/parallel_for.h"
#include "core/file_io.h"

namespace optrace::analyze {
namespace {

using nlohmann::json;

// Each event to the step whose host window holds its start; an event between two windows to the
// one before. Before the first window or after the last: no step (the capture's edges).
void AssignStepsFromMarkers(RankTable& t) {
  if (t.step_markers.empty()) return;
  std::vector<StepMarker> m = t.step_markers;
  std::sort(m.begin(), m.end(), [](const StepMarker& a, const StepMarker& b) { return a.start_ns < b.start_ns; });
  // The first marker (by start) whose [start, end] holds the event start: among the markers
  // starting at or before it, the first whose end reaches it, found on the running maximum of
  // the ends (it rises exactly at such markers) in log time, not by a scan per event.
  std::vector<int64_t> max_end(m.size());
  for (size_t i = 0; i < m.size(); ++i) max_end[i] = std::max(m[i].end_ns, i ? max_end[i - 1] : INT64_MIN);
  for (Event& e : t.events) {
    auto started = std::upper_bound(m.begin(), m.end(), e.start_ns,
                                    [](int64_t s, const StepMarker& x) { return s < x.start_ns; });
    size_t j = static_cast<size_t>(std::lower_bound(max_end.begin(), max_end.end(), e.start_ns) - max_end.begin());
    if (j < static_cast<size_t>(started - m.begin())) {
      e.step_id = EventStepId(m[j].step_id);
    } else if (started != m.begin() && started != m.end()) {
      // Between one host step's end and the next one's start: the device runs behind the host,
      // and work launched in a step can start after the step's host window closed. It belongs
      // to the step before (the next one has not started launching), not to no step.
      e.step_id = EventStepId(std::prev(started)->step_id);
    }
  }
}

// A rank without kernel rows: its HCCL ops from communication.json become communication events
// (name, start, elapse), so its collectives are matched with the other ranks' kernel rows.
void EventsFromCommunication(const std::filesystem::path& path, StringTable& strings, RankTable& t) {
  bool any = false;
  uint32_t row = 0;
  for (const CommOp& op : t.comm_ops) {
    ++row;
    if (op.start_ns < 0 || IsMissing(op.elapse_ms) || op.elapse_ms < 0) continue;
    if (!any) {
      t.files.push_back({path.string(), ""});
      any = true;
    }
    Event e;
    e.start_ns = op.start_ns;
    e.dur_ns = static_cast<int64_t>(std::llround(op.elapse_ms * 1e6));
    e.wait = IsMissing(op.wait_ms) ? kNoWait : PackWait(std::llround(op.wait_ms * 1e6), t.long_waits);
    e.name = strings.Intern(op.name);
    e.core = strings.Intern("HCCL");
    e.op_type = OpType::kCommunication;
    e.step_id = EventStepId(StepOfCommKey(op.step));
    e.file = static_cast<uint16_t>(t.files.size() - 1);
    e.row = row;  // the op's position in communication.json
    t.events.push_back(e);
  }
  t.event_source = any ? "communication.json" : "";
}

}  // namespace


Result<RankTable> NormalizeRank(const RankInput& in, const Rules& rules, StringTable& strings,
                                std::vector<DataIssue>& issues, const ParallelRead& parallel) {
  RankTable t;
  t.rank = in.rank;
  t.kind = in.kind;
  t.dir = in.dir.string();
  t.node = in.dir.filename().string();
  if (!in.has_kernel_data()) {
    t.event_source = "";
  } else if (in.kind == InputKind::kTorchDb) {
    OPTRACE_RETURN_IF_ERROR(ReadTorchDb(in.db, rules, strings, t, issues));
    AssignStepsFromMarkers(t);  // STEP_TIME ranges, torch_npu's rule
  } else {
    OPTRACE_RETURN_IF_ERROR(ReadKernelCsv(in.kernel_details, rules, strings, t, issues, parallel));
    for (const std::filesystem::path& slice : in.kernel_slices)
      OPTRACE_RETURN_IF_ERROR(ReadKernelCsv(slice, rules, strings, t, issues, parallel));
  }
  ReadProcessIdentity(in.dir, in.trace_view, t.identity.process);
  if (!t.identity.process.conflict.empty())
    AddIssue(issues, "process_identity_conflict", "info",
             "files of one rank name different hosts or processes: " + t.identity.process.conflict, t.dir);
  if (!in.profiler_info.empty()) OPTRACE_RETURN_IF_ERROR(ReadProfilerInfo(in.profiler_info, t));
  if (!in.profiler_metadata.empty()) OPTRACE_RETURN_IF_ERROR(ReadProfilerMetadata(in.profiler_metadata, t));
  if (!in.communication.empty()) OPTRACE_RETURN_IF_ERROR(ReadCommunicationJson(in.communication, t));
  if (!in.communication_matrix.empty())
    OPTRACE_RETURN_IF_ERROR(ReadCommunicationMatrixJson(in.communication_matrix, t));
  if (in.communication.empty() && in.communication_matrix.empty() && !in.analysis_db.empty())
    OPTRACE_RETURN_IF_ERROR(ReadAnalysisDbCommunication(in.analysis_db, t));
  if (!in.step_trace_time.empty()) OPTRACE_RETURN_IF_ERROR(ReadStepTraceCsv(in.step_trace_time, t));
  else if (!in.analysis_db.empty()) OPTRACE_RETURN_IF_ERROR(ReadAnalysisDbStepTrace(in.analysis_db, t));
  if (!in.api_statistic.empty()) OPTRACE_RETURN_IF_ERROR(ReadApiStatisticCsv(in.api_statistic, t));
  if (!in.has_kernel_data()) {
    if (!in.trace_view.empty()) {
      OPTRACE_RETURN_IF_ERROR(ReadTraceViewDeviceTasks(in.trace_view, rules, strings, t));
      t.event_source = t.events.empty() ? "" : "trace_view.json";
      AssignStepsFromMarkers(t);
    }
    if (t.events.empty()) EventsFromCommunication(in.communication, strings, t);
    if (t.events.empty()) return t;  // step_trace_time.csv only: cross_rank reads its rows
  }
  bool have_steps = std::any_of(t.events.begin(), t.events.end(), [](const Event& e) { return e.step_id >= 0; });
  if (!have_steps && t.step_markers.empty() && !in.trace_view.empty()) {
    OPTRACE_RETURN_IF_ERROR(ReadTraceViewSteps(in.trace_view, t));
    AssignStepsFromMarkers(t);
  }
  if (t.events.empty()) {
    AddIssue(issues, "rank_without_events", "data_loss", "a rank's kernel export holds no rows", t.dir);
    return t;
  }
  int64_t base = INT64_MAX;
  for (const Event& e : t.events) base = std::min(base, e.start_ns);
  t.base_ns = base;
  for (Event& e : t.events) e.start_ns -= base;
  for (StepMarker& m : t.step_markers) {
    m.start_ns -= base;
    m.end_ns -= base;
  }
  for (CommOp& c : t.comm_ops)
    if (c.start_ns >= 0) c.start_ns -= base;
  auto by_time = [](const Event& a, const Event& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : (a.file != b.file ? a.file < b.file : a.row < b.row);
  };
  // Exports are usually in time order already; a stable_sort would allocate a second copy of
  // the whole event table (the peak memory of a large capture) just to find that out.
  if (!std::is_sorted(t.events.begin(), t.events.end(), by_time)) {
    std::stable_sort(t.events.begin(), t.events.end(), by_time);
  }
  return t;
}

Result<std::vector<RankTable>> NormalizeRanks(const std::vector<RankInput>& inputs, const Rules& rules,
                                              StringTable& strings, std::vector<DataIssue>& issues, int threads) {
  std::vector<RankTable> out;
  out.reserve(inputs.size());
  if (inputs.size() <= 1 || threads <= 1) {
    for (const RankInput& in : inputs) {
      OPTRACE_ASSIGN_OR_RETURN(RankTable t, NormalizeRank(in, rules, strings, issues, ParallelRead{threads}));
      out.push_back(std::move(t));
    }
    return out;
  }
  // Ranks in parallel, each with its own strings and issues; merged in rank order below.
  struct Local {
    StringTable strings;
    std::vector<DataIssue> issues;
    std::optional<Result<RankTable>> table;
  };
  std::vector<Local> local(inputs.size());
  // Fewer ranks than threads: the rest of the threads split each rank's files.
  const int per_rank = std::max(1, threads / static_cast<int>(inputs.size()));
  ParallelFor(inputs.size(), threads, [&](size_t i) {
    local[i].table.emplace(NormalizeRank(inputs[i], rules, local[i].strings, local[i].issues, ParallelRead{per_rank}));
  });
  for (Local& l : local) {
    if (!l.table->ok()) return l.table->status();
    RankTable t = std::move(*l.table).value();
    const std::vector<uint32_t> ids = MergeStrings(l.strings, strings);
    for (Event& e : t.events) RemapStrings(e, ids);
    for (const DataIssue& i : l.issues) AddIssue(issues, i.name, i.severity, i.description, i.example, i.count);
    out.push_back(std::move(t));
    l = Local{};
  }
  return out;
}

std::vector<RankTable> SplitDevices(RankTable t) {
  std::map<int, size_t> devices;
  // Nearly always one device: check that in a plain loop before building the map.
  const int8_t first = t.events.empty() ? int8_t{-1} : t.events[0].device;
  if (std::any_of(t.events.begin(), t.events.end(), [&](const Event& e) { return e.device != first; }))
    for (const Event& e : t.events) devices.emplace(e.device, 0);
  else if (!t.events.empty())
    devices.emplace(first, 0);
  std::vector<RankTable> out;
  if (devices.size() <= 1) {
    // Tasks without a device id keep the one the export states elsewhere (db RANK_DEVICE_MAP).
    if (!devices.empty() && devices.begin()->first >= 0) t.device_id = devices.begin()->first;
    out.push_back(std::move(t));
    return out;
  }
  for (auto& [device, index] : devices) {
    index = out.size();
    RankTable part;
    part.rank = t.rank;
    part.kind = t.kind;
    part.event_source = t.event_source;
    part.node = t.node;
    part.device_id = device;
    part.dir = t.dir;
    part.files = t.files;
    part.identity = t.identity;
    part.base_ns = -1;
    out.push_back(std::move(part));
  }
  for (Event& e : t.events) {
    RankTable& part = out[devices[e.device]];
    if (e.pipe != kNone32) {
      PipelineFields p = t.pipes.Wide(e.pipe);
      for (uint32_t& v : p.packed) v = RepackDecimal(v, t.pipe_overflow, part.pipe_overflow);
      e.pipe = part.pipes.Add(p);
    }
    e.wait = RepackWait(e.wait, t.long_waits, part.long_waits);
    if (part.base_ns < 0) part.base_ns = e.start_ns;  // events are sorted: the first is the earliest
    part.events.push_back(e);
  }
  for (RankTable& part : out) {
    int64_t shift = part.base_ns;
    for (Event& e : part.events) e.start_ns -= shift;
    part.base_ns = t.base_ns + shift;
  }
  return out;
}

int MsprofDeviceRankId(const std::filesystem::path& prof_dir, int device_id) {
  if (device_id < 0) return -1;
  std::error_code ec;
  std::filesystem::path dev = prof_dir / ("device_" + std::to_string(device_id));
  for (const auto& e : std::filesystem::directory_iterator(dev, ec)) {
    if (e.path().filename().string().rfind("info.json", 0) != 0) continue;
    auto text = ReadFileToString(e.path());
    if (!text.ok()) continue;
    json j = json::parse(*text, nullptr, false);
    if (!j.is_object()) continue;
    for (const char* key : {"rank_id", "rankId"}) {
      if (!j.contains(key)) continue;
      const json& v = j[key];
      if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < (1 << 24)) return v.get<int>();
      if (v.is_string()) {
        auto n = ParseCsvInt(v.get<std::string>());
        if (n && *n >= 0 && *n < (1 << 24)) return static_cast<int>(*n);
      }
    }
  }
  return -1;
}

}  // namespace optrace::analyze
