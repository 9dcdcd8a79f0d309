// ReadTraceViewSteps / ReadTraceViewDeviceTasks: the ProfilerStep#N markers and the device tasks of a
// torch_npu trace_view.json, streamed.
//
// trace_view.json is the largest file of a capture (GBs for long runs) and only a few of its
// events matter here, so it is never held in memory: a small pull parser reads it through a
// fixed buffer, keeps the top-level fields of each trace event (name, ph, ts, dur) and skips
// everything else. Memory is the buffer, whatever the file size.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <vector>
#include <string>

#include "analyze/read/normalize.h"
#include "core/csv_reader.h"
#include "core/file_io.h"

namespace optrace::analyze {
namespace {

constexpr size_t kBufferBytes = 1 << 20;

class JsonStream {
 public:
  JsonStream(int fd, std::string origin) : fd_(fd), origin_(std::move(origin)), buf_(new char[kBufferBytes]) {}
  ~JsonStream() { ::close(fd_); }
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  const Status& status() const { return status_; }
  bool failed() const { return !status_.ok(); }

  // Next byte, or -1 at the end of the input (or after an error).
  int Get() {
    if (pos_ == end_ && !Refill()) return -1;
    return static_cast<unsigned char>(buf_[pos_++]);
  }
  int Peek() {
    if (pos_ == end_ && !Refill()) return -1;
    return static_cast<unsigned char>(buf_[pos_]);
  }
  // Next byte that is not JSON whitespace.
  int GetNonSpace() {
    for (;;) {
      int c = Get();
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
    }
  }

  bool Fail(std::string_view what) {
    if (status_.ok()) {
      status_ = BadInputError("{}: malformed JSON at byte {}: {}; re-export the profiler output", origin_,
                              offset_ + pos_, what);
    }
    pos_ = end_ = 0;
    eof_ = true;
    return false;
  }

  // After the opening quote: reads the string up to its closing quote. `out` (may be null)
  // receives the text with \" \\ \/ unescaped and other escapes kept as written.
  bool ReadString(std::string* out) {
    if (out) out->clear();
    for (;;) {
      // Copy runs without quotes or backslashes in one go.
      if (pos_ == end_ && !Refill()) return Fail("a string is never closed");
      const char* start = buf_.get() + pos_;
      const char* stop = buf_.get() + end_;
      const char* p = start;
      while (p < stop && *p != '"' && *p != '\\') ++p;
      if (out) out->append(start, static_cast<size_t>(p - start));
      pos_ += static_cast<size_t>(p - start);
      if (p == stop) continue;
      ++pos_;
      if (*p == '"') return true;
      int e = Get();
      if (e < 0) return Fail("a string is never closed");
      if (out) {
        if (e == '"' || e == '\\' || e == '/') {
          out->push_back(static_cast<char>(e));
        } else {
          out->push_back('\\');
          out->push_back(static_cast<char>(e));
        }
      }
    }
  }

  // A number, true, false or null: the bytes up to the next delimiter.
  bool ReadScalar(std::string* out) {
    if (out) out->clear();
    for (;;) {
      int c = Peek();
      if (c < 0 || c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') break;
      if (c == '"' || c == '{' || c == '[' || c == ':') return Fail("unexpected character in a value");
      if (out) out->push_back(static_cast<char>(c));
      ++pos_;
    }
    return true;
  }

  // Skips one value whose first byte `c` was already read.
  bool SkipValue(int c) {
    if (c == '"') return ReadString(nullptr);
    if (c != '{' && c != '[') {
      if (c < 0) return Fail("the input ends where a value was expected");
      if (c == ',' || c == '}' || c == ']' || c == ':') return Fail("a value is missing");
      return ReadScalar(nullptr);
    }
    // Containers: count the nesting, strings may hold brackets.
    int depth = 1;
    while (depth > 0) {
      int d = Get();
      if (d < 0) return Fail("an object or array is never closed");
      if (d == '"') {
        if (!ReadString(nullptr)) return false;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        --depth;
      }
    }
    return true;
  }

 private:
  bool Refill() {
    if (eof_) return false;
    offset_ += end_;
    pos_ = end_ = 0;
    for (;;) {
      ssize_t n = ::read(fd_, buf_.get(), kBufferBytes);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status_ = IoError("{}: read failed at byte {}: {}", origin_, offset_, std::strerror(errno));
        eof_ = true;
        return false;
      }
      if (n == 0) {
        eof_ = true;
        return false;
      }
      end_ = static_cast<size_t>(n);
      return true;
    }
  }

