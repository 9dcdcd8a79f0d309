// Reading msOpProf timeline exports (trace.json, timeline CSV) into one event list.
#include "evidence/timeline/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>

#include "core/csv_reader.h"
#include "core/file_io.h"

namespace optrace::evidence {
namespace {

namespace fs = std::filesystem;
using format::CoreKind;
using Json = nlohmann::json;

std::string Upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

bool ParseUint(std::string_view s, uint32_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size() && v < (1u << 16);
}

// "VECTOR_2" (a simulator sub-thread) -> "VECTOR"; "Cube" -> "CUBE"; "FIXPIPE" -> "FIXP".
std::string NormalizePipe(std::string_view name) {
  std::string p = Upper(name);
  while (!p.empty() && p.back() == ' ') p.pop_back();
  if (!p.starts_with("WARP_")) {
    size_t us = p.rfind('_');
    if (us != std::string::npos && us + 1 < p.size() &&
        std::all_of(p.begin() + us + 1, p.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      p.resize(us);
    }
  }
  if (p == "FIXPIPE") p = "FIXP";
  return p;
}

bool IsWaitInstruction(std::string_view name) {
  std::string n = Upper(name);
  return n == "WAIT_FLAG" || n == "WAIT_EVENT" || n == "WAIT_FLAG_DEV";
}

std::string FirstLine(std::string_view s) {
  size_t nl = s.find('\n');
  std::string_view l = TrimCsvField(s.substr(0, nl));
  return std::string(l);
}

std::string IdText(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  return v.dump();
}

std::string ArgText(const Json& ev, const char* key) {
  auto a = ev.find("args");
  if (a == ev.end() || !a->is_object()) return "";
  auto k = a->find(key);
  if (k == a->end()) return "";
  return k->is_string() ? k->get<std::string>() : k->dump();
}

class Builder {
 public:
  explicit Builder(TimelineRun& run) : run_(run) {}

  size_t CoreId(const TimelineCore& c) {
    for (size_t i = 0; i < run_.cores.size(); ++i) {
      const TimelineCore& k = run_.cores[i];
      if (k.kind == c.kind && k.block == c.block && k.sub == c.sub) return i;
    }
    run_.cores.push_back(c);
    if (c.kind == CoreKind::kAiv) run_.vectors_per_block = std::max(run_.vectors_per_block, c.sub + 1);
    return run_.cores.size() - 1;
  }

  void Add(TimelineEvent e) {
    if (e.pipe == "CACHEMISS") {
      e.kind = TimelineEventKind::kIcacheMiss;
    } else if (e.name.starts_with("MarkStamp")) {
      e.kind = TimelineEventKind::kMark;
    } else if (e.instruction && IsWaitInstruction(e.name)) {
      e.kind = TimelineEventKind::kWait;
    }
    run_.events.push_back(std::move(e));
  }

 private:
  TimelineRun& run_;
};

// The core named by the first label that is one, else by the file's directory.
std::optional<TimelineCore> CoreFrom(std::initializer_list<std::string_view> labels) {
  for (std::string_view l : labels) {
    if (auto c = ParseTimelineCore(l)) return c;
  }
  return std::nullopt;
}

Status ParseTraceJson(TimelineRun& run, const std::string& text, const std::string& origin) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    return BadInputError("{}: byte {}: not valid JSON ({}); expected a Chrome trace (trace.json) written by msOpProf",
                         origin, e.byte, e.what());
  }
  const Json* events = nullptr;
  if (root.is_array()) {
    events = &root;
  } else if (root.is_object() && root.contains("traceEvents") && root["traceEvents"].is_array()) {
    events = &root["traceEvents"];
  } else {
    return BadInputError("{}: no traceEvents array; expected a Chrome trace (trace.json) written by msOpProf", origin);
  }
  const std::string dir = fs::path(origin).parent_path().filename().string();
  // Process and thread names from metadata (the simulator numbers its pids).
  std::map<std::string, std::string> pid_name;
  std::map<std::pair<std::string, std::string>, std::string> tid_name;
  bool has_metadata_names = false;
  for (const Json& ev : *events) {
    if (!ev.is_object() || ev.value("ph", "") != "M") continue;
    std::string n = ArgText(ev, "name");
    if (n.empty() || !ev.contains("pid")) continue;
    if (ev.value("name", "") == "process_name") {
      pid_name[IdText(ev["pid"])] = n, has_metadata_names = true;
    } else if (ev.value("name", "") == "thread_name" && ev.contains("tid")) {
      tid_name[{IdText(ev["pid"]), IdText(ev["tid"])}] = n;
    }
  }
  // Which export this is (docs/evidence.md): the simulator writes args.detail and a CACHEMISS
  // pipe; InstrTimeline writes args.pc_addr; PipeTimeline writes bare pipe intervals.
  TimelineSource source = TimelineSource::kPipeTimeline;
  bool detail = false, pc = false;
  for (const Json& ev : *events) {
    if (!ev.is_object() || ev.value("ph", "") != "X") continue;
    auto a = ev.find("args");
    if (a != ev.end() && a->is_object()) detail |= a->contains("detail"), pc |= a->contains("pc_addr");
  }
  for (const auto& [pid, n] : pid_name) detail |= NormalizePipe(n) == "CACHEMISS";
  if (detail || (has_metadata_names && !root.contains("profilingType"))) {
    source = TimelineSource::kSimulator;
  } else if (pc) {
    source = TimelineSource::kInstrTimeline;
  }
  TimelineInput input{origin, source, 0, 0};
  const size_t input_index = run.inputs.size();
  Builder b(run);
  for (size_t i = 0; i < events->size(); ++i) {
    const Json& ev = (*events)[i];
    if (!ev.is_object()) return BadInputError("{}: traceEvents[{}]: not an object", origin, i);
    std::string ph = ev.value("ph", "");
    bool instant = ph == "i" || ph == "I";
    if (ph != "X" && !instant) {
      ++input.ignored;
      continue;
    }
    for (const char* key : {"name", "pid", "ts"}) {
      if (!ev.contains(key)) {
        return BadInputError("{}: traceEvents[{}]: {} event has no '{}'; the trace is cut or not an msOpProf timeline",
                             origin, i, ph, key);
      }
    }
    if (ph == "X" && !ev.contains("dur")) {
      return BadInputError("{}: traceEvents[{}]: X event has no 'dur'; the trace is cut or not an msOpProf timeline",
                           origin, i);
    }
    if (!ev["ts"].is_number() || (ph == "X" && !ev["dur"].is_number())) {
      return BadInputError("{}: traceEvents[{}]: 'ts' and 'dur' must be numbers (microseconds)", origin, i);
    }
    const std::string pid = IdText(ev["pid"]);
    const std::string tid = ev.contains("tid") ? IdText(ev["tid"]) : "";
    std::string pid_label = pid_name.count(pid) ? pid_name[pid] : pid;
    std::string tid_label = tid_name.count({pid, tid}) ? tid_name[{pid, tid}] : tid;
    std::optional<TimelineCore> core = CoreFrom({pid_label, tid_label, dir});
    if (!core) {
      return BadInputError("{}: traceEvents[{}]: cannot tell the core: pid '{}', tid '{}' and the directory '{}' name "
                           "none (expected core<N>.cubecore or core<N>.veccore<k>; keep a simulator per-core trace.json "
                           "in its core directory)",
                           origin, i, pid_label, tid_label, dir);
    }
    std::string pipe;
    for (const std::string& l : {tid_label, pid_label}) {
      // A bare number (an unnamed simulator thread) names no pipe.
      bool number = std::all_of(l.begin(), l.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
      if (!l.empty() && !number && !ParseTimelineCore(l)) {
        pipe = NormalizePipe(l);
        break;
      }
    }
    if (pipe.empty()) {
      return BadInputError("{}: traceEvents[{}]: no pipe: neither tid '{}' nor pid '{}' names one", origin, i, tid_label,
                           pid_label);
    }
    TimelineEvent e;
    e.input = input_index;
    e.core = b.CoreId(*core);
    e.pipe = pipe;
    e.name = ev["name"].is_string() ? ev["name"].get<std::string>() : IdText(ev["name"]);
    e.ts_us = ev["ts"].get<double>();
    e.dur_us = ph == "X" ? ev["dur"].get<double>() : 0;
    if (e.dur_us < 0) return BadInputError("{}: traceEvents[{}]: negative dur {}", origin, i, e.dur_us);
    e.pc = ArgText(ev, "pc_addr");
    e.location = FirstLine(ArgText(ev, "code"));
    e.instruction = source != TimelineSource::kPipeTimeline;
    if (instant && pipe != "CACHEMISS" && !e.name.starts_with("MarkStamp")) {
      ++input.ignored;
      continue;
    }
    b.Add(std::move(e));
    ++input.events;
  }
  if (input.events == 0) {
    return BadInputError("{}: no timeline events (X events with a core and a pipe); is this an msOpProf PipeTimeline, "
                         "InstrTimeline or simulator trace.json?",
                         origin);
  }
  run.inputs.push_back(std::move(input));
  return Status::Ok();
}

Status ParseTimelineCsv(TimelineRun& run, std::string text, const std::string& origin) {
  CsvReader reader = CsvReader::FromString(std::move(text), origin);
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return BadInputError("{}: empty file; expected a timeline CSV with a header", origin);
  CsvHeader h(rec);
  auto core_col = h.Find("core");
  auto pipe_col = h.Find("pipe");
  auto ts_col = h.FindAny({"ts(us)", "ts", "start(us)"});
  auto dur_col = h.FindAny({"dur(us)", "dur", "duration(us)"});
  auto end_col = h.FindAny({"end(us)", "end"});
  auto name_col = h.FindAny({"name", "instr", "instruction"});
  auto pc_col = h.Find("pc_addr");
  auto code_col = h.FindAny({"code", "source"});
  const char* missing = !core_col ? "core" : !pipe_col ? "pipe" : !ts_col ? "ts(us)" : nullptr;
  if (!missing && !dur_col && !end_col) missing = "dur(us)";
  if (missing) {
    return BadInputError("{}:{}: no '{}' column; a timeline CSV needs core, pipe, ts(us) and dur(us) (or end(us)); "
                         "found: {}",
                         origin, rec.line, missing, fmt::join(h.names(), ", "));
  }
  TimelineInput input{origin, TimelineSource::kCsv, 0, 0};
  const size_t input_index = run.inputs.size();
  Builder b(run);
  while (true) {
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    std::string core_text(TrimCsvField(rec.Field(*core_col)));
    auto core = ParseTimelineCore(core_text);
    if (!core) {
      return BadInputError("{}:{}: core '{}' is not core<N>.cubecore, core<N>.veccore<k>, aic <N> or aiv <N>", origin,
                           rec.line, core_text);
    }
    auto ts = ParseCsvNumber(rec.Field(*ts_col));
    if (!ts) return BadInputError("{}:{}: ts '{}' is not a number", origin, rec.line, TrimCsvField(rec.Field(*ts_col)));
    std::optional<double> dur;
    if (dur_col) {
      dur = ParseCsvNumber(rec.Field(*dur_col));
    } else if (auto end = ParseCsvNumber(rec.Field(*end_col))) {
      dur = *end - *ts;
    }
    if (!dur || *dur < 0) {
      return BadInputError("{}:{}: no duration: dur/end is missing, not a number or ends before ts", origin, rec.line);
    }
    TimelineEvent e;
    e.input = input_index;
    e.core = b.CoreId(*core);
    e.pipe = NormalizePipe(TrimCsvField(rec.Field(*pipe_col)));
    if (e.pipe.empty()) return BadInputError("{}:{}: empty pipe", origin, rec.line);
    e.name = name_col ? std::string(TrimCsvField(rec.Field(*name_col))) : e.pipe;
    if (e.name.empty()) e.name = e.pipe;
    e.instruction = NormalizePipe(e.name) != e.pipe;
    e.ts_us = *ts;
    e.dur_us = *dur;
    if (pc_col) e.pc = std::string(TrimCsvField(rec.Field(*pc_col)));
    if (code_col) e.location = FirstLine(rec.Field(*code_col));
    b.Add(std::move(e));
    ++input.events;
  }
  if (input.events == 0) return BadInputError("{}: no rows after the header", origin);
  run.inputs.push_back(std::move(input));
  return Status::Ok();
}

// Each core may be described once per source kind.
Status CheckDuplicates(const TimelineRun& run) {
  std::map<std::pair<TimelineSource, size_t>, size_t> owner;  // (source, core) -> input
  for (const TimelineEvent& e : run.events) {
    auto key = std::pair(run.inputs[e.input].source, e.core);
    auto [it, inserted] = owner.emplace(key, e.input);
    if (!inserted && it->second != e.input) {
      return BadInputError("{}: {} is also in {} ({} both); give one replay per summary (a simulator run's whole "
                           "trace.json or its per-core files, not both)",
                           run.inputs[e.input].path, run.cores[e.core].name, run.inputs[it->second].path,
                           TimelineSourceName(key.first));
    }
  }
  return Status::Ok();
}

}  // namespace

std::string_view TimelineSourceName(TimelineSource s) {
  switch (s) {
    case TimelineSource::kPipeTimeline: return "PipeTimeline";
    case TimelineSource::kInstrTimeline: return "InstrTimeline";
    case TimelineSource::kSimulator: return "simulator";
    case TimelineSource::kCsv: return "csv";
  }
  return "?";
}

uint32_t TimelineRun::CoreIndex(const TimelineCore& c) const {
  return c.kind == CoreKind::kAiv ? c.block * vectors_per_block + c.sub : c.block;
}

std::optional<TimelineCore> ParseTimelineCore(std::string_view name) {
  std::string n = Upper(TrimCsvField(name));
  TimelineCore c;
  c.name = std::string(TrimCsvField(name));
  if (n.starts_with("CORE")) {
    size_t dot = n.find('.');
    if (dot == std::string::npos || !ParseUint(std::string_view(n).substr(4, dot - 4), c.block)) return std::nullopt;
    std::string_view sub = std::string_view(n).substr(dot + 1);
    if (sub == "CUBECORE" || sub == "CUBECORE0") {
      c.kind = CoreKind::kAic;
      return c;
    }
    if (sub.starts_with("VECCORE") && ParseUint(sub.substr(7), c.sub) && c.sub < 8) {
      c.kind = CoreKind::kAiv;
      return c;
    }
    return std::nullopt;
  }
  if (n.starts_with("AIC") || n.starts_with("AIV")) {
    std::string_view rest = TrimCsvField(std::string_view(n).substr(3));
    if (!ParseUint(rest, c.block)) return std::nullopt;
    c.kind = n[2] == 'C' ? CoreKind::kAic : CoreKind::kAiv;
    return c;
  }
  return std::nullopt;
}

Status AddTimelineText(TimelineRun& run, std::string text, const std::string& origin) {
  size_t first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    return ParseTraceJson(run, text, origin);
  }
  return ParseTimelineCsv(run, std::move(text), origin);
}

