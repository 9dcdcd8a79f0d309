#include "collect/chrome_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace optrace::collect {
namespace {

// 256 KiB: 64 KiB would save 192 KiB of collect's ~2 MB heap but costs 2-3% of its CPU on this
// VM (four times the write syscalls, each a costly return from the hypervisor).
constexpr size_t kFlushBytes = 1 << 18;

struct Origins {
  std::map<int32_t, int64_t> by_rank;  // earliest tick per rank
  int64_t global = 0;
};

Origins FindOrigins(const Collection& c, Align align) {
  Origins o;
  auto see = [&](int32_t rank, int64_t t) {
    auto [it, fresh] = o.by_rank.emplace(rank, t);
    if (!fresh) it->second = std::min(it->second, t);
  };
  for (const Interval& iv : c.intervals) see(iv.rank, iv.begin_ticks);
  for (const Instant& in : c.instants) see(in.rank, in.ticks);
  int64_t g = std::numeric_limits<int64_t>::max();
  for (const auto& [rank, t] : o.by_rank) g = std::min(g, t);
  o.global = o.by_rank.empty() ? 0 : g;
  if (align == Align::kGlobal) {
    for (auto& [rank, t] : o.by_rank) t = o.global;
  } else if (align == Align::kNone) {
    for (auto& [rank, t] : o.by_rank) t = 0;
  }
  return o;
}

// The fixed part of one complete event without its name, core prefix and source args: keys,
// punctuation, two timestamps and five integers (generously rounded up).
constexpr size_t kEventFixedBytes = 256;

// A flat output buffer for the event loop: Reserve() once per event, then appends are plain
// copies of known size (no per-append capacity checks or strlen, which dominated the
// std::string version).
class TraceBuffer {
 public:
  explicit TraceBuffer(std::ostream& out) : out_(out), buf_(kFlushBytes + kEventFixedBytes) {}

  void Reserve(size_t n) {
    if (used_ + n <= buf_.size()) return;
    Flush();
    if (n > buf_.size()) buf_.resize(n);
  }
  void Flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(used_));
    used_ = 0;
  }
  bool ok() const { return static_cast<bool>(out_); }
  // For the parts whose size is not bounded by Reserve (metadata, other data, instants).
  void Str(std::string_view s) {
    if (used_ + s.size() > buf_.size()) {
      Reserve(s.size());
    }
    std::memcpy(buf_.data() + used_, s.data(), s.size());
    used_ += s.size();
  }
  template <size_t N>
  void Lit(const char (&s)[N]) {
    if (used_ + N > buf_.size()) Reserve(N);
    std::memcpy(buf_.data() + used_, s, N - 1);
    used_ += N - 1;
  }
  void Int(int64_t v) {
    fmt::format_int f(v);
    std::memcpy(buf_.data() + used_, f.data(), f.size());
    used_ += f.size();
  }
  // ticks * us_per_tick as microseconds with 3 decimals (ns), via integers: much faster than
  // formatting doubles, and exact for the usual clocks (50 MHz = 20 ns per tick).
  void Us(int64_t ticks, double us_per_tick) { UsOfNs(TicksToNs(ticks, us_per_tick)); }
  void UsOfNs(int64_t ns) {
    char* p = buf_.data() + used_;
    if (ns < 0) {
      *p++ = '-';
      ns = -ns;
    }
    fmt::format_int whole(ns / 1000);
    std::memcpy(p, whole.data(), whole.size());
    p += whole.size();
    const int frac = static_cast<int>(ns % 1000);
    p[0] = '.';
    p[1] = static_cast<char>('0' + frac / 100);
    p[2] = static_cast<char>('0' + frac / 10 % 10);
    p[3] = static_cast<char>('0' + frac % 10);
    used_ = static_cast<size_t>(p + 4 - buf_.data());
  }

 private:
  std::ostream& out_;
  std::vector<char> buf_;
  size_t used_ = 0;
};

