// Spans from a collection or a Chrome / Perfetto JSON trace, and the nesting on each core.
//
// The trace can be hundreds of MB: it is mapped, not read into a string, and parsed by a SAX
// handler that keeps a few fields per event (no document tree); pairing and naming happen after
// the parse because metadata (process_name, thread_name) may come after the events.
#include "explain/spans.h"

#include "core/mapped_file.h"

#include "core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "collect/chrome_writer.h"

namespace optrace::explain {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string StripLegacyDecorations(std::string_view name) {
  // The reference collector appends " [extra:<n>] #<seq>" (seq mode) or " [extra:<n>]" (FIFO).
  std::string_view s = name;
  size_t hash = s.rfind(" #");
  if (hash != std::string_view::npos && hash + 2 < s.size() &&
      std::all_of(s.begin() + static_cast<std::ptrdiff_t>(hash) + 2, s.end(), IsDigit)) {
    s = s.substr(0, hash);
  }
  if (!s.empty() && s.back() == ']') {
    size_t open = s.rfind(" [extra:");
    if (open != std::string_view::npos && s.find(']', open) == s.size() - 1) s = s.substr(0, open);
  }
  // A label that is nothing but a decoration keeps its text rather than becoming empty.
  if (s.empty()) return std::string(name);
  return std::string(s);
}

bool ParseThreadName(std::string_view name, collect::CoreKind* kind, uint32_t* core) {
  struct Word {
    std::string_view text;
    collect::CoreKind kind;
  };
  static constexpr Word kWords[] = {
      {"vector", collect::CoreKind::kAiv},        {"cube", collect::CoreKind::kAic},
      {"aic", collect::CoreKind::kAic},           {"aiv", collect::CoreKind::kAiv},
      {"vec", collect::CoreKind::kAiv},           {"block", collect::CoreKind::kCudaBlock},
      {"thread", collect::CoreKind::kHostThread}, {"core", collect::CoreKind::kUnknown},
  };
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // The first keyword that starts a word and is followed (after separators) by a number.
  for (size_t at = 0; at < lower.size(); ++at) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(lower[at - 1]))) continue;
    for (const Word& w : kWords) {
      if (lower.compare(at, w.text.size(), w.text) != 0) continue;
      size_t p = at + w.text.size();
      while (p < lower.size() && (lower[p] == ' ' || lower[p] == '_' || lower[p] == '-' || lower[p] == '#' ||
                                  lower[p] == ':' || lower[p] == '.')) {
        ++p;
      }
      size_t digits = p;
      uint64_t v = 0;
      while (digits < lower.size() && IsDigit(lower[digits]) && v <= 0xffffffffu) {
        v = v * 10 + static_cast<uint64_t>(lower[digits] - '0');
        ++digits;
      }
      if (digits == p || v > 0xffffffffu) continue;
      if (digits < lower.size() && std::isalnum(static_cast<unsigned char>(lower[digits]))) continue;  // "aic3x"
      *kind = w.kind;
      *core = static_cast<uint32_t>(v);
      return true;
    }
  }
  return false;
}

namespace {

bool SpanLess(const Span& a, const Span& b) {
  return std::forward_as_tuple(a.rank, a.kind, a.core, a.begin_us) <
             std::forward_as_tuple(b.rank, b.kind, b.core, b.begin_us) ||
         (std::forward_as_tuple(a.rank, a.kind, a.core, a.begin_us) ==
              std::forward_as_tuple(b.rank, b.kind, b.core, b.begin_us) &&
          std::forward_as_tuple(b.end_us, a.label) < std::forward_as_tuple(a.end_us, b.label));
}

}  // namespace

namespace {

// Sorts spans and makes their times relative to each rank's first span.
void FinishSpans(std::vector<Span>& spans) {
  std::map<int32_t, double> first;
  for (const Span& s : spans) {
    auto [it, fresh] = first.emplace(s.rank, s.begin_us);
    if (!fresh) it->second = std::min(it->second, s.begin_us);
  }
  for (Span& s : spans) {
    const double origin = first[s.rank];
    s.begin_us -= origin;
    s.end_us -= origin;
    s.parent = -1;
  }
  std::stable_sort(spans.begin(), spans.end(), SpanLess);
}

}  // namespace