  int fd_;
  std::string origin_;
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  uint64_t offset_ = 0;  // file offset of buf_[0]
  bool eof_ = false;
  Status status_;
};

struct EventFields {
  std::string name, ph, ts, dur;
  bool ts_is_string = false, has_ph = false;
  // With `with_args`: pid and the args a device task or a process_name record carries.
  bool with_args = false;
  std::string pid, arg_name, task_type, stream_id, task_id, cat;
  // With `with_flows`: the id of a flow event ("s" / "f") and its category.
  bool with_flows = false;
  std::string id;
};

// Reads a scalar or string value (first byte `v` already read) into `out`; containers skipped.
bool ReadValueText(JsonStream& in, int v, std::string& out) {
  if (v == '"') return in.ReadString(&out);
  if (v == '{' || v == '[' || v < 0) return in.SkipValue(v);
  out.assign(1, static_cast<char>(v));
  std::string rest;
  if (!in.ReadScalar(&rest)) return false;
  out += rest;
  return true;
}

// The members of an "args" object (its '{' already read) that describe a device task.
bool ReadArgs(JsonStream& in, EventFields& ev, std::string& key) {
  int c = in.GetNonSpace();
  if (c == '}') return true;
  for (;;) {
    if (c != '"' || !in.ReadString(&key)) return in.Fail("expected a key in args");
    if (in.GetNonSpace() != ':') return in.Fail("expected ':' after a key");
    int v = in.GetNonSpace();
    std::string* target = key == "name"                                        ? &ev.arg_name
                          : key == "Task Type"                                 ? &ev.task_type
                          : key == "Stream Id" || key == "Physic Stream Id"    ? &ev.stream_id
                          : key == "Task Id"                                   ? &ev.task_id
                                                                               : nullptr;
    if (!(target ? ReadValueText(in, v, *target) : in.SkipValue(v))) return false;
    c = in.GetNonSpace();
    if (c == '}') return true;
    if (c != ',') return in.Fail("expected ',' or '}' in args");
    c = in.GetNonSpace();
  }
}

// Reads one event object (its '{' already read), keeping its top-level name/ph/ts/dur.
bool ReadEvent(JsonStream& in, EventFields& ev, std::string& key) {
  ev.name.clear();
  ev.ph.clear();
  ev.ts.clear();
  ev.dur.clear();
  ev.ts_is_string = ev.has_ph = false;
  if (ev.with_args) {
    ev.pid.clear();
    ev.arg_name.clear();
    ev.task_type.clear();
    ev.stream_id.clear();
    ev.task_id.clear();
    ev.cat.clear();
  }
  if (ev.with_flows) {
    ev.id.clear();
    ev.cat.clear();  // a flow event without "cat" must not keep the previous event's
  }
  int c = in.GetNonSpace();
  if (c == '}') return true;
  for (;;) {
    if (c != '"') return in.Fail("expected a key in a trace event");
    if (!in.ReadString(&key)) return false;
    if (in.GetNonSpace() != ':') return in.Fail("expected ':' after a key");
    int v = in.GetNonSpace();
    std::string* target = nullptr;
    if (key == "name") {
      target = &ev.name;
    } else if (key == "ph") {
      target = &ev.ph;
      ev.has_ph = true;
    } else if (key == "ts") {
      target = &ev.ts;
      ev.ts_is_string = v == '"';
    } else if (key == "dur") {
      target = &ev.dur;
    } else if (ev.with_args && key == "pid") {
      target = &ev.pid;
    } else if ((ev.with_args || ev.with_flows) && key == "cat") {
      target = &ev.cat;
    } else if (ev.with_flows && key == "id") {
      target = &ev.id;
    } else if (ev.with_args && key == "args" && v == '{') {
      if (!ReadArgs(in, ev, key)) return false;
      c = in.GetNonSpace();
      if (c == '}') return true;
      if (c != ',') return in.Fail("expected ',' or '}' in a trace event");
      c = in.GetNonSpace();
      continue;
    }
    bool ok;
    if (target && v == '"') {
      ok = in.ReadString(target);
    } else if (target && v != '{' && v != '[' && v >= 0) {
      target->assign(1, static_cast<char>(v));
      std::string rest;
      ok = in.ReadScalar(&rest);
      *target += rest;
    } else {
      ok = in.SkipValue(v);
    }
    if (!ok) return false;
    c = in.GetNonSpace();
    if (c == '}') return true;
    if (c != ',') return in.Fail("expected ',' or '}' in a trace event");
    c = in.GetNonSpace();
  }
}

void AddMarker(const EventFields& ev, RankTable& table) {
  if (ev.name.rfind("ProfilerStep#", 0) != 0) return;
  if (ev.has_ph && ev.ph != "X") return;
  auto id = ParseCsvInt(std::string_view(ev.name).substr(13));
  if (!id) return;
  std::optional<int64_t> ts;
  if (ev.ts_is_string) {
    ts = ParseUsToNs(ev.ts);
  } else if (auto d = ParseCsvNumber(ev.ts)) {
    ts = static_cast<int64_t>(std::llround(*d * 1000.0));
  }
  if (!ts) return;
  double dur = ParseCsvNumber(ev.dur).value_or(0.0);
  table.step_markers.push_back({*id, *ts, *ts + static_cast<int64_t>(std::llround(dur * 1000.0)), "trace_view.json"});
}

// A device task of the trace: kept until the process names (metadata events, anywhere in the
// file) say which pids are "Ascend Hardware" and "HCCL".
struct PendingTask {
  std::string pid, name, task_type;
  int64_t start_ns = 0, dur_ns = 0;
  int32_t stream = -1, task = -1;
};

struct TraceSink {
  RankTable* table = nullptr;
  bool device_tasks = false;
  std::map<std::string, std::string> process_names;  // pid -> name
  std::vector<PendingTask> tasks;
  // Host events: only those overlapping one of these sorted, disjoint absolute [lo, hi] windows.
  const std::vector<std::pair<int64_t, int64_t>>* host_windows = nullptr;
  std::vector<TraceHostEvent>* host_events = nullptr;
  // Flow events of the launch path: their starts and finishes by (category, id).
  std::vector<TraceFlow>* flows = nullptr;
  std::map<std::pair<TraceFlow::Kind, std::string>, size_t> open_flows;  // -> index into *flows
};

std::optional<int64_t> TsNs(const EventFields& ev) {
  if (ev.ts_is_string) return ParseUsToNs(ev.ts);
  if (auto d = ParseCsvNumber(ev.ts)) return static_cast<int64_t>(std::llround(*d * 1000.0));
  return std::nullopt;
}

void AddTask(const EventFields& ev, TraceSink& sink) {
  if (ev.ph == "M" && ev.name == "process_name") {
    sink.process_names[ev.pid] = ev.arg_name;
    return;
  }
  if (ev.ph != "X" || ev.name.empty()) return;
  // Only what can be a device task is kept until the process names are known: a task with a
  // Task Type, or an hcom_ op. Host events (millions in a long trace) are dropped here.
  if (ev.task_type.empty() && ev.name.rfind("hcom_", 0) != 0) return;
  auto ts = TsNs(ev);
  auto dur = ParseCsvNumber(ev.dur);
  if (!ts || !dur || *dur < 0) return;
  PendingTask t;
  t.pid = ev.pid;
  t.name = ev.name;
  t.task_type = ev.task_type;
  t.start_ns = *ts;
  t.dur_ns = static_cast<int64_t>(std::llround(*dur * 1000.0));
  if (auto v = ParseCsvInt(ev.stream_id)) t.stream = static_cast<int32_t>(*v);
  if (auto v = ParseCsvInt(ev.task_id)) t.task = static_cast<int32_t>(*v);
  sink.tasks.push_back(std::move(t));
}

void AddHostEvent(const EventFields& ev, TraceSink& sink) {
  if (ev.ph == "M" && ev.name == "process_name") {
    sink.process_names[ev.pid] = ev.arg_name;
    return;
  }
  if (ev.ph != "X" || ev.name.empty() || !ev.task_type.empty()) return;  // device tasks carry a Task Type
  auto ts = TsNs(ev);
  auto dur = ParseCsvNumber(ev.dur);
  if (!ts || !dur || *dur < 0) return;
  int64_t start = *ts, end = *ts + static_cast<int64_t>(std::llround(*dur * 1000.0));
  const auto& w = *sink.host_windows;
  // The first window ending at or after the event start: the event overlaps it if it starts first.
  auto it = std::lower_bound(w.begin(), w.end(), start,
                             [](const std::pair<int64_t, int64_t>& x, int64_t v) { return x.second < v; });
  if (it == w.end() || it->first > end) return;
  sink.host_events->push_back({ev.pid, ev.name, ev.cat, start, end - start});
}

// "s" / "f" events of the HostToDevice (API call -> device task) and async_task_queue (enqueue ->
// dequeue) flows, paired by id. An "f" before its "s" (files are not sorted) is paired as well.
void AddFlow(const EventFields& ev, TraceSink& sink) {
  if (ev.ph != "s" && ev.ph != "f") return;
  TraceFlow::Kind kind;
  if (ev.cat == "HostToDevice") kind = TraceFlow::kHostToDevice;
  else if (ev.cat == "async_task_queue") kind = TraceFlow::kTaskQueue;
  else return;
  auto ts = TsNs(ev);
  if (!ts || ev.id.empty()) return;
  auto [it, fresh] = sink.open_flows.try_emplace({kind, ev.id}, sink.flows->size());
  if (fresh) sink.flows->push_back({kind, -1, -1});
  TraceFlow& f = (*sink.flows)[it->second];
  (ev.ph == "s" ? f.start_ns : f.finish_ns) = *ts;
  if (f.start_ns >= 0 && f.finish_ns >= 0) sink.open_flows.erase(it);  // ids are reused across the file
}

// The array of trace events (its '[' already read).
bool ReadEventArray(JsonStream& in, TraceSink& sink) {
  EventFields ev;
  ev.with_args = sink.device_tasks || sink.host_windows;
  ev.with_flows = sink.flows != nullptr;
  std::string key;
  int c = in.GetNonSpace();
  if (c == ']') return true;
  for (;;) {
    if (c == '{') {
      if (!ReadEvent(in, ev, key)) return false;
      AddMarker(ev, *sink.table);
      if (sink.device_tasks) AddTask(ev, sink);
      if (sink.host_windows) AddHostEvent(ev, sink);
      if (sink.flows) AddFlow(ev, sink);
    } else if (!in.SkipValue(c)) {
      return false;
    }
    c = in.GetNonSpace();
    if (c == ']') return true;
    if (c != ',') return in.Fail("expected ',' or ']' between trace events");
    c = in.GetNonSpace();
  }
}

Status ReadTraceView(const std::filesystem::path& path, TraceSink& sink) {
  OPTRACE_ASSIGN_OR_RETURN(int fd, OpenRegularFile(path));
  JsonStream in(fd, path.string());
  int c = in.GetNonSpace();
  bool found = false;
  if (c == '[') {
    found = ReadEventArray(in, sink);
  } else if (c == '{') {
    // {"traceEvents": [...], ...}: other top-level members are skipped.
    std::string key;
    c = in.GetNonSpace();
    while (c != '}' && !in.failed()) {
      if (c != '"' || !in.ReadString(&key)) {
        in.Fail("expected a key");
        break;
      }
      if (in.GetNonSpace() != ':') {
        in.Fail("expected ':' after a key");
        break;
      }
      int v = in.GetNonSpace();
      if (key == "traceEvents" && v == '[') {
        if (!ReadEventArray(in, sink)) break;
        found = true;
      } else if (!in.SkipValue(v)) {
        break;
      }
      c = in.GetNonSpace();
      if (c == ',') c = in.GetNonSpace();
      else if (c != '}') in.Fail("expected ',' or '}' after a member");
    }
  } else if (c < 0 && in.status().ok()) {
    return BadInputError("{}: empty file; expected a JSON array of trace events", path.string());
  } else if (in.status().ok()) {
    in.Fail("expected '[' or '{' at the start");
  }
  if (!in.status().ok()) return in.status();
  if (!found) {
    return BadInputError("{}: expected a JSON array of trace events or an object with traceEvents", path.string());
  }
  if (in.GetNonSpace() >= 0) {
    in.Fail("text after the end of the JSON value");
    return in.status();
  }
  return Status::Ok();
}

}  // namespace

Status ReadTraceViewHostEvents(const std::filesystem::path& path,
                               const std::vector<std::pair<int64_t, int64_t>>& windows,
                               std::vector<TraceHostEvent>& events, std::vector<TraceFlow>* flows) {
  RankTable unused;
  TraceSink sink;
  sink.table = &unused;
  if (!windows.empty()) {
    sink.host_windows = &windows;
    sink.host_events = &events;
  }
  sink.flows = flows;
  OPTRACE_RETURN_IF_ERROR(ReadTraceView(path, sink));
  for (TraceHostEvent& e : events) {
    auto it = sink.process_names.find(e.process);
    e.process = it == sink.process_names.end() ? "pid " + e.process : it->second;
  }
  // Halves whose other half is not in the file say nothing about a delay.
  if (flows)
    flows->erase(std::remove_if(flows->begin(), flows->end(),
                                [](const TraceFlow& f) { return f.start_ns < 0 || f.finish_ns < 0; }),
                 flows->end());
  return Status::Ok();
}

Status ReadTraceViewSteps(const std::filesystem::path& path, RankTable& table) {
  TraceSink sink;
  sink.table = &table;
  return ReadTraceView(path, sink);
}

Status ReadTraceViewDeviceTasks(const std::filesystem::path& path, const Rules& rules, StringTable& strings,
                                RankTable& table) {
  TraceSink sink;
  sink.table = &table;
  sink.device_tasks = true;
  OPTRACE_RETURN_IF_ERROR(ReadTraceView(path, sink));
  // The tasks kernel_details.csv would hold: "Ascend Hardware" tasks of a compute Task Type
  // (AI_CORE, MIX_AIV, AI_CPU, DSA_SQE, ... as op_taxonomy.json maps them; the Notify Wait /
  // SDMA / Write Value pieces of collectives are left out) and the HCCL process's hcom_ ops.
  uint16_t file = static_cast<uint16_t>(table.files.size());
  table.files.push_back({path.string(), ""});
  uint32_t row = 0;
  for (const PendingTask& t : sink.tasks) {
    ++row;
    auto proc = sink.process_names.find(t.pid);
    if (proc == sink.process_names.end()) continue;
    Event e;
    if (proc->second == "Ascend Hardware") {
      if (!rules.core_op_type.count(t.task_type)) continue;
      e.core = strings.Intern(t.task_type);
      e.op_type = rules.ClassifyCore(t.task_type, t.name);
      if (e.op_type == OpType::kCommunication) continue;  // its hcom_ op comes from the HCCL process
    } else if (proc->second == "HCCL" && t.name.rfind("hcom_", 0) == 0) {
      e.core = strings.Intern("HCCL");
      e.op_type = OpType::kCommunication;
    } else {
      continue;
    }
    e.name = strings.Intern(t.name);
    e.start_ns = t.start_ns;
    e.dur_ns = t.dur_ns;
    e.stream_id = t.stream;
    e.task_id = t.task;
    e.file = file;
    e.row = row;  // the task's position among the trace's complete events
    table.events.push_back(e);
  }
  return Status::Ok();
}

}  // namespace optrace::analyze
