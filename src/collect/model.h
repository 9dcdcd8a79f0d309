// The collector's data model: what the readers produce and every later stage consumes.
//
//   Dump dump = ...;                      // one rank file, decoded (native_reader / legacy_reader)
//   for (const CoreSeries& c : dump.cores) for (const Event& e : c.events) ...
//
// Times stay in ticks of each core's clock until a writer or the statistics convert them;
// Clock (below) does that conversion the same way everywhere.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "optrace/format.h"

namespace optrace::collect {

using format::CoreKind;

enum class DumpFormat {
  kNative,  // rank<N>.bin: buffer format v1 (SPEC section 4)
  kLegacy,  // rank<NNN>.pt: torch.save of the seed toolchain's tensors (SPEC section 5)
};

// One record as the core wrote it.
struct Event {
  uint32_t point_id = 0;
  uint32_t payload = 0;  // MoeTracing's index, or extraId | index << 8
  int64_t ticks = 0;
};

// Everything one core (one slot, or one legacy tensor row) recorded.
struct CoreSeries {
  CoreKind kind = CoreKind::kUnknown;
  uint32_t core_index = 0;
  uint32_t sub_block = 0;
  uint32_t slot = 0;        // slot (native) or row (legacy) in the dump
  double clock_hz = 0;      // ticks per second
  int64_t start_ticks = 0;  // header start timestamp (native) / initial timestamp (legacy)
  uint32_t capacity = 0;    // events the slot could hold
  uint64_t dropped = 0;     // events lost because the slot was full (native only)
  uint64_t fingerprint = 0;
  std::vector<Event> events;
};

// How much of a dump a reader decodes. kLayout is collect's first pass when it streams the trace:
// which cores a readable dump holds (the trace's process and thread list comes before any event),
// without their events and without the zip CRC-32 (the full read checks it; a rank that fails
// only there makes collect start again, held in memory).
// kDeferred is collect's full read: what kFull gives, except that a reader that can leave each
// core's events in the file until asked does (Dump::deferred), so a rank's events are never all
// in memory at once; the others read them as kFull does.
enum class DumpDetail { kFull, kLayout, kDeferred };

// A dump's events left in its file (DumpDetail::kDeferred): Load() reads one core's, checked when
// the file was first read, as that core's turn comes; the caller drops them when done with it.
class DeferredEvents {
 public:
  virtual ~DeferredEvents() = default;
  // Fills core.events (a core of the Dump this came with). Fails only when the file changed
  // since it was read (truncated under us).
  virtual Status Load(CoreSeries& core) = 0;
  // The events Load gives over all the dump's cores.
  virtual uint64_t EventCount() const = 0;
};

struct Dump {
  std::string path;
  int rank = 0;
  DumpFormat format = DumpFormat::kNative;
  uint32_t slot_words = 0;       // PROF_SIZE_PER_CORE (native) / PROF_SIZE (legacy)
  uint32_t never_written = 0;    // slots / rows without a header (kernel did not run there)
  std::vector<uint32_t> never_written_slots;
  uint32_t never_written_nonzero = 0;  // of those, slots holding leftover memory (not zeroed)
  std::vector<CoreSeries> cores;
  // Slots whose header is damaged where the rest of the dump is sound (a magic overwritten beside
  // an intact header, an impossible dropped count): what is wrong, one line each; not decoded.
  std::vector<std::string> corrupt_slots;
  // Set when the cores' events are still in the file (DumpDetail::kDeferred): load each with it.
  std::shared_ptr<DeferredEvents> deferred;
};

// A matched B/E pair.
struct Interval {
  int32_t rank = 0;
  CoreKind kind = CoreKind::kUnknown;
  uint32_t core_index = 0;
  uint32_t label = 0;        // index into Collection::labels
  int64_t begin_ticks = 0;
  int64_t end_ticks = 0;
  uint32_t begin_payload = 0;
  uint32_t end_payload = 0;
  uint32_t series = 0;       // index into Collection::series (clock, file)
  uint32_t depth = 1;        // height counted from the leaves: a leaf is 1
  int64_t self_ticks = 0;    // duration minus the direct children's durations
};

// A B without its E or an E without its B: kept as an instant event, flagged.
struct Instant {
  int32_t rank = 0;
  CoreKind kind = CoreKind::kUnknown;
  uint32_t core_index = 0;
  uint32_t label = 0;
  uint32_t point_id = 0;
  bool is_begin = true;
  int64_t ticks = 0;
  uint32_t payload = 0;
  uint32_t series = 0;
};

// What a label is called and where its B and E points are in the source.
struct LabelInfo {
  std::string name;
  uint32_t label_key = 0;  // label_id (FNV scheme) or the B point id (legacy maps)
  std::string begin_file;
  int begin_line = 0;
  std::string end_file;
  int end_line = 0;
};

// Per-core identity used by writers: which rank/core, which clock.
struct SeriesInfo {
  int32_t rank = 0;
  CoreKind kind = CoreKind::kUnknown;
  uint32_t core_index = 0;
  double clock_hz = 0;
};

// The whole collection after pairing.
struct Collection {
  std::vector<LabelInfo> labels;
  std::vector<SeriesInfo> series;
  std::vector<Interval> intervals;  // sorted by (rank, kind, core, begin, -end)
  std::vector<Instant> instants;
};

const char* CoreKindName(CoreKind kind);        // "AIC", "AIV", "block", "thread", "core"
const char* CoreKindKey(CoreKind kind);         // "aic", "aiv", "block", "thread", "core"
// Payload split of MoeTracing(id, extraId, index): extra = low 8 bits, seq = the rest.
inline uint32_t ExtraOf(uint32_t payload) { return payload & 0xffu; }
inline uint32_t SeqOf(uint32_t payload) { return payload >> 8; }

}  // namespace optrace::collect