SpanSet SpansFromCollection(const collect::Collection& c, const std::vector<std::string>& inputs) {
  SpanSet set;
  set.source = "dumps";
  set.inputs = inputs;
  // The Chrome writer's conversion (ticks since the rank's earliest event, rounded to the ns), so
  // the spans of a collection and of its trace agree to the nanosecond.
  const std::map<int32_t, int64_t> origins = collect::RankOrigins(c, collect::Align::kRank);
  std::vector<std::string> labels(c.labels.size());
  for (size_t i = 0; i < c.labels.size(); ++i) labels[i] = StripLegacyDecorations(c.labels[i].name);
  set.spans.reserve(c.intervals.size());
  size_t bad_series = 0;
  for (const collect::Interval& iv : c.intervals) {
    if (iv.series >= c.series.size() || iv.label >= c.labels.size() || !(c.series[iv.series].clock_hz > 0)) {
      ++bad_series;
      continue;
    }
    const double us_per_tick = 1e6 / c.series[iv.series].clock_hz;
    auto it = origins.find(iv.rank);
    const int64_t origin = it == origins.end() ? 0 : it->second;
    const int64_t begin_ns = collect::TicksToNs(iv.begin_ticks - origin, us_per_tick);
    const int64_t dur_ns = collect::TicksToNs(iv.end_ticks - iv.begin_ticks, us_per_tick);
    Span s;
    s.rank = iv.rank;
    s.kind = iv.kind;
    s.core = iv.core_index;
    s.label = labels[iv.label];
    s.begin_us = static_cast<double>(begin_ns) / 1000.0;
    s.end_us = static_cast<double>(begin_ns + dur_ns) / 1000.0;
    set.spans.push_back(std::move(s));
  }
  if (bad_series) {
    set.warnings.push_back(
        fmt::format("{} intervals without a known clock or label ignored (the collection is inconsistent)", bad_series));
  }
  if (!c.instants.empty()) {
    set.warnings.push_back(fmt::format("{} unmatched B/E events ignored (no span without both ends)", c.instants.size()));
  }
  FinishSpans(set.spans);
  return set;
}

namespace {

// What the parse keeps of one trace event.
struct RawEvent {
  int64_t pid = 0, tid = 0;
  double ts = 0, dur = 0;
  uint32_t name = 0;  // index into TraceHandler::names
  char ph = 0;
};

// pid / tid given as strings get ids from here up (a JSON number is never this large in practice).
constexpr int64_t kStringIdBase = int64_t{1} << 53;

// Pulls the events out of the SAX stream: for each element of traceEvents (or of a bare top-level
// array) its name, ph, ts, dur, pid, tid and args.name; everything else is skipped as it streams by.
class TraceHandler : public nlohmann::json_sax<nlohmann::json> {
 public:
  using json = nlohmann::json;

  std::vector<RawEvent> events;
  std::vector<std::string> names;                        // interned event names
  std::map<int64_t, std::string> process_names;          // pid -> process_name
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;  // (pid, tid) -> thread_name
  std::vector<std::string> string_ids;                   // pid / tid strings, by id - kStringIdBase
  bool root_is_container = false;
  bool saw_events_array = false;
  size_t error_offset = 0;
  std::string error_text;
  size_t without_ts = 0, without_dur = 0, without_pid = 0, without_tid = 0, without_ph = 0, instants = 0;

