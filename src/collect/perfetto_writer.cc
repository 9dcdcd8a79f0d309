#include "collect/perfetto_writer.h"

#include "collect/collector.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
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
constexpr uint32_t kEventTrackUuid = 11;       // TrackEvent.track_uuid
constexpr uint32_t kEventCategory = 22;        // TrackEvent.categories
constexpr uint32_t kEventName = 23;            // TrackEvent.name
constexpr uint32_t kAnnotationInt = 4;         // DebugAnnotation.int_value
constexpr uint32_t kAnnotationString = 6;      // DebugAnnotation.string_value
constexpr uint32_t kAnnotationName = 10;       // DebugAnnotation.name
}  // namespace field

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
void IntAnnotation(std::string& event, std::string& scratch, std::string_view name, int64_t v) {
  scratch.clear();
  Bytes(scratch, field::kAnnotationName, name);
  U64(scratch, field::kAnnotationInt, static_cast<uint64_t>(v));
  Bytes(event, field::kEventAnnotation, scratch);
}
void StringAnnotation(std::string& event, std::string& scratch, std::string_view name, std::string_view v) {
  scratch.clear();
  Bytes(scratch, field::kAnnotationName, name);
  Bytes(scratch, field::kAnnotationString, v);
  Bytes(event, field::kEventAnnotation, scratch);
}

// Streams packets to `out` through one buffer.
class PacketWriter {
 public:
  explicit PacketWriter(std::ostream& out) : out_(out) {}
  void Packet(const std::string& packet) {
    Bytes(buf_, field::kTracePacket, packet);
    if (buf_.size() >= (1u << 20)) Flush();
  }
  void Flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  std::ostream& out_;
  std::string buf_;
};

struct CoreTrack {
  const SeriesInfo* series = nullptr;
  uint64_t uuid = 0;          // thread track
  uint64_t crossed_uuid = 0;  // its "(crossed)" track, described only when used
  uint32_t sequence = 0;
  double us_per_tick = 0;
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
    t.us_per_tick = 1e6 / s.clock_hz;
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

  auto begin_packet = [&](const CoreTrack& t, uint32_t sequence, int64_t ticks) {
    packet.clear();
    U64(packet, field::kTimestamp, static_cast<uint64_t>(std::max<int64_t>(0, TicksToNs(ticks - t.origin, t.us_per_tick))));
    U64(packet, field::kSequenceId, sequence);
  };
  auto source_annotations = [&](const std::string& file, int line) {
    if (file.empty()) return;
    StringAnnotation(event, scratch, "file", file);
    IntAnnotation(event, scratch, "line", line);
  };
  auto slice_begin = [&](const CoreTrack& t, uint64_t track, uint32_t sequence, const Interval& iv) {
    const LabelInfo& label = c.labels[iv.label];
    begin_packet(t, sequence, iv.begin_ticks);
    event.clear();
    U64(event, field::kEventType, kSliceBegin);
    U64(event, field::kEventTrackUuid, track);
    Bytes(event, field::kEventCategory, CoreKindName(iv.kind));
    Bytes(event, field::kEventName, IntervalName(label, iv.begin_payload, opt.names, opt.fifo_names));
    IntAnnotation(event, scratch, "index", iv.begin_payload);
    IntAnnotation(event, scratch, "extra", ExtraOf(iv.begin_payload));
    IntAnnotation(event, scratch, "seq", SeqOf(iv.begin_payload));
    source_annotations(label.begin_file, label.begin_line);
    if (iv.end_payload != iv.begin_payload) IntAnnotation(event, scratch, "end_index", iv.end_payload);
    IntAnnotation(event, scratch, "depth", iv.depth);
    Bytes(packet, field::kTrackEvent, event);
    w.Packet(packet);
  };
  auto slice_end = [&](const CoreTrack& t, uint64_t track, uint32_t sequence, const Interval& iv) {
    begin_packet(t, sequence, iv.end_ticks);
    event.clear();
    U64(event, field::kEventType, kSliceEnd);
    U64(event, field::kEventTrackUuid, track);
    Bytes(packet, field::kTrackEvent, event);
    w.Packet(packet);
  };

  for (CoreTrack& t : tracks) {
    // Parents before children: begin ascending, end descending; a stack emits each E once no
    // later range can nest in it, so every track's timestamps only grow.
    std::stable_sort(t.intervals.begin(), t.intervals.end(), [&](uint32_t a, uint32_t b) {
      const Interval& x = c.intervals[a];
      const Interval& y = c.intervals[b];
      return x.begin_ticks != y.begin_ticks ? x.begin_ticks < y.begin_ticks : x.end_ticks > y.end_ticks;
    });
    std::vector<uint32_t> stack;
    bool crossed_described = false;
    for (uint32_t i : t.intervals) {
      const Interval& iv = c.intervals[i];
      while (!stack.empty() && c.intervals[stack.back()].end_ticks <= iv.begin_ticks) {
        slice_end(t, t.uuid, t.sequence, c.intervals[stack.back()]);
        stack.pop_back();
      }
      if (!stack.empty() && iv.end_ticks > c.intervals[stack.back()].end_ticks) {
        if (!crossed_described) {
          crossed_described = true;
          desc.clear();
          U64(desc, field::kTrackUuid, t.crossed_uuid);
          U64(desc, field::kTrackParentUuid, ProcessUuid(t.series->rank));
          Bytes(desc, field::kTrackName,
                fmt::format("{} {} (crossed)", CoreKindName(t.series->kind), t.series->core_index));
          packet.clear();
          Bytes(packet, field::kTrackDescriptor, desc);
          w.Packet(packet);
        }
        slice_begin(t, t.crossed_uuid, t.sequence + 1, iv);
        slice_end(t, t.crossed_uuid, t.sequence + 1, iv);
        continue;
      }
      slice_begin(t, t.uuid, t.sequence, iv);
      stack.push_back(i);
    }
    while (!stack.empty()) {
      slice_end(t, t.uuid, t.sequence, c.intervals[stack.back()]);
      stack.pop_back();
    }
    std::stable_sort(t.instants.begin(), t.instants.end(),
                     [&](uint32_t a, uint32_t b) { return c.instants[a].ticks < c.instants[b].ticks; });
    for (uint32_t i : t.instants) {
      const Instant& in = c.instants[i];
      const LabelInfo& label = c.labels[in.label];
      begin_packet(t, t.sequence + 2, in.ticks);
      event.clear();
      U64(event, field::kEventType, kInstant);
      U64(event, field::kEventTrackUuid, t.uuid);
      Bytes(event, field::kEventCategory, CoreKindName(in.kind));
      Bytes(event, field::kEventName, label.name);
      StringAnnotation(event, scratch, "unmatched", in.is_begin ? "B" : "E");
      IntAnnotation(event, scratch, "index", in.payload);
      source_annotations(in.is_begin ? label.begin_file : label.end_file, in.is_begin ? label.begin_line : label.end_line);
      Bytes(packet, field::kTrackEvent, event);
      w.Packet(packet);
    }
  }
  w.Flush();
  if (!out) return IoError("writing the trace failed (disk full?)");
  return Status::Ok();
}

}  // namespace optrace::collect