Result<TimelineRun> LoadTimelines(const std::vector<fs::path>& paths) {
  std::vector<fs::path> files;
  for (const fs::path& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      const size_t before = files.size();
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        const fs::path& f = it->path();
        if (f.filename() == "trace.json" || f.extension() == ".csv") found.push_back(f);
      }
      if (ec) return IoError("{}: cannot list the directory: {}", p.string(), ec.message());
      std::sort(found.begin(), found.end());
      // A simulator run holds a whole-run trace.json and per-core copies: prefer the whole run.
      bool has_top = std::any_of(found.begin(), found.end(), [](const fs::path& f) {
        return f.filename() == "trace.json" && !ParseTimelineCore(f.parent_path().filename().string());
      });
      for (const fs::path& f : found) {
        if (f.extension() == ".csv") continue;  // metric CSVs (PipeUtilization.csv) live here too
        if (has_top && ParseTimelineCore(f.parent_path().filename().string())) continue;
        files.push_back(f);
      }
      if (files.size() == before) {
        return BadInputError("{}: no trace.json in this directory; give the msOpProf OPPROF_* directory of a "
                             "PipeTimeline, InstrTimeline or simulator run, or the files",
                             p.string());
      }
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      return NotFoundError("{}: no such file or directory", p.string());
    }
  }
  TimelineRun run;
  for (const fs::path& f : files) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(f));
    OPTRACE_RETURN_IF_ERROR(AddTimelineText(run, std::move(text), f.string()));
  }
  OPTRACE_RETURN_IF_ERROR(CheckDuplicates(run));
  return run;
}

std::vector<std::pair<double, double>> MergeIntervals(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<double, double>> out;
  for (const auto& [b, e] : v) {
    if (e <= b) continue;
    if (!out.empty() && b <= out.back().second) {
      out.back().second = std::max(out.back().second, e);
    } else {
      out.emplace_back(b, e);
    }
  }
  return out;
}

double TotalLength(const std::vector<std::pair<double, double>>& merged) {
  double t = 0;
  for (const auto& [b, e] : merged) t += e - b;
  return t;
}

double IntersectionLength(const std::vector<std::pair<double, double>>& a,
                          const std::vector<std::pair<double, double>>& b) {
  double t = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    double lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) t += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return t;
}

}  // namespace optrace::evidence