  bool null() override { return Scalar(Value{}); }
  bool boolean(bool) override { return Scalar(Value{}); }
  bool number_integer(number_integer_t v) override { return Scalar(Value{Value::kNumber, static_cast<double>(v), v}); }
  bool number_unsigned(number_unsigned_t v) override {
    const int64_t i = v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
    return Scalar(Value{Value::kNumber, static_cast<double>(v), i});
  }
  bool number_float(number_float_t v, const string_t&) override {
    // The integer view (pid / tid) of a float: only when it is one int64 can hold; a trace may
    // hold any number, and a cast out of range is undefined.
    const int64_t i = std::isfinite(v) && v > -9.2e18 && v < 9.2e18 ? static_cast<int64_t>(v) : 0;
    return Scalar(Value{Value::kNumber, v, i});
  }
  bool string(string_t& v) override {
    Value val{Value::kString};
    val.text = &v;
    return Scalar(val);
  }
  bool binary(binary_t&) override { return Scalar(Value{}); }

  bool start_object(std::size_t) override {
    Ctx ctx = Ctx::kOther;
    if (stack_.empty()) {
      ctx = Ctx::kRoot;
      root_is_container = true;
    } else if (stack_.back() == Ctx::kEvents) {
      ctx = Ctx::kEvent;
      cur_ = Current{};
    } else if (stack_.back() == Ctx::kEvent && key_ == "args") {
      ctx = Ctx::kArgs;
    }
    stack_.push_back(ctx);
    return true;
  }
  bool end_object() override {
    const Ctx ctx = stack_.back();
    stack_.pop_back();
    if (ctx == Ctx::kEvent) Commit();
    return true;
  }
  bool start_array(std::size_t) override {
    Ctx ctx = Ctx::kOther;
    if (stack_.empty()) {
      ctx = Ctx::kEvents;
      root_is_container = true;
      saw_events_array = true;
    } else if (stack_.back() == Ctx::kRoot && key_ == "traceEvents") {
      ctx = Ctx::kEvents;
      saw_events_array = true;
    }
    stack_.push_back(ctx);
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool key(string_t& k) override {
    const Ctx ctx = stack_.back();
    // Only the keys of the levels we read matter; the rest need no copy.
    if (ctx == Ctx::kRoot || ctx == Ctx::kEvent || ctx == Ctx::kArgs) key_.assign(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    error_offset = position > 0 ? position - 1 : 0;  // position counts the offending byte
    error_text = ex.what();
    const size_t close = error_text.find("] ");
    if (error_text.rfind("[json.exception", 0) == 0 && close != std::string::npos) error_text.erase(0, close + 2);
    return false;
  }

 private:
  enum class Ctx : uint8_t { kRoot, kEvents, kEvent, kArgs, kOther };
  struct Value {
    enum Kind { kOther, kNumber, kString } kind = kOther;
    double number = 0;
    int64_t integer = 0;
    const std::string* text = nullptr;
  };
  struct Current {
    RawEvent ev;
    std::string name, args_name;
    bool has_ts = false, has_dur = false, has_pid = false, has_tid = false;
  };

  bool Scalar(const Value& v) {
    if (stack_.empty()) return true;  // a bare scalar document: refused after the parse
    const Ctx ctx = stack_.back();
    if (ctx == Ctx::kArgs) {
      if (key_ == "name" && v.kind == Value::kString) cur_.args_name = *v.text;
      return true;
    }
    if (ctx != Ctx::kEvent) return true;
    if (key_ == "name") {
      if (v.kind == Value::kString) cur_.name = *v.text;
    } else if (key_ == "ph") {
      if (v.kind == Value::kString && !v.text->empty()) cur_.ev.ph = (*v.text)[0];
    } else if (key_ == "ts") {
      cur_.has_ts = Number(v, &cur_.ev.ts);
    } else if (key_ == "dur") {
      cur_.has_dur = Number(v, &cur_.ev.dur);
    } else if (key_ == "pid") {
      cur_.has_pid = Id(v, &cur_.ev.pid);
    } else if (key_ == "tid") {
      cur_.has_tid = Id(v, &cur_.ev.tid);
    }
    return true;
  }

  // Numbers, and numbers written as strings (some exporters quote ts).
  static bool Number(const Value& v, double* out) {
    if (v.kind == Value::kNumber) {
      *out = v.number;
      return true;
    }
    if (v.kind != Value::kString || v.text->empty()) return false;
    char* end = nullptr;
    const double d = std::strtod(v.text->c_str(), &end);
    if (end != v.text->c_str() + v.text->size()) return false;
    *out = d;
    return true;
  }

  bool Id(const Value& v, int64_t* out) {
    if (v.kind == Value::kNumber) {
      *out = v.integer;
      return true;
    }
    if (v.kind != Value::kString) return false;
    auto [it, fresh] = string_id_index_.emplace(*v.text, string_ids.size());
    if (fresh) string_ids.push_back(*v.text);
    *out = kStringIdBase + static_cast<int64_t>(it->second);
    return true;
  }

  uint32_t Intern(const std::string& name) {
    auto [it, fresh] = name_index_.emplace(name, static_cast<uint32_t>(names.size()));
    if (fresh) names.push_back(name);
    return it->second;
  }

  void Commit() {
    RawEvent& ev = cur_.ev;
    switch (ev.ph) {
      case 'M':
        if (cur_.name == "process_name") {
          process_names[ev.pid] = cur_.args_name;
        } else if (cur_.name == "thread_name") {
          thread_names[{ev.pid, ev.tid}] = cur_.args_name;
        }
        return;
      case 'X':
      case 'B':
      case 'E':
        break;
      case 'i':
      case 'I':
      case 'n':
        ++instants;
        return;
      case 0:
        ++without_ph;
        return;
      default:
        return;  // counters, flows, async events: not spans
    }
    if (!cur_.has_ts) {
      ++without_ts;
      return;
    }
    if (ev.ph == 'X' && !cur_.has_dur) ++without_dur;
    if (!cur_.has_pid) ++without_pid;
    if (!cur_.has_tid) ++without_tid;
    ev.name = Intern(cur_.name);
    events.push_back(ev);
  }

  std::vector<Ctx> stack_;
  std::string key_;
  Current cur_;
  std::unordered_map<std::string, uint32_t> name_index_;
  std::unordered_map<std::string, size_t> string_id_index_;
};

// "rank 3", "Rank3", "rank_12", "rank:0" -> the number.
std::optional<int32_t> RankFromName(std::string_view name) {
  for (size_t at = 0; at + 4 <= name.size(); ++at) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(name[at - 1]))) continue;
    bool word = true;
    for (size_t k = 0; k < 4; ++k) word = word && std::tolower(static_cast<unsigned char>(name[at + k])) == "rank"[k];
    if (!word) continue;
    size_t p = at + 4;
    while (p < name.size() && (name[p] == ' ' || name[p] == '_' || name[p] == '-' || name[p] == ':' || name[p] == '#')) ++p;
    int64_t v = 0;
    size_t digits = p;
    while (digits < name.size() && IsDigit(name[digits]) && v < INT32_MAX) v = v * 10 + (name[digits++] - '0');
    if (digits > p && v <= INT32_MAX) return static_cast<int32_t>(v);
  }
  return std::nullopt;
}

