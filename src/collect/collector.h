// The collector pipeline: read dumps -> decode slots -> resolve point ids -> pair B/E ->
// nesting (depth, self time) -> Collection + Diagnostics. Writers and statistics take it from there.
//
//   CollectOptions o;
//   o.inputs = {"dumps/"};
//   o.map = &point_map;            // optional for native dumps, required for legacy ones
//   OPTRACE_ASSIGN_OR_RETURN(CollectResult r, Collect(o));
//
// Files are decoded one at a time and dropped once paired, so memory follows the intervals,
// not the dumps. Unreadable input is an error (Status); data problems are counted in
// r.diagnostics (see diagnostics.h) and the collection stays usable.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collect/diagnostics.h"
#include "collect/dump_files.h"
#include "collect/model.h"
#include "collect/pairing.h"
#include "core/point_map.h"
#include "core/status.h"

namespace optrace::collect {

enum class NameStyle {
  kLabel,   // the label ("dispatch send"); payload in args
  kLegacy,  // the reference collector's names: "label#seq" when seq = payload >> 8 is non-zero
};

// Takes the intervals as they are made (CollectOptions::sink) instead of the whole collection at
// the end: collect then holds one core's intervals (or one rank's, see Collect), not every rank's.
class IntervalSink {
 public:
  virtual ~IntervalSink() = default;
  // Before any interval: every core of every dump that reads (collect's layout pass).
  virtual Status Begin(std::span<const SeriesInfo> cores) = 0;
  // Each rank in turn, before its intervals: the earliest tick of its intervals and instants
  // (nullopt: it has none), which a trace aligned per rank counts the rank's time from.
  virtual Status BeginRank(int32_t rank, std::optional<int64_t> earliest) = 0;
  // Intervals of the rank begun last, in the collection's order (kind, core, begin), depth
  // applied: a core's or the whole rank's at a time; `c` holds every label and series so far.
  virtual Status TakeIntervals(const Collection& c, std::span<const Interval> intervals) = 0;
};

struct CollectOptions {
  std::vector<std::string> inputs;
  const PointMap* map = nullptr;
  std::string map_origin;           // where the map came from, for messages and otherData
  double legacy_clock_mhz = 50;     // legacy dumps, and native slots whose header has no clock
  // false: legacy dumps whose timestamps are nanoseconds since 1970 (CPU-debug mode) are read at
  // 1 GHz whatever legacy_clock_mhz says; true (--clock-mhz given): legacy_clock_mhz always.
  bool legacy_clock_explicit = false;
  std::optional<PairMode> mode;     // default: kNest for native dumps, kSeq for legacy ones
  uint32_t depth = 0;               // keep intervals of depth <= N counted from the leaves (0 = all)
  std::function<void(size_t done, size_t total, const std::string& file)> progress;
  // Set: intervals go to the sink rank by rank and the result's collection keeps none
  // (interval_count says how many).
  IntervalSink* sink = nullptr;
};

struct InputSummary {
  std::string path;
  int rank = 0;
  DumpFormat format = DumpFormat::kNative;
  uint32_t slot_words = 0;
  size_t cores = 0;
  size_t never_written = 0;
  uint64_t events = 0;
  uint64_t dropped = 0;
  PairMode mode = PairMode::kNest;
};

struct CollectResult {
  Collection collection;           // with a sink: labels, series and instants, no intervals
  uint64_t interval_count = 0;     // intervals collected (held or given to the sink)
  // With a sink only: a dump read differently than in the layout pass (a zip CRC error, which
  // that pass does not check, or a file that changed meanwhile), or a rank whose earliest tick,
  // given to the sink before its intervals, was not the one they had. Nothing else in this result
  // is meaningful; what the sink was given must be discarded and the collection made without one.
  bool layout_changed = false;
  Diagnostics diagnostics;
  std::vector<InputSummary> inputs;
  uint64_t records = 0;            // events read
  uint64_t skipped_no_mapping = 0;
  size_t ids_in_dumps = 0, ids_in_map = 0, ids_in_both = 0;
  size_t unreadable_ranks = 0;     // named in Problem::kRankUnreadable; the others were collected
};

// Every rank is read on its own: one that is empty, truncated, corrupt or unreadable is a
// Problem::kRankUnreadable and the others are collected; an error only when no rank could be read.
Result<CollectResult> Collect(const CollectOptions& options);

// One rank's dump, decoded (kLayout: its cores only; see DumpDetail). Native dumps are mapped (a
// decoder reads their slot headers, then the events of written slots); legacy dumps are mapped
// and decoded whole, or with `buffer` read a block of rows at a time into it (ReadLegacyDumpFile:
// memory follows the events, not the file, and one buffer serves every file).
Result<Dump> ReadDump(const RankFile& f, double legacy_clock_hz, DumpDetail detail = DumpDetail::kFull,
                      std::string* buffer = nullptr);

// True when a legacy dump's timestamps are CLOCK_REALTIME nanoseconds, as CANN's CPU-debug
// GetSystemCycle() writes them: every written row starts after 2001-09-09 (1e18 ns) and before
// 2096 (4e18). A 50 MHz counter would need 634 years of uptime to reach the first.
bool LooksLikeCpuDebugClock(const Dump& dump);

// "label"; under NameStyle::kLegacy the reference collector's names (SPEC 5):
// "label [extra:<low 8 bits>] #<high 24 bits>" (seq pairing), "label [extra:<extra word>]" (FIFO).
std::string IntervalName(const LabelInfo& label, uint32_t payload, NameStyle style, bool fifo = false);

const char* PairModeName(PairMode m);  // "nest", "seq", "legacy"

}  // namespace optrace::collect
