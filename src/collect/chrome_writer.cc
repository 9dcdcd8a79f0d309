#include "collect/chrome_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace optrace::collect {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

// Appends ticks * us_per_tick as microseconds with 3 decimals (ns), via integers: much faster
// than formatting doubles, and exact for the usual clocks (50 MHz = 20 ns per tick).
void AppendUs(std::string& b, int64_t ticks, double us_per_tick) {
  const double ns_d = static_cast<double>(ticks) * us_per_tick * 1000.0;
  int64_t ns = static_cast<int64_t>(ns_d < 0 ? ns_d - 0.5 : ns_d + 0.5);
  if (ns < 0) {
    b += '-';
    ns = -ns;
  }
  fmt::format_int whole(ns / 1000);
  b.append(whole.data(), whole.size());
  const int frac = static_cast<int>(ns % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  b.append(digits, 4);
}

void AppendInt(std::string& b, int64_t v) {
  fmt::format_int f(v);
  b.append(f.data(), f.size());
}

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

void Flush(std::string& buf, std::ostream& out) {
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  buf.clear();
}

void AppendArgs(std::string& b, const LabelInfo& l, uint32_t payload, bool end_side) {
  b += "\"index\":";
  AppendInt(b, payload);
  b += ",\"extra\":";
  AppendInt(b, ExtraOf(payload));
  b += ",\"seq\":";
  AppendInt(b, SeqOf(payload));
  const std::string& file = end_side ? l.end_file : l.begin_file;
  const int line = end_side ? l.end_line : l.begin_line;
  if (!file.empty()) {
    b += ",\"file\":";
    AppendJsonString(b, file);  // short; escaping per event is cheaper than caching per label side
    b += ",\"line\":";
    AppendInt(b, line);
  }
}

}  // namespace

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

void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (char ch : s) {
    const unsigned char u = static_cast<unsigned char>(ch);
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

Status WriteChromeTrace(const Collection& c, const ChromeTraceOptions& opt, std::string_view other_data_json,
                        std::ostream& out) {
  const Origins origins = FindOrigins(c, opt.align);
  std::string b;
  b.reserve(kFlushBytes + 4096);
  b += "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) b += ",\n";
    first = false;
  };
  // Metadata: processes and threads, from the series (every core read, even one with no events).
  std::set<int32_t> ranks;
  std::set<std::tuple<int32_t, int64_t, CoreKind, uint32_t>> threads;
  for (const SeriesInfo& s : c.series) {
    ranks.insert(s.rank);
    threads.emplace(s.rank, TraceThreadId(s.kind, s.core_index), s.kind, s.core_index);
  }
  for (int32_t rank : ranks) {
    sep();
    fmt::format_to(std::back_inserter(b),
                   "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{0},\"tid\":0,\"args\":{{\"name\":\"rank {0}\"}}}},\n"
                   "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{0},\"tid\":0,\"args\":{{\"sort_index\":{0}}}}}",
                   rank);
  }
  for (const auto& [rank, tid, kind, core] : threads) {
    sep();
    fmt::format_to(std::back_inserter(b),
                   "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{0},\"tid\":{1},\"args\":{{\"name\":\"{2} {3}\"}}}},\n"
                   "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{0},\"tid\":{1},\"args\":{{\"sort_index\":{1}}}}}",
                   rank, tid, CoreKindName(kind), core);
  }
  // Names are written once per label (escaped), not per event.
  std::vector<std::string> names(c.labels.size());
  for (size_t i = 0; i < c.labels.size(); ++i) AppendJsonString(names[i], c.labels[i].name);
  std::string legacy_name;
  for (const Interval& iv : c.intervals) {
    const SeriesInfo& s = c.series[iv.series];
    const double us = 1e6 / s.clock_hz;
    const int64_t origin = origins.by_rank.at(iv.rank);
    sep();
    b += "{\"name\":";
    if (opt.names == NameStyle::kLegacy && SeqOf(iv.begin_payload) != 0) {
      legacy_name.clear();
      AppendJsonString(legacy_name, IntervalName(c.labels[iv.label], iv.begin_payload, opt.names));
      b += legacy_name;
    } else {
      b += names[iv.label];
    }
    b += ",\"cat\":\"";
    b += CoreKindName(iv.kind);
    b += "\",\"ph\":\"X\",\"pid\":";
    AppendInt(b, iv.rank);
    b += ",\"tid\":";
    AppendInt(b, TraceThreadId(iv.kind, iv.core_index));
    b += ",\"ts\":";
    AppendUs(b, iv.begin_ticks - origin, us);
    b += ",\"dur\":";
    AppendUs(b, iv.end_ticks - iv.begin_ticks, us);
    b += ",\"args\":{";
    AppendArgs(b, c.labels[iv.label], iv.begin_payload, false);
    if (iv.end_payload != iv.begin_payload) {
      b += ",\"end_index\":";
      AppendInt(b, iv.end_payload);
    }
    b += ",\"depth\":";
    AppendInt(b, iv.depth);
    b += "}}";
    if (b.size() >= kFlushBytes) Flush(b, out);
  }
  for (const Instant& in : c.instants) {
    const SeriesInfo& s = c.series[in.series];
    const int64_t origin = origins.by_rank.at(in.rank);
    sep();
    b += "{\"name\":";
    b += names[in.label];
    fmt::format_to(std::back_inserter(b),
                   ",\"cat\":\"{}\",\"ph\":\"i\",\"s\":\"t\",\"pid\":{},\"tid\":{},\"ts\":",
                   CoreKindName(in.kind), in.rank, TraceThreadId(in.kind, in.core_index));
    AppendUs(b, in.ticks - origin, 1e6 / s.clock_hz);
    b += ",\"args\":{\"unmatched\":\"";
    b += in.is_begin ? "B\"," : "E\",";
    AppendArgs(b, c.labels[in.label], in.payload, !in.is_begin);
    b += "}}";
    if (b.size() >= kFlushBytes) Flush(b, out);
  }
  b += "\n],\n\"otherData\":";
  b += other_data_json.empty() ? std::string_view("{}") : other_data_json;
  b += "}\n";
  Flush(b, out);
  if (!out) return IoError("writing the trace failed (disk full?)");
  return Status::Ok();
}

}  // namespace optrace::collect