// Spans from the parsed events: ranks and cores from the metadata, B/E paired per thread.
SpanSet BuildTraceSpans(const TraceHandler& h, std::string_view origin) {
  SpanSet set;
  set.source = "trace";
  set.inputs = {std::string(origin)};

  std::map<int64_t, int32_t> ranks;
  auto rank_of = [&](int64_t pid) {
    auto it = ranks.find(pid);
    if (it != ranks.end()) return it->second;
    std::optional<int32_t> r;
    auto pn = h.process_names.find(pid);
    if (pn != h.process_names.end()) r = RankFromName(pn->second);
    if (!r && pid >= kStringIdBase) {
      r = RankFromName(h.string_ids[static_cast<size_t>(pid - kStringIdBase)]);
      if (!r) r = static_cast<int32_t>(pid - kStringIdBase);
    }
    if (!r) r = static_cast<int32_t>(pid);
    ranks.emplace(pid, *r);
    return *r;
  };
  struct Core {
    collect::CoreKind kind = collect::CoreKind::kUnknown;
    uint32_t index = 0;
  };
  // The seed's collector names AIC and AIV core N both "Core N" and keeps the kind only in the tid
  // string, "type<t>_...": t is the index of the core type's tensor in the dump, [AIC, AIV], or
  // one tensor of AIV rows (as collect reads the .pt). Without this AIC N and AIV N merge.
  auto seed_type = [](std::string_view tid) -> int {
    if (tid.size() < 6 || tid.substr(0, 4) != "type" || !IsDigit(tid[4]) || tid[5] != '_') return -1;
    return tid[4] - '0';
  };
  bool seed_two_types = false;
  for (const std::string& id : h.string_ids) seed_two_types = seed_two_types || seed_type(id) == 1;
  std::map<std::pair<int64_t, int64_t>, Core> cores;
  auto core_of = [&](int64_t pid, int64_t tid) {
    auto it = cores.find({pid, tid});
    if (it != cores.end()) return it->second;
    Core c;
    c.index = static_cast<uint32_t>(tid);
    bool named = false;
    auto tn = h.thread_names.find({pid, tid});
    if (tn != h.thread_names.end()) named = ParseThreadName(tn->second, &c.kind, &c.index);
    if (!named && tid >= kStringIdBase) {
      const size_t k = static_cast<size_t>(tid - kStringIdBase);
      if (!ParseThreadName(h.string_ids[k], &c.kind, &c.index)) c.index = static_cast<uint32_t>(k);
    }
    if (c.kind == collect::CoreKind::kUnknown && tid >= kStringIdBase) {
      int t = seed_type(h.string_ids[static_cast<size_t>(tid - kStringIdBase)]);
      if (t == 0) c.kind = seed_two_types ? collect::CoreKind::kAic : collect::CoreKind::kAiv;
      if (t == 1) c.kind = collect::CoreKind::kAiv;
    }
    cores.emplace(std::make_pair(pid, tid), c);
    return c;
  };
  std::vector<std::string> labels(h.names.size());
  for (size_t i = 0; i < h.names.size(); ++i) labels[i] = StripLegacyDecorations(h.names[i]);
  auto add = [&](const RawEvent& ev, double begin, double end, uint32_t name) {
    Span s;
    s.rank = rank_of(ev.pid);
    const Core c = core_of(ev.pid, ev.tid);
    s.kind = c.kind;
    s.core = c.index;
    s.label = labels[name];
    s.begin_us = begin;
    s.end_us = end;
    set.spans.push_back(std::move(s));
  };

  // Complete events; B/E gathered per thread, in file order.
  std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> be;
  size_t negative = 0;
  for (size_t i = 0; i < h.events.size(); ++i) {
    const RawEvent& ev = h.events[i];
    if (ev.ph == 'X') {
      if (ev.dur < 0) ++negative;
      add(ev, ev.ts, ev.ts + std::max(ev.dur, 0.0), ev.name);
    } else {
      be[{ev.pid, ev.tid}].push_back(static_cast<uint32_t>(i));
    }
  }
  // B/E: each E closes the innermost open B of its thread (Chrome's rule). Sorting by ts (stable,
  // so equal stamps keep file order) forgives writers that interleave threads out of order.
  size_t unmatched_b = 0, unmatched_e = 0, renamed = 0;
  std::vector<uint32_t> open;
  for (auto& [thread, list] : be) {
    std::stable_sort(list.begin(), list.end(),
                     [&](uint32_t a, uint32_t b) { return h.events[a].ts < h.events[b].ts; });
    open.clear();
    for (uint32_t i : list) {
      const RawEvent& ev = h.events[i];
      if (ev.ph == 'B') {
        open.push_back(i);
        continue;
      }
      if (open.empty()) {
        ++unmatched_e;
        continue;
      }
      const RawEvent& b = h.events[open.back()];
      open.pop_back();
      if (!h.names[ev.name].empty() && ev.name != b.name) ++renamed;
      add(b, b.ts, ev.ts, b.name);
    }
    unmatched_b += open.size();
  }

  auto warn = [&](size_t n, std::string_view what) {
    if (n) set.warnings.push_back(fmt::format("{}: {} {}", origin, n, what));
  };
  warn(unmatched_b, "B events without their E ignored");
  warn(unmatched_e, "E events without a B ignored");
  warn(renamed, "E events named differently from the B they close (paired by nesting; the B's name kept)");
  warn(negative, "X events with a negative dur (kept as zero length)");
  warn(h.without_dur, "X events without dur (kept as zero length)");
  warn(h.without_ts, "span events without ts ignored");
  warn(h.without_ph, "events without ph ignored");
  warn(h.without_tid, "span events without a tid (no core): put on core 0 of an unknown kind");
  warn(h.without_pid, "span events without a pid: counted as rank 0");
  warn(h.instants, "instant events ignored (an unmatched B or E in an optrace trace)");
  FinishSpans(set.spans);
  return set;
}

}  // namespace