// ,"file":"op_kernel/x.h","line":12 (or nothing without a source location).
std::string SourceArgs(const std::string& file, int line) {
  if (file.empty()) return {};
  std::string s = ",\"file\":";
  AppendJsonString(s, file);
  fmt::format_to(std::back_inserter(s), ",\"line\":{}", line);
  return s;
}

}  // namespace

int64_t TicksToNs(int64_t ticks, double us_per_tick) {
  const double ns = static_cast<double>(ticks) * us_per_tick * 1000.0;
  // A flipped high bit in a timestamp, or an absurd clock, must not overflow the conversion
  // (undefined behaviour, then digits past the buffer): saturate at +-2^62 ns (146 years).
  constexpr double kLimit = 4611686018427387904.0;
  if (!(ns > -kLimit)) return ns != ns ? 0 : -static_cast<int64_t>(kLimit);
  if (!(ns < kLimit)) return static_cast<int64_t>(kLimit);
  return static_cast<int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5);
}

int64_t TicksToNsAtHz(int64_t ticks, double clock_hz) {
  if (!(clock_hz >= 1 && clock_hz <= 1e15) || clock_hz != static_cast<double>(static_cast<int64_t>(clock_hz)))
    return TicksToNs(ticks, 1e6 / clock_hz);
  const __int128 hz = static_cast<int64_t>(clock_hz);
  const __int128 scaled = static_cast<__int128>(ticks) * 1000000000;
  const __int128 ns = (scaled < 0 ? scaled - hz / 2 : scaled + hz / 2) / hz;  // to the nearest, ties away from 0
  constexpr int64_t kLimit = int64_t{1} << 62;  // as TicksToNs saturates
  if (ns > kLimit) return kLimit;
  if (ns < -kLimit) return -kLimit;
  return static_cast<int64_t>(ns);
}

std::map<int32_t, int64_t> RankOrigins(const Collection& c, Align align) { return FindOrigins(c, align).by_rank; }

const char* AlignName(Align a) {
  switch (a) {
    case Align::kRank: return "rank";
    case Align::kGlobal: return "global";
    case Align::kNone: return "none";
  }
  return "?";
}

int64_t TraceThreadId(CoreKind kind, uint32_t core_index) {
  return int64_t{static_cast<uint8_t>(kind)} * 100000 + core_index;
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i] (1-4), 0 when it is not one.
size_t Utf8Length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
  if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90))
    return 0;  // overlong, surrogate, or past U+10FFFF
  return n;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const unsigned char u = static_cast<unsigned char>(ch);
    if (u >= 0x80) {
      // Bytes that are not UTF-8 (a Latin-1 label) would make the trace invalid JSON.
      size_t n = Utf8Length(s, i);
      if (n == 0) {
        out += "\\ufffd";
      } else {
        out.append(s.data() + i, n);
        i += n - 1;
      }
      continue;
    }
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", u);
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

struct ChromeTraceWriter::State {
  State(const ChromeTraceOptions& o, std::ostream& out) : opt(o), b(out) {}

  // Everything that is constant per label or per core is formatted once, not per event: on
  // first use, so that labels and cores may keep arriving.
  struct LabelText {
    bool ready = false;
    std::string name;
    std::string begin_src;
    std::string begin_file;  // what begin_src was made from (SourcesUnchanged)
    int begin_line = 0;
  };
  struct SeriesText {
    bool ready = false;
    std::string complete;  // ,"cat":"AIC","ph":"X","pid":0,"tid":100000,"ts":
    double us_per_tick = 0;
    int64_t origin = 0;
  };

