#include "collect/perfetto_writer.h"

#include "collect/collector.h"

#include <fmt/format.h>

#include <zlib.h>

#include <algorithm>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

namespace optrace::collect {
namespace {

// perfetto.protos field numbers (protos/perfetto/trace/...): the subset written here.
namespace field {
constexpr uint32_t kTracePacket = 1;           // Trace.packet
constexpr uint32_t kTimestamp = 8;             // TracePacket.timestamp (ns)
constexpr uint32_t kSequenceId = 10;           // TracePacket.trusted_packet_sequence_id
constexpr uint32_t kTrackEvent = 11;           // TracePacket.track_event
constexpr uint32_t kTrackDescriptor = 60;      // TracePacket.track_descriptor
constexpr uint32_t kTrackUuid = 1;             // TrackDescriptor.uuid
constexpr uint32_t kTrackName = 2;             // TrackDescriptor.name
constexpr uint32_t kTrackProcess = 3;          // TrackDescriptor.process
constexpr uint32_t kTrackThread = 4;           // TrackDescriptor.thread
constexpr uint32_t kTrackParentUuid = 5;       // TrackDescriptor.parent_uuid
constexpr uint32_t kProcessPid = 1;            // ProcessDescriptor.pid
constexpr uint32_t kProcessName = 6;           // ProcessDescriptor.process_name
constexpr uint32_t kThreadPid = 1;             // ThreadDescriptor.pid
constexpr uint32_t kThreadTid = 2;             // ThreadDescriptor.tid
constexpr uint32_t kThreadName = 5;            // ThreadDescriptor.thread_name
constexpr uint32_t kEventAnnotation = 4;       // TrackEvent.debug_annotations
constexpr uint32_t kEventType = 9;             // TrackEvent.type
constexpr uint32_t kAnnotationInt = 4;         // DebugAnnotation.int_value
// Interning (incremental state of a packet sequence).
constexpr uint32_t kCompressedPackets = 50;    // TracePacket.compressed_packets (zlib of packets)
constexpr uint32_t kInternedData = 12;         // TracePacket.interned_data
constexpr uint32_t kSequenceFlags = 13;        // TracePacket.sequence_flags
constexpr uint32_t kPacketDefaults = 59;       // TracePacket.trace_packet_defaults
constexpr uint32_t kTrackEventDefaults = 11;   // TracePacketDefaults.track_event_defaults
constexpr uint32_t kDefaultTrackUuid = 11;     // TrackEventDefaults.track_uuid
constexpr uint32_t kEventCategoryIids = 3;     // TrackEvent.category_iids
constexpr uint32_t kEventNameIid = 10;         // TrackEvent.name_iid
constexpr uint32_t kEventSourceLocationIid = 34;  // TrackEvent.source_location_iid
constexpr uint32_t kAnnotationNameIid = 1;     // DebugAnnotation.name_iid
constexpr uint32_t kAnnotationStringIid = 17;  // DebugAnnotation.string_value_iid
constexpr uint32_t kInternedCategories = 1;    // InternedData.event_categories (EventCategory)
constexpr uint32_t kInternedNames = 2;         // InternedData.event_names (EventName)
constexpr uint32_t kInternedAnnotationNames = 3;    // InternedData.debug_annotation_names
constexpr uint32_t kInternedSourceLocations = 4;    // InternedData.source_locations
constexpr uint32_t kInternedStrings = 29;      // InternedData.debug_annotation_string_values
constexpr uint32_t kIid = 1;                   // iid of every interned entry
constexpr uint32_t kInternedName = 2;          // EventName/EventCategory/DebugAnnotationName.name, InternedString.str
constexpr uint32_t kSourceFile = 2;            // SourceLocation.file_name
constexpr uint32_t kSourceLine = 4;            // SourceLocation.line_number
}  // namespace field

// TracePacket.SequenceFlags.
constexpr uint64_t kSeqStateCleared = 1, kSeqNeedsState = 2;

constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3;  // TrackEvent.Type

void Varint(std::string& b, uint64_t v) {
  while (v >= 0x80) {
    b.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  b.push_back(static_cast<char>(v));
}
void U64(std::string& b, uint32_t f, uint64_t v) {
  Varint(b, uint64_t{f} << 3 | 0);
  Varint(b, v);
}
void Bytes(std::string& b, uint32_t f, std::string_view s) {
  Varint(b, uint64_t{f} << 3 | 2);
  Varint(b, s.size());
  b.append(s);
}
// The incremental state of one packet sequence, as Perfetto's own writers keep it: every name,
// category, debug-annotation name, string value and source location is sent once per sequence
// (in the InternedData of the first packet that uses it) and referred to by its iid after that;
// the track is a packet default. A 64-rank trace repeats a few dozen strings a million times.
class SequenceState {
 public:
  explicit SequenceState(uint64_t track_uuid) : track_uuid_(track_uuid) {}

  // Starts a packet of this sequence: timestamp, sequence id and flags; the first one clears the
  // state and sets the default track.
  void BeginPacket(std::string& packet, uint64_t ts_ns, uint32_t sequence) {
    packet.clear();
    interned_.clear();
    U64(packet, field::kTimestamp, ts_ns);
    U64(packet, field::kSequenceId, sequence);
    if (!started_) {
      started_ = true;
      U64(packet, field::kSequenceFlags, kSeqStateCleared | kSeqNeedsState);
      std::string defaults, track_defaults;
      U64(track_defaults, field::kDefaultTrackUuid, track_uuid_);
      Bytes(defaults, field::kTrackEventDefaults, track_defaults);
      Bytes(packet, field::kPacketDefaults, defaults);
    } else {
      U64(packet, field::kSequenceFlags, kSeqNeedsState);
    }
  }
  // Ends it: the new interned entries, then the event.
  void EndPacket(std::string& packet, const std::string& event) {
    if (!interned_.empty()) Bytes(packet, field::kInternedData, interned_);
    Bytes(packet, field::kTrackEvent, event);
  }

  uint64_t Name(std::string_view s) { return Intern(names_, field::kInternedNames, s); }
  // The hot path's lookups, cached by a small index (a label, a core kind, an annotation key)
  // instead of a string compare per event.
  uint64_t LabelName(uint32_t label, std::string_view name) { return Cached(label_names_, label, [&] { return Name(name); }); }
  uint64_t KindCategory(uint32_t kind, std::string_view name) {
    return Cached(kind_categories_, kind, [&] { return Category(name); });
  }
  uint64_t Key(uint32_t key, std::string_view name) { return Cached(keys_, key, [&] { return AnnotationName(name); }); }
  uint64_t LabelSource(uint32_t label, bool end, const std::string& file, int line) {
    return Cached(sources_, 2 * label + (end ? 1 : 0), [&] { return SourceLocation(file, line); });
  }
  uint64_t Category(std::string_view s) { return Intern(categories_, field::kInternedCategories, s); }
  uint64_t AnnotationName(std::string_view s) { return Intern(annotation_names_, field::kInternedAnnotationNames, s); }
  uint64_t String(std::string_view s) { return Intern(strings_, field::kInternedStrings, s); }
  uint64_t SourceLocation(const std::string& file, int line) {
    auto [it, added] = locations_.try_emplace({file, line}, locations_.size() + 1);
    if (added) {
      scratch_.clear();
      U64(scratch_, field::kIid, it->second);
      Bytes(scratch_, field::kSourceFile, file);
      U64(scratch_, field::kSourceLine, static_cast<uint64_t>(line));
      Bytes(interned_, field::kInternedSourceLocations, scratch_);
    }
    return it->second;
  }

 private:
  uint64_t Intern(std::map<std::string, uint64_t, std::less<>>& table, uint32_t kind, std::string_view s) {
    auto it = table.find(s);
    if (it != table.end()) return it->second;
    const uint64_t iid = table.size() + 1;
    table.emplace(std::string(s), iid);
    scratch_.clear();
    U64(scratch_, field::kIid, iid);
    Bytes(scratch_, field::kInternedName, s);
    Bytes(interned_, kind, scratch_);
    return iid;
  }

  template <typename Make>
  static uint64_t Cached(std::vector<uint64_t>& cache, uint32_t index, Make make) {
    if (index >= cache.size()) cache.resize(index + 1, 0);
    if (cache[index] == 0) cache[index] = make();
    return cache[index];
  }

  uint64_t track_uuid_;
  bool started_ = false;
  std::vector<uint64_t> label_names_, kind_categories_, keys_, sources_;
  std::map<std::string, uint64_t, std::less<>> names_, categories_, annotation_names_, strings_;
  std::map<std::pair<std::string, int>, uint64_t> locations_;
  std::string interned_, scratch_;
};

// The debug-annotation keys, by index into kKeyNames.
enum Key : uint32_t { kKeyIndex, kKeyExtra, kKeySeq, kKeyEndIndex, kKeyDepth, kKeyUnmatched };
constexpr std::string_view kKeyNames[] = {"index", "extra", "seq", "end_index", "depth", "unmatched"};

void IntAnnotation(std::string& event, std::string& scratch, SequenceState& st, Key key, int64_t v) {
  scratch.clear();
  U64(scratch, field::kAnnotationNameIid, st.Key(key, kKeyNames[key]));
  U64(scratch, field::kAnnotationInt, static_cast<uint64_t>(v));
  Bytes(event, field::kEventAnnotation, scratch);
}
void StringAnnotation(std::string& event, std::string& scratch, SequenceState& st, Key key, std::string_view v) {
  scratch.clear();
  U64(scratch, field::kAnnotationNameIid, st.Key(key, kKeyNames[key]));
  U64(scratch, field::kAnnotationStringIid, st.String(v));
  Bytes(event, field::kEventAnnotation, scratch);
}

// Streams packets to `out`, deflated in batches of about 1 MiB into TracePacket.compressed_packets
// (zlib, as traced writes them with compression on; trace processor and ui.perfetto.dev inflate
// them). Interned packets are still repetitive varints: deflate takes a 64-rank trace another 4x
// smaller. Each batch is deflated on a second thread while the next one is encoded.
class PacketWriter {
 public:
  explicit PacketWriter(std::ostream& out) : out_(out) { buf_.reserve(kBatchBytes + (64u << 10)); }
  ~PacketWriter() { Wait(); }
  void Packet(const std::string& packet) {
    Bytes(buf_, field::kTracePacket, packet);
    if (buf_.size() >= kBatchBytes) Flush();
  }
  void Flush() {
    Wait();
    if (buf_.empty()) return;
    pending_ = std::async(std::launch::async, [batch = std::move(buf_)]() { return Deflate(batch); });
    buf_ = std::string();
    buf_.reserve(kBatchBytes + (64u << 10));
  }
  Status Finish() {
    Flush();
    Wait();
    return ok_ ? Status::Ok() : InternalError("zlib failed to compress a batch of trace packets");
  }

 private:
  static constexpr size_t kBatchBytes = 1u << 20;
  static std::string Deflate(const std::string& batch) {
    uLongf bound = compressBound(static_cast<uLong>(batch.size()));
    std::unique_ptr<Bytef[]> z(new Bytef[bound]);  // not zero-filled: deflate writes it
    if (compress2(z.get(), &bound, reinterpret_cast<const Bytef*>(batch.data()), static_cast<uLong>(batch.size()),
                  Z_BEST_SPEED) != Z_OK)
      return {};
    std::string inner, framed;  // TracePacket{compressed_packets}, framed as Trace.packet
    Varint(inner, uint64_t{field::kCompressedPackets} << 3 | 2);
    Varint(inner, bound);
    Varint(framed, uint64_t{field::kTracePacket} << 3 | 2);
    Varint(framed, inner.size() + bound);
    framed.reserve(framed.size() + inner.size() + bound);
    framed += inner;
    framed.append(reinterpret_cast<const char*>(z.get()), bound);
    return framed;
  }
  void Wait() {
    if (!pending_.valid()) return;
    std::string framed = pending_.get();
    if (framed.empty()) ok_ = false;
    out_.write(framed.data(), static_cast<std::streamsize>(framed.size()));
  }

  std::ostream& out_;
  std::string buf_;
  std::future<std::string> pending_;
  bool ok_ = true;
};

struct CoreTrack {
  const SeriesInfo* series = nullptr;
  uint64_t uuid = 0;          // thread track
  uint64_t crossed_uuid = 0;  // its "(crossed)" track, described only when used
  uint32_t sequence = 0;
  int64_t origin = 0;
  std::vector<uint32_t> intervals;
  std::vector<uint32_t> instants;
};

uint64_t ProcessUuid(int32_t rank) { return (uint64_t{static_cast<uint32_t>(rank)} + 1) << 32; }

}  // namespace

bool IsPerfettoPath(const std::string& path) {
  for (std::string_view ext : {".pftrace", ".perfetto-trace", ".pb"}) {
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return true;
  }
  return false;
}

Status WritePerfettoTrace(const Collection& c, const ChromeTraceOptions& opt, std::ostream& out) {
  const std::map<int32_t, int64_t> origins = RankOrigins(c, opt.align);
  PacketWriter w(out);
  std::string packet, desc, sub, event, scratch;

  // Process tracks, then one thread track per core (series).
  std::map<int32_t, bool> ranks;
  for (const SeriesInfo& s : c.series) ranks[s.rank] = true;
  for (const auto& [rank, unused] : ranks) {
    sub.clear();
    U64(sub, field::kProcessPid, static_cast<uint64_t>(rank) + 1);
    Bytes(sub, field::kProcessName, fmt::format("rank {}", rank));
    desc.clear();
    U64(desc, field::kTrackUuid, ProcessUuid(rank));
    Bytes(desc, field::kTrackProcess, sub);
    packet.clear();
    Bytes(packet, field::kTrackDescriptor, desc);
    w.Packet(packet);
  }
  std::vector<CoreTrack> tracks(c.series.size());
  for (size_t i = 0; i < c.series.size(); ++i) {
    const SeriesInfo& s = c.series[i];
    CoreTrack& t = tracks[i];
    t.series = &s;
    t.uuid = ProcessUuid(s.rank) | (2 * i + 2);
    t.crossed_uuid = ProcessUuid(s.rank) | (2 * i + 3);
    t.sequence = static_cast<uint32_t>(3 * i + 1);  // +1: the crossed track, +2: instants
    auto it = origins.find(s.rank);
    t.origin = it == origins.end() ? 0 : it->second;
    // tids are unique across the trace (ranks are processes of one trace).
    const int64_t tid = (int64_t{s.rank} + 1) * 1000000 + TraceThreadId(s.kind, s.core_index);
    sub.clear();
    U64(sub, field::kThreadPid, static_cast<uint64_t>(s.rank) + 1);
    U64(sub, field::kThreadTid, static_cast<uint64_t>(tid));
    Bytes(sub, field::kThreadName, fmt::format("{} {}", CoreKindName(s.kind), s.core_index));
    desc.clear();
    U64(desc, field::kTrackUuid, t.uuid);
    U64(desc, field::kTrackParentUuid, ProcessUuid(s.rank));
    Bytes(desc, field::kTrackThread, sub);
    packet.clear();
    Bytes(packet, field::kTrackDescriptor, desc);
    w.Packet(packet);
  }
  for (uint32_t i = 0; i < c.intervals.size(); ++i) tracks[c.intervals[i].series].intervals.push_back(i);
  for (uint32_t i = 0; i < c.instants.size(); ++i) tracks[c.instants[i].series].instants.push_back(i);

  auto source_location = [&](SequenceState& st, uint32_t label, bool end, const std::string& file, int line) {
    if (!file.empty()) U64(event, field::kEventSourceLocationIid, st.LabelSource(label, end, file, line));
  };
  auto ns_of = [](const CoreTrack& t, int64_t ticks) {
    return static_cast<uint64_t>(std::max<int64_t>(0, TicksToNsAtHz(ticks - t.origin, t.series->clock_hz)));
  };
  auto slice_begin = [&](const CoreTrack& t, SequenceState& st, uint32_t sequence, const Interval& iv) {
    const LabelInfo& label = c.labels[iv.label];
    st.BeginPacket(packet, ns_of(t, iv.begin_ticks), sequence);
    event.clear();
    U64(event, field::kEventType, kSliceBegin);
    U64(event, field::kEventCategoryIids, st.KindCategory(static_cast<uint32_t>(iv.kind), CoreKindName(iv.kind)));
    U64(event, field::kEventNameIid,
        opt.names == NameStyle::kLabel
            ? st.LabelName(iv.label, label.name)
            : st.Name(IntervalName(label, iv.begin_payload, opt.names, opt.fifo_names)));
    IntAnnotation(event, scratch, st, kKeyIndex, iv.begin_payload);
    IntAnnotation(event, scratch, st, kKeyExtra, ExtraOf(iv.begin_payload));
    IntAnnotation(event, scratch, st, kKeySeq, SeqOf(iv.begin_payload));
    source_location(st, iv.label, false, label.begin_file, label.begin_line);
    if (iv.end_payload != iv.begin_payload) IntAnnotation(event, scratch, st, kKeyEndIndex, iv.end_payload);
    IntAnnotation(event, scratch, st, kKeyDepth, iv.depth);
    st.EndPacket(packet, event);
    w.Packet(packet);
  };
  auto slice_end = [&](const CoreTrack& t, SequenceState& st, uint32_t sequence, const Interval& iv) {
    st.BeginPacket(packet, ns_of(t, iv.end_ticks), sequence);
    event.clear();
    U64(event, field::kEventType, kSliceEnd);
    st.EndPacket(packet, event);
    w.Packet(packet);
  };

  // Track ids and sequences of the extra "(crossed N)" lanes: past those of the cores' tracks.
  uint64_t next_track_low = 2 * c.series.size() + 2;
  uint32_t next_sequence = static_cast<uint32_t>(3 * c.series.size() + 1);
  for (CoreTrack& t : tracks) {
    // One sequence per track (the core's, its crossed ranges', its unmatched marks'), each with
    // its own interned strings and its track as the packet default.
    SequenceState main(t.uuid), marks(t.uuid);
    // Ranges that cross their parent go to "(crossed)" tracks, each range on the first such lane
    // where the range before it has ended: two crossed ranges that overlap each other on one
    // track would be re-nested by the viewer (and shown with other durations than the JSON's).
    struct CrossedLane {
      CrossedLane(uint64_t u, uint32_t q) : uuid(u), sequence(q), st(u) {}
      uint64_t uuid;
      uint32_t sequence;
      SequenceState st;
      int64_t last_end = 0;
    };
    std::deque<CrossedLane> lanes;
    // Parents before children: begin ascending, end descending; a stack emits each E once no
    // later range can nest in it, so every track's timestamps only grow.
    std::stable_sort(t.intervals.begin(), t.intervals.end(), [&](uint32_t a, uint32_t b) {
      const Interval& x = c.intervals[a];
      const Interval& y = c.intervals[b];
      return x.begin_ticks != y.begin_ticks ? x.begin_ticks < y.begin_ticks : x.end_ticks > y.end_ticks;
    });
    std::vector<uint32_t> stack;
    for (uint32_t i : t.intervals) {
      const Interval& iv = c.intervals[i];
      while (!stack.empty() && c.intervals[stack.back()].end_ticks <= iv.begin_ticks) {
        slice_end(t, main, t.sequence, c.intervals[stack.back()]);
        stack.pop_back();
      }
      if (!stack.empty() && iv.end_ticks > c.intervals[stack.back()].end_ticks) {
        CrossedLane* lane = nullptr;
        for (CrossedLane& l : lanes)
          if (l.last_end <= iv.begin_ticks) {
            lane = &l;
            break;
          }
        if (!lane) {
          const bool first = lanes.empty();
          lane = &lanes.emplace_back(first ? t.crossed_uuid : ProcessUuid(t.series->rank) | next_track_low++,
                                     first ? t.sequence + 1 : next_sequence++);
          desc.clear();
          U64(desc, field::kTrackUuid, lane->uuid);
          U64(desc, field::kTrackParentUuid, ProcessUuid(t.series->rank));
          Bytes(desc, field::kTrackName,
                first ? fmt::format("{} {} (crossed)", CoreKindName(t.series->kind), t.series->core_index)
                      : fmt::format("{} {} (crossed {})", CoreKindName(t.series->kind), t.series->core_index,
                                    lanes.size()));
          packet.clear();
          Bytes(packet, field::kTrackDescriptor, desc);
          w.Packet(packet);
        }
        slice_begin(t, lane->st, lane->sequence, iv);
        slice_end(t, lane->st, lane->sequence, iv);
        lane->last_end = iv.end_ticks;
        continue;
      }
      slice_begin(t, main, t.sequence, iv);
      stack.push_back(i);
    }
    while (!stack.empty()) {
      slice_end(t, main, t.sequence, c.intervals[stack.back()]);
      stack.pop_back();
    }
    std::stable_sort(t.instants.begin(), t.instants.end(),
                     [&](uint32_t a, uint32_t b) { return c.instants[a].ticks < c.instants[b].ticks; });
    for (uint32_t i : t.instants) {
      const Instant& in = c.instants[i];
      const LabelInfo& label = c.labels[in.label];
      marks.BeginPacket(packet, ns_of(t, in.ticks), t.sequence + 2);
      event.clear();
      U64(event, field::kEventType, kInstant);
      U64(event, field::kEventCategoryIids, marks.KindCategory(static_cast<uint32_t>(in.kind), CoreKindName(in.kind)));
      U64(event, field::kEventNameIid, marks.LabelName(in.label, label.name));
      StringAnnotation(event, scratch, marks, kKeyUnmatched, in.is_begin ? "B" : "E");
      IntAnnotation(event, scratch, marks, kKeyIndex, in.payload);
      source_location(marks, in.label, !in.is_begin, in.is_begin ? label.begin_file : label.end_file,
                      in.is_begin ? label.begin_line : label.end_line);
      marks.EndPacket(packet, event);
      w.Packet(packet);
    }
  }
  OPTRACE_RETURN_IF_ERROR(w.Finish());
  if (!out) return IoError("writing the trace failed (disk full?)");
  return Status::Ok();
}

}  // namespace optrace::collect
