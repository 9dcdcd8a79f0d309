// Chrome Trace Event JSON writer (SPEC section 7), streaming to the given stream.
//
//   ChromeTraceOptions opt;  opt.align = Align::kRank;
//   OPTRACE_RETURN_IF_ERROR(WriteChromeTrace(result.collection, opt, other_data_json, out));
//
// One process per rank ("rank N", pid N, sorted by rank), one thread per core ("AIC 0".. then
// "AIV 0"..; tid = kind * 100000 + core index, sort index the same), complete events (ph X)
// with args {index, extra, seq, file, line}; unmatched B/E as thread-scoped instant events
// (ph i) with args.unmatched = "B" or "E". Timestamps in microseconds (3 decimals = ns)
// relative to the rank's earliest event (Align::kRank), the earliest event of all ranks
// (kGlobal), or the raw counter (kNone). `other_data_json` becomes "otherData".
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "collect/collector.h"
#include "collect/model.h"
#include "core/status.h"

namespace optrace::collect {

enum class Align { kRank, kGlobal, kNone };

struct ChromeTraceOptions {
  Align align = Align::kRank;
  NameStyle names = NameStyle::kLabel;
  bool fifo_names = false;  // NameStyle::kLegacy under --extra-mode legacy: "label [extra:<word>]"
};

// The tick each rank's timestamps count from, per `align` (shared with the Perfetto writer).
std::map<int32_t, int64_t> RankOrigins(const Collection& c, Align align);

// ticks * us_per_tick in nanoseconds, rounded half away from zero: the one conversion both
// trace writers use, so the JSON and protobuf traces agree to the nanosecond.
int64_t TicksToNs(int64_t ticks, double us_per_tick);
// The same for a clock of whole hertz, in integer arithmetic: exact (rounded to the nearest ns)
// for any tick count, where a double loses the low bits of a ns-since-1970 clock (1.7e18 ticks
// of CUDA's %globaltimer come out in steps of 256 ns). Other clocks: TicksToNs.
int64_t TicksToNsAtHz(int64_t ticks, double clock_hz);

// Thread id of a core in the trace: kind * 100000 + core index.
int64_t TraceThreadId(CoreKind kind, uint32_t core_index);

Status WriteChromeTrace(const Collection& c, const ChromeTraceOptions& opt, std::string_view other_data_json,
                        std::ostream& out);

// The same trace written in steps, for a collection that arrives one rank at a time (collect's
// streaming path); WriteChromeTrace is Begin + Intervals(all) + Finish, so both write the same
// bytes.
//
//   ChromeTraceWriter w(opt, out);
//   w.Begin(every_core);                           // processes and threads: all of them first
//   w.Intervals(c, rank_intervals, origins);       // per rank, in trace order; origins has the rank
//   OPTRACE_RETURN_IF_ERROR(w.Finish(c, origins, other_data_json));  // instants, otherData
class ChromeTraceWriter {
 public:
  ChromeTraceWriter(const ChromeTraceOptions& opt, std::ostream& out);
  ~ChromeTraceWriter();
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  // `cores`: every core of the trace (rank, kind, core index; the clock is not used).
  void Begin(std::span<const SeriesInfo> cores);
  // `origins`: the tick each rank counts from (RankOrigins), at least for these intervals' ranks.
  void Intervals(const Collection& c, std::span<const Interval> intervals, const std::map<int32_t, int64_t>& origins);
  Status Finish(const Collection& c, const std::map<int32_t, int64_t>& origins, std::string_view other_data_json);
  // True when every label written so far still has the begin source it was written with. The
  // whole-collection writer uses each label's final one, which differs only when a label has two
  // B points in different places and the second is met after intervals of the first were written.
  bool SourcesUnchanged(const Collection& c) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

const char* AlignName(Align a);

// Appends `s` as a JSON string literal (quotes included).
void AppendJsonString(std::string& out, std::string_view s);

}  // namespace optrace::collect