  const LabelText& Label(const Collection& c, uint32_t i) {
    if (i >= labels.size()) labels.resize(c.labels.size());
    LabelText& t = labels[i];
    if (!t.ready) {
      const LabelInfo& l = c.labels[i];
      AppendJsonString(t.name, l.name);
      t.begin_src = SourceArgs(l.begin_file, l.begin_line);
      t.begin_file = l.begin_file;
      t.begin_line = l.begin_line;
      t.ready = true;
    }
    return t;
  }
  const SeriesText& Series(const Collection& c, uint32_t i, const std::map<int32_t, int64_t>& origins) {
    if (i >= series.size()) series.resize(c.series.size());
    SeriesText& t = series[i];
    if (!t.ready) {
      const SeriesInfo& si = c.series[i];
      t.complete = fmt::format(",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":", CoreKindName(si.kind),
                               si.rank, TraceThreadId(si.kind, si.core_index));
      t.us_per_tick = 1e6 / si.clock_hz;
      auto it = origins.find(si.rank);
      t.origin = it == origins.end() ? 0 : it->second;
      t.ready = true;
    }
    return t;
  }
  void Sep() {
    if (!first) b.Lit(",\n");
    first = false;
  }

  ChromeTraceOptions opt;
  TraceBuffer b;
  bool first = true;
  std::string text;
  std::string legacy_name;
  std::vector<LabelText> labels;
  std::vector<SeriesText> series;
};

ChromeTraceWriter::ChromeTraceWriter(const ChromeTraceOptions& opt, std::ostream& out)
    : s_(std::make_unique<State>(opt, out)) {}
ChromeTraceWriter::~ChromeTraceWriter() = default;

