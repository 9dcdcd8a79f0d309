// NormalizeRank and the side files: communication.json, step_trace_time.csv,
// profiler_info_<rank>.json (trace_view.json step markers: trace_view.cc).
#include "analyze/read/normalize.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/csv_reader.h"
#include "core/parallel_for.h"
#include "core/file_io.h"

namespace optrace::analyze {
namespace {

using nlohmann::json;

Result<json> ParseJsonFile(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    return BadInputError("{}: malformed JSON at byte {}: {}; re-export the profiler output", path.string(), e.byte,
                         e.what());
  }
}

double Num(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key)) return kMissing;
  const json& v = o[key];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    auto d = ParseCsvNumber(v.get<std::string>());
    return d ? *d : kMissing;
  }
  return kMissing;
}

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
    if (j < static_cast<size_t>(started - m.begin())) e.step_id = EventStepId(m[j].step_id);
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
    e.wait_ns = IsMissing(op.wait_ms) ? -1 : static_cast<int64_t>(std::llround(op.wait_ms * 1e6));
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

int64_t StepOfCommKey(const std::string& key) {
  size_t i = key.find_first_of("0123456789");
  if (i == std::string::npos || key.size() - i > 18) return -1;
  auto v = ParseCsvInt(key.substr(i));
  return v ? *v : -1;
}

// communication.json and communication_matrix.json share their nesting: step -> "collective" |
// "p2p" -> "<op>@<group>" -> value ("Total Op Info" is a sum, left out). fn(step, p2p, op, group,
// value) per entry whose value is an object.
template <typename Fn>
Status ForEachCommEntry(const std::filesystem::path& path, Fn fn) {
  OPTRACE_ASSIGN_OR_RETURN(json j, ParseJsonFile(path));
  if (!j.is_object()) return BadInputError("{}: expected an object keyed by step (\"step50\": ...)", path.string());
  for (auto& [step, groups] : j.items()) {
    if (!groups.is_object()) continue;
    for (const char* kind : {"collective", "p2p"}) {
      if (!groups.contains(kind) || !groups[kind].is_object()) continue;
      for (auto& [key, value] : groups[kind].items()) {
        if (key == "Total Op Info" || !value.is_object()) continue;
        size_t at = key.find('@');
        fn(step, std::string_view(kind) == "p2p", key.substr(0, at), at == std::string::npos ? "" : key.substr(at + 1),
           value);
      }
    }
  }
  return Status::Ok();
}

Status ReadCommunicationJson(const std::filesystem::path& path, RankTable& table) {
  return ForEachCommEntry(
      path, [&](const std::string& step, bool p2p, std::string name, std::string group, const json& info) {
        CommOp op;
        op.name = std::move(name);
        op.group = std::move(group);
        op.step = step;
        op.p2p = p2p;
        const json& ti = info.contains("Communication Time Info") ? info["Communication Time Info"] : json();
        double start_us = Num(ti, "Start Timestamp(us)");
        op.start_ns = IsMissing(start_us) ? -1 : static_cast<int64_t>(std::llround(start_us * 1000.0));
        op.elapse_ms = Num(ti, "Elapse Time(ms)");
        op.transit_ms = Num(ti, "Transit Time(ms)");
        op.wait_ms = Num(ti, "Wait Time(ms)");
        op.sync_ms = Num(ti, "Synchronization Time(ms)");
        op.idle_ms = Num(ti, "Idle Time(ms)");
        op.wait_ratio = Num(ti, "Wait Time Ratio");
        op.sync_ratio = Num(ti, "Synchronization Time Ratio");
        const json& bi = info.contains("Communication Bandwidth Info") ? info["Communication Bandwidth Info"] : json();
        if (bi.is_object())
          for (auto& [transport, link] : bi.items()) {
            if (!link.is_object()) continue;
            CommBandwidth b;
            b.transport = transport;
            b.size_mb = Num(link, "Transit Size(MB)");
            b.time_ms = Num(link, "Transit Time(ms)");
            b.bandwidth_gbps = Num(link, "Bandwidth(GB/s)");
            b.large_packet_ratio = Num(link, "Large Packet Ratio");
            // A transport the op did not use is listed with zeros: not kept.
            if (!(b.size_mb > 0) && !(b.time_ms > 0)) continue;
            if (link.contains("Size Distribution") && link["Size Distribution"].is_object())
              for (auto& [packet, v] : link["Size Distribution"].items()) {
                auto mb = ParseCsvNumber(packet);
                if (!mb || !v.is_array() || v.size() < 2 || !v[0].is_number() || !v[1].is_number()) continue;
                b.sizes.push_back({*mb, v[0].get<double>(), v[1].get<double>()});
              }
            std::sort(b.sizes.begin(), b.sizes.end(),
                      [](const CommPacketBucket& x, const CommPacketBucket& y) { return x.packet_mb < y.packet_mb; });
            op.bandwidth.push_back(std::move(b));
          }
        table.comm_ops.push_back(std::move(op));
      });
}