Result<SpanSet> ParseTraceSpans(std::string_view json_text, std::string_view origin) {
  size_t skipped = 0;
  if (json_text.substr(0, 3) == "\xEF\xBB\xBF") skipped = 3;  // a UTF-8 byte order mark
  TraceHandler h;
  const char* begin = json_text.data() + skipped;
  const char* end = json_text.data() + json_text.size();
  if (!nlohmann::json::sax_parse(begin, end, &h)) {
    return BadInputError("{}: malformed JSON at byte {} ({}); the trace is truncated or is not JSON", origin,
                         h.error_offset + skipped, h.error_text);
  }
  if (!h.root_is_container) {
    return BadInputError("{}: not a trace: expected an object with \"traceEvents\" or an array of events", origin);
  }
  if (!h.saw_events_array) {
    return BadInputError("{}: not a trace: the top-level object has no \"traceEvents\" array", origin);
  }
  SpanSet set = BuildTraceSpans(h, origin);
  if (set.spans.empty()) {
    return BadInputError("{}: the trace has no span events ({} events read; spans are ph \"X\" events or B/E pairs); "
                         "nothing to explain",
                         origin, h.events.size() + h.instants);
  }
  return set;
}

Result<SpanSet> ReadTraceSpans(const std::filesystem::path& path) {
  const std::string name = path.string();
  Result<int> opened = OpenRegularFile(path);
  if (!opened.ok()) {
    if (opened.status().code() == StatusCode::kNotFound)
      return NotFoundError("{}: no such file; give the trace optrace collect wrote", name);
    return opened.status();
  }
  const int fd = *opened;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return BadInputError("{}: not a file; give a trace file (.json)", name);
  }
  if (S_ISREG(st.st_mode)) {
    if (st.st_size == 0) {
      ::close(fd);
      return BadInputError("{}: the file is empty; the trace has no span events", name);
    }
    // Mapped, not copied: a trace of hundreds of MB costs page cache, not heap. A trace rewritten
    // while it is parsed is an error, not SIGBUS (core/mapped_file.h).
    ::close(fd);
    OPTRACE_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
    Result<SpanSet> r = ParseTraceSpans(file.bytes(), name);
    OPTRACE_RETURN_IF_ERROR(file.CheckWhole());
    return r;
  }
  // A pipe or other stream: read it whole.
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return IoError("{}: read failed: {}", name, std::strerror(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return ParseTraceSpans(text, name);
}

void ComputeParents(SpanSet& set) {
  // Sorted by (core, begin, -end): every enclosing span comes before its children, and the chain
  // of spans still open at a span's begin is a stack.
  std::vector<int> open;
  for (size_t i = 0; i < set.spans.size(); ++i) {
    Span& s = set.spans[i];
    if (i == 0 || std::tie(s.rank, s.kind, s.core) !=
                      std::tie(set.spans[i - 1].rank, set.spans[i - 1].kind, set.spans[i - 1].core)) {
      open.clear();
    }
    // Drop the open spans that end before this one does: they do not contain it.
    while (!open.empty() && set.spans[static_cast<size_t>(open.back())].end_us < s.end_us) open.pop_back();
    s.parent = open.empty() ? -1 : open.back();
    open.push_back(static_cast<int>(i));
  }
}

}  // namespace optrace::explain