void ChromeTraceWriter::Begin(std::span<const SeriesInfo> cores) {
  State& st = *s_;
  TraceBuffer& b = st.b;
  b.Lit("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  // Metadata: processes and threads, from the series (every core read, even one with no events).
  std::set<int32_t> ranks;
  std::set<std::tuple<int32_t, int64_t, CoreKind, uint32_t>> threads;
  for (const SeriesInfo& s : cores) {
    ranks.insert(s.rank);
    threads.emplace(s.rank, TraceThreadId(s.kind, s.core_index), s.kind, s.core_index);
  }
  std::string& text = st.text;
  for (int32_t rank : ranks) {
    st.Sep();
    text.clear();
    fmt::format_to(std::back_inserter(text),
                   "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{0},\"tid\":0,\"args\":{{\"name\":\"rank {0}\"}}}},\n"
                   "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{0},\"tid\":0,\"args\":{{\"sort_index\":{0}}}}}",
                   rank);
    b.Str(text);
  }
  for (const auto& [rank, tid, kind, core] : threads) {
    st.Sep();
    text.clear();
    fmt::format_to(std::back_inserter(text),
                   "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{0},\"tid\":{1},\"args\":{{\"name\":\"{2} {3}\"}}}},\n"
                   "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{0},\"tid\":{1},\"args\":{{\"sort_index\":{1}}}}}",
                   rank, tid, CoreKindName(kind), core);
    b.Str(text);
  }
}

void ChromeTraceWriter::Intervals(const Collection& c, std::span<const Interval> intervals,
                                  const std::map<int32_t, int64_t>& origins) {
  State& state = *s_;
  TraceBuffer& b = state.b;
  const ChromeTraceOptions& opt = state.opt;
  for (const Interval& iv : intervals) {
    const State::SeriesText& st = state.Series(c, iv.series, origins);
    const State::LabelText& lt = state.Label(c, iv.label);
    std::string_view name = lt.name;
    if (opt.names == NameStyle::kLegacy) {
      state.legacy_name.clear();
      AppendJsonString(state.legacy_name, IntervalName(c.labels[iv.label], iv.begin_payload, opt.names, opt.fifo_names));
      name = state.legacy_name;
    }
    const std::string& src = lt.begin_src;
    b.Reserve(kEventFixedBytes + name.size() + st.complete.size() + src.size());
    state.Sep();
    b.Lit("{\"name\":");
    b.Str(name);
    b.Str(st.complete);
    const int64_t begin_ns = TicksToNs(iv.begin_ticks - st.origin, st.us_per_tick);
    b.UsOfNs(begin_ns);
    b.Lit(",\"dur\":");
    // Times saturate at 2^62 ns (TicksToNs): a slice whose end lies past that ends there, as its
    // end event does in the Perfetto trace, not 2^62 ns after its begin.
    const __int128 room = (static_cast<__int128>(1) << 62) - begin_ns;
    const int64_t dur_ns = TicksToNs(iv.end_ticks - iv.begin_ticks, st.us_per_tick);
    b.UsOfNs(dur_ns > room ? static_cast<int64_t>(room) : dur_ns);
    b.Lit(",\"args\":{\"index\":");
    b.Int(iv.begin_payload);
    b.Lit(",\"extra\":");
    b.Int(ExtraOf(iv.begin_payload));
    b.Lit(",\"seq\":");
    b.Int(SeqOf(iv.begin_payload));
    b.Str(src);
    if (iv.end_payload != iv.begin_payload) {
      b.Lit(",\"end_index\":");
      b.Int(iv.end_payload);
    }
    b.Lit(",\"depth\":");
    b.Int(iv.depth);
    b.Lit("}}");
  }
}

Status ChromeTraceWriter::Finish(const Collection& c, const std::map<int32_t, int64_t>& origins,
                                 std::string_view other_data_json) {
  State& state = *s_;
  TraceBuffer& b = state.b;
  std::string& text = state.text;
  for (const Instant& in : c.instants) {
    const State::SeriesText& st = state.Series(c, in.series, origins);
    const State::LabelText& lt = state.Label(c, in.label);
    const LabelInfo& l = c.labels[in.label];
    state.Sep();
    text.clear();
    text += "{\"name\":";
    text += lt.name;
    // "I", not the spec's newer "i": MindStudio Insight's trace parser takes X, I, C, M and flows and
    // skips "i"; Perfetto and Chrome read both.
    fmt::format_to(std::back_inserter(text), ",\"cat\":\"{}\",\"ph\":\"I\",\"s\":\"t\",\"pid\":{},\"tid\":{},\"ts\":",
                   CoreKindName(in.kind), in.rank, TraceThreadId(in.kind, in.core_index));
    b.Str(text);
    b.Reserve(kEventFixedBytes);
    b.Us(in.ticks - st.origin, st.us_per_tick);
    text.assign(",\"args\":{\"unmatched\":\"");
    text += in.is_begin ? "B\"," : "E\",";
    fmt::format_to(std::back_inserter(text), "\"index\":{},\"extra\":{},\"seq\":{}", in.payload, ExtraOf(in.payload),
                   SeqOf(in.payload));
    text += in.is_begin ? lt.begin_src : SourceArgs(l.end_file, l.end_line);
    text += "}}";
    b.Str(text);
  }
  b.Lit("\n],\n\"otherData\":");
  b.Str(other_data_json.empty() ? std::string_view("{}") : other_data_json);
  b.Lit("}\n");
  b.Flush();
  if (!b.ok()) return IoError("writing the trace failed (disk full?)");
  return Status::Ok();
}

bool ChromeTraceWriter::SourcesUnchanged(const Collection& c) const {
  for (size_t i = 0; i < s_->labels.size(); ++i) {
    const State::LabelText& t = s_->labels[i];
    if (t.ready && (t.begin_file != c.labels[i].begin_file || t.begin_line != c.labels[i].begin_line)) return false;
  }
  return true;
}

Status WriteChromeTrace(const Collection& c, const ChromeTraceOptions& opt, std::string_view other_data_json,
                        std::ostream& out) {
  const std::map<int32_t, int64_t> origins = RankOrigins(c, opt.align);
  ChromeTraceWriter w(opt, out);
  w.Begin(c.series);
  w.Intervals(c, c.intervals, origins);
  return w.Finish(c, origins, other_data_json);
}

}  // namespace optrace::collect