Status ReadProfilerMetadata(const std::filesystem::path& path, RankTable& table) {
  OPTRACE_ASSIGN_OR_RETURN(json j, ParseJsonFile(path));
  if (!j.is_object() || !j.contains("parallel_group_info") || !j["parallel_group_info"].is_object())
    return Status::Ok();
  for (auto& [key, info] : j["parallel_group_info"].items()) {
    if (!info.is_object()) continue;
    ParallelGroup g;
    g.key = key;
    g.hash = GroupHash(key);
    if (info.contains("group_name") && info["group_name"].is_string())
      g.pg_name = info["group_name"].get<std::string>();
    g.kind = ParallelKind(g.pg_name);
    if (info.contains("global_ranks") && info["global_ranks"].is_array())
      for (const json& r : info["global_ranks"])
        if (r.is_number_integer()) g.global_ranks.push_back(r.get<int>());
    std::sort(g.global_ranks.begin(), g.global_ranks.end());
    table.parallel_groups.push_back(std::move(g));
  }
  return Status::Ok();
}

Status ReadCommunicationMatrixJson(const std::filesystem::path& path, RankTable& table) {
  return ForEachCommEntry(
      path, [&](const std::string& step, bool p2p, const std::string& op, const std::string& group, const json& links) {
        for (auto& [pair, link] : links.items()) {
          if (!link.is_object()) continue;
          CommMatrixLink l;
          l.step = step;
          l.key = op;
          l.group = group;
          l.p2p = p2p;
          size_t dash = pair.find('-');
          auto src = ParseCsvInt(pair.substr(0, dash));
          auto dst = dash == std::string::npos ? std::nullopt : ParseCsvInt(pair.substr(dash + 1));
          if (!src || !dst) continue;  // not a "<src>-<dst>" key
          l.src = static_cast<int>(*src);
          l.dst = static_cast<int>(*dst);
          if (link.contains("Transport Type") && link["Transport Type"].is_string())
            l.transport = link["Transport Type"].get<std::string>();
          if (link.contains("Op Name") && link["Op Name"].is_string()) l.op_name = link["Op Name"].get<std::string>();
          l.size_mb = Num(link, "Transit Size(MB)");
          l.time_ms = Num(link, "Transit Time(ms)");
          l.bandwidth_gbps = Num(link, "Bandwidth(GB/s)");
          table.comm_matrix.push_back(std::move(l));
        }
      });
}

Status ReadStepTraceCsv(const std::filesystem::path& path, RankTable& table) {
  OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return Status::Ok();
  CsvHeader h(rec);
  auto step = h.Find("Step");
  if (!step) return BadInputError("{}:1: missing column 'Step'; expected a step_trace_time.csv", path.string());
  auto comp = h.Find("Computing"), cno = h.Find("Communication(Not Overlapped)"), ov = h.Find("Overlapped"),
       comm = h.Find("Communication"), fr = h.Find("Free"), stage = h.Find("Stage"), bub = h.Find("Bubble"),
       prep = h.Find("Preparing");
  auto get = [&](const std::optional<size_t>& c) {
    if (!c) return kMissing;
    auto v = ParseCsvNumber(rec.Field(*c));
    return v ? *v : kMissing;
  };
  while (true) {
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    StepTraceRow r;
    auto s = ParseCsvInt(rec.Field(*step));
    r.step_id = s ? *s : -1;
    r.computing_us = get(comp);
    r.comm_not_overlapped_us = get(cno);
    r.overlapped_us = get(ov);
    r.communication_us = get(comm);
    r.free_us = get(fr);
    r.stage_us = get(stage);
    r.bubble_us = get(bub);
    r.preparing_us = get(prep);
    table.step_trace.push_back(r);
  }
  return Status::Ok();
}

Status ReadProfilerInfo(const std::filesystem::path& path, RankTable& table) {
  OPTRACE_ASSIGN_OR_RETURN(json j, ParseJsonFile(path));
  if (!j.is_object()) return Status::Ok();
  auto str = [](const json& o, const char* k) -> std::string {
    return o.is_object() && o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : "";
  };
  if (j.contains("config") && j["config"].is_object() && j["config"].contains("experimental_config")) {
    const json& x = j["config"]["experimental_config"];
    table.identity.profiler_level = str(x, "_profiler_level");
    table.identity.aic_metrics = str(x, "_aic_metrics");
  }
  table.identity.torch_npu_version = str(j, "torch_npu_version");
  table.identity.cann_version = str(j, "cann_version");
  return Status::Ok();
}

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
  if (!in.profiler_info.empty()) OPTRACE_RETURN_IF_ERROR(ReadProfilerInfo(in.profiler_info, t));
  if (!in.profiler_metadata.empty()) OPTRACE_RETURN_IF_ERROR(ReadProfilerMetadata(in.profiler_metadata, t));
  if (!in.communication.empty()) OPTRACE_RETURN_IF_ERROR(ReadCommunicationJson(in.communication, t));
  if (!in.communication_matrix.empty())
    OPTRACE_RETURN_IF_ERROR(ReadCommunicationMatrixJson(in.communication_matrix, t));
  if (in.communication.empty() && in.communication_matrix.empty() && !in.analysis_db.empty())
    OPTRACE_RETURN_IF_ERROR(ReadAnalysisDbCommunication(in.analysis_db, t));
  if (!in.step_trace_time.empty()) OPTRACE_RETURN_IF_ERROR(ReadStepTraceCsv(in.step_trace_time, t));
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
    t.device_id = devices.empty() ? -1 : devices.begin()->first;
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
      PipelineFields p = t.pipes[e.pipe];
      for (uint32_t& v : p.packed) v = RepackDecimal(v, t.pipe_overflow, part.pipe_overflow);
      part.pipes.push_back(p);
      e.pipe = static_cast<uint32_t>(part.pipes.size() - 1);
    }
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
