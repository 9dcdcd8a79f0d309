#include "join/joined_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace optrace::join {
namespace {

// perfetto.protos field numbers (protos/perfetto/trace/...), the subset written here.
namespace field {
constexpr uint32_t kTracePacket = 1;         // Trace.packet
constexpr uint32_t kTimestamp = 8;           // TracePacket.timestamp (ns)
constexpr uint32_t kSequenceId = 10;         // TracePacket.trusted_packet_sequence_id
constexpr uint32_t kTrackEvent = 11;         // TracePacket.track_event
constexpr uint32_t kTrackDescriptor = 60;    // TracePacket.track_descriptor
constexpr uint32_t kTrackUuid = 1;           // TrackDescriptor.uuid
constexpr uint32_t kTrackName = 2;           // TrackDescriptor.name
constexpr uint32_t kTrackProcess = 3;        // TrackDescriptor.process
constexpr uint32_t kTrackParentUuid = 5;     // TrackDescriptor.parent_uuid
constexpr uint32_t kChildOrdering = 11;      // TrackDescriptor.child_ordering
constexpr uint32_t kSiblingOrderRank = 12;   // TrackDescriptor.sibling_order_rank
constexpr uint32_t kProcessPid = 1;          // ProcessDescriptor.pid
constexpr uint32_t kProcessName = 6;         // ProcessDescriptor.process_name
constexpr uint32_t kEventAnnotation = 4;     // TrackEvent.debug_annotations
constexpr uint32_t kEventType = 9;           // TrackEvent.type
constexpr uint32_t kEventTrackUuid = 11;     // TrackEvent.track_uuid
constexpr uint32_t kEventCategories = 22;    // TrackEvent.categories
constexpr uint32_t kEventName = 23;          // TrackEvent.name
constexpr uint32_t kAnnotationInt = 4;       // DebugAnnotation.int_value
constexpr uint32_t kAnnotationDouble = 5;    // DebugAnnotation.double_value
constexpr uint32_t kAnnotationString = 6;    // DebugAnnotation.string_value
constexpr uint32_t kAnnotationName = 10;     // DebugAnnotation.name
}  // namespace field

constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2;  // TrackEvent.Type
constexpr uint64_t kExplicitOrder = 3;              // TrackDescriptor.ChildTracksOrdering.EXPLICIT

void Varint(std::string& b, uint64_t v) {
  while (v >= 0x80) {
    b.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  b.push_back(static_cast<char>(v));
}
void Tag(std::string& b, uint32_t f, uint32_t wire) { Varint(b, (uint64_t{f} << 3) | wire); }
void U64(std::string& b, uint32_t f, uint64_t v) {
  Tag(b, f, 0);
  Varint(b, v);
}
void Bytes(std::string& b, uint32_t f, std::string_view s) {
  Tag(b, f, 2);
  Varint(b, s.size());
  b.append(s);
}
void Double(std::string& b, uint32_t f, double v) {
  Tag(b, f, 1);
  char raw[8];
  std::memcpy(raw, &v, 8);
  b.append(raw, 8);
}

// A debug annotation: a name and an int, double or string value.
struct Arg {
  std::string name;
  enum { kInt, kDouble, kString } kind = kInt;
  int64_t i = 0;
  double d = 0;
  std::string s;
};
Arg IntArg(std::string n, int64_t v) { return Arg{std::move(n), Arg::kInt, v, 0, {}}; }
Arg UsArg(std::string n, int64_t ns) { return Arg{std::move(n), Arg::kDouble, 0, ns / 1e3, {}}; }
Arg StrArg(std::string n, std::string v) { return Arg{std::move(n), Arg::kString, 0, 0, std::move(v)}; }

struct Span {
  int64_t begin = 0, end = 0;
  std::string name, category;
  std::vector<Arg> args;
};

// Spans split into lanes on which each nests properly (a span starts after the lane's open span
// ends, or ends within it): Perfetto draws a track's slices as one stack.
std::vector<std::vector<Span>> Lanes(std::vector<Span> spans) {
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& a, const Span& b) { return a.begin != b.begin ? a.begin < b.begin : a.end > b.end; });
  std::vector<std::vector<Span>> lanes;
  std::vector<std::vector<int64_t>> open;  // per lane, the ends of its open spans (innermost last)
  for (Span& s : spans) {
    size_t lane = 0;
    for (; lane < lanes.size(); ++lane) {
      std::vector<int64_t>& stack = open[lane];
      while (!stack.empty() && stack.back() <= s.begin) stack.pop_back();
      if (stack.empty() || s.end <= stack.back()) break;
    }
    if (lane == lanes.size()) {
      lanes.emplace_back();
      open.emplace_back();
    }
    open[lane].push_back(s.end);
    lanes[lane].push_back(std::move(s));
  }
  return lanes;
}

class TraceOut {
 public:
  explicit TraceOut(std::ostream& out) : out_(out) {}

  uint64_t Process(int rank) {
    const uint64_t uuid = (uint64_t{static_cast<uint32_t>(rank)} + 1) << 32;
    std::string desc, proc;
    U64(desc, field::kTrackUuid, uuid);
    U64(proc, field::kProcessPid, static_cast<uint64_t>(rank) + 1);
    Bytes(proc, field::kProcessName, fmt::format("rank {}", rank));
    Bytes(desc, field::kTrackProcess, proc);
    U64(desc, field::kChildOrdering, kExplicitOrder);
    Descriptor(desc);
    return uuid;
  }

  // A track under `parent` (0: top level) holding `spans`, nested, on its own sequence.
  void Track(uint64_t parent, const std::string& name, std::vector<Span> spans) {
    std::vector<std::vector<Span>> lanes = Lanes(std::move(spans));
    for (size_t l = 0; l < lanes.size(); ++l) {
      const uint64_t uuid = parent + (++tracks_);
      std::string desc;
      U64(desc, field::kTrackUuid, uuid);
      Bytes(desc, field::kTrackName, l == 0 ? name : fmt::format("{} ({})", name, l + 1));
      if (parent) U64(desc, field::kTrackParentUuid, parent);
      U64(desc, field::kSiblingOrderRank, tracks_);
      Descriptor(desc);
      Emit(uuid, static_cast<uint32_t>(tracks_ + 1), lanes[l]);
    }
  }

  Status Finish() {
    out_.flush();
    if (!out_) return IoError("writing the joined trace failed (disk full?)");
    return Status::Ok();
  }

 private:
  void Descriptor(const std::string& desc) {
    std::string packet;
    U64(packet, field::kSequenceId, 1);
    Bytes(packet, field::kTrackDescriptor, desc);
    Packet(packet);
  }
  void Event(uint64_t track, uint32_t sequence, int64_t ts, uint64_t type, const Span* s) {
    std::string ev, packet;
    U64(ev, field::kEventType, type);
    U64(ev, field::kEventTrackUuid, track);
    if (s) {
      if (!s->category.empty()) Bytes(ev, field::kEventCategories, s->category);
      Bytes(ev, field::kEventName, s->name);
      for (const Arg& a : s->args) {
        std::string ann;
        Bytes(ann, field::kAnnotationName, a.name);
        if (a.kind == Arg::kInt) U64(ann, field::kAnnotationInt, static_cast<uint64_t>(a.i));
        else if (a.kind == Arg::kDouble) Double(ann, field::kAnnotationDouble, a.d);
        else Bytes(ann, field::kAnnotationString, a.s);
        Bytes(ev, field::kEventAnnotation, ann);
      }
    }
    U64(packet, field::kTimestamp, static_cast<uint64_t>(std::max<int64_t>(ts, 0)));
    U64(packet, field::kSequenceId, sequence);
    Bytes(packet, field::kTrackEvent, ev);
    Packet(packet);
  }
  // One lane in time order: each begin after the ends of the spans it follows.
  void Emit(uint64_t track, uint32_t sequence, const std::vector<Span>& spans) {
    std::vector<int64_t> ends;
    for (const Span& s : spans) {
      while (!ends.empty() && ends.back() <= s.begin) {
        Event(track, sequence, ends.back(), kSliceEnd, nullptr);
        ends.pop_back();
      }
      Event(track, sequence, s.begin, kSliceBegin, &s);
      ends.push_back(s.end);
    }
    while (!ends.empty()) {
      Event(track, sequence, ends.back(), kSliceEnd, nullptr);
      ends.pop_back();
    }
  }
  void Packet(const std::string& packet) {
    std::string framed;
    Bytes(framed, field::kTracePacket, packet);
    out_.write(framed.data(), static_cast<std::streamsize>(framed.size()));
  }

  std::ostream& out_;
  uint64_t tracks_ = 0;
};

}  // namespace

Status WriteJoinedTrace(const JoinResult& r, std::ostream& out) {
  TraceOut t(out);
  std::map<std::pair<int, int>, const LaunchJoin*> launch_of;  // (rank, launch) -> join
  for (const LaunchJoin& l : r.launches) launch_of[{l.rank, l.launch}] = &l;
  for (const JoinedRank& jr : r.ranks) {
    const uint64_t proc = t.Process(jr.rank);
    // The host, one track per process of trace_view.json.
    std::map<std::string, std::vector<Span>> host;
    for (const analyze::TraceHostEvent& h : jr.host)
      host[h.process].push_back(Span{h.start_ns, h.start_ns + std::max<int64_t>(h.dur_ns, 0), h.name, h.cat, {}});
    for (auto& [process, spans] : host) t.Track(proc, "host: " + process, std::move(spans));
    // The export's streams; the kernel's slices carry the launch and its residuals.
    std::map<int32_t, std::vector<Span>> streams;
    std::map<int32_t, bool> comm;
    std::vector<const LaunchJoin*> mine;
    for (const LaunchJoin& l : r.launches)
      if (l.rank == jr.rank) mine.push_back(&l);
    for (const analyze::Event& e : jr.table.events) {
      Span s{jr.table.AbsNs(e.start_ns), jr.table.AbsNs(e.end_ns()), r.strings.Get(e.name),
             std::string(analyze::OpTypeName(e.op_type)), {}};
      if (e.task_id >= 0) s.args.push_back(IntArg("task_id", e.task_id));
      for (const LaunchJoin* l : mine) {
        if (l->slice_start_ns != s.begin || l->stream_id != e.stream_id || l->task_id != e.task_id) continue;
        s.args.push_back(IntArg("launch", l->launch));
        s.args.push_back(UsArg("phases_lead_us", l->lead_ns()));
        s.args.push_back(UsArg("phases_tail_us", l->tail_ns()));
        s.args.push_back(IntArg("phases_outside", static_cast<int64_t>(l->outside)));
      }
      if (analyze::IsComm(e.op_type)) comm[e.stream_id] = true;
      streams[e.stream_id].push_back(std::move(s));
    }
    for (auto& [stream, spans] : streams)
      t.Track(proc, fmt::format("stream {}{}", stream, comm[stream] ? " (HCCL)" : ""), std::move(spans));
    // The kernel's phases, one track per core.
    std::map<std::pair<int, uint32_t>, std::vector<Span>> cores;
    for (const JoinedPhase& p : r.phases) {
      if (p.rank != jr.rank) continue;
      cores[{static_cast<int>(p.kind), p.core_index}].push_back(
          Span{p.begin_ns, p.end_ns, p.label, collect::CoreKindName(p.kind), {IntArg("launch", p.launch)}});
    }
    for (auto& [core, spans] : cores)
      t.Track(proc, fmt::format("{} {} {}", r.kernel, collect::CoreKindName(static_cast<collect::CoreKind>(core.first)), core.second),
              std::move(spans));
    std::vector<Span> findings;
    for (const JoinedFinding& f : r.findings)
      if (f.rank == jr.rank) findings.push_back(Span{f.begin_ns, f.end_ns, f.title, "finding", {StrArg("summary", f.summary)}});
    if (!findings.empty()) t.Track(proc, "analyze findings", std::move(findings));
  }
  std::vector<Span> global;
  for (const JoinedFinding& f : r.findings)
    if (f.rank < 0) global.push_back(Span{f.begin_ns, f.end_ns, f.title, "finding", {StrArg("summary", f.summary)}});
  if (!global.empty()) t.Track(0, "analyze findings (all ranks)", std::move(global));
  return t.Finish();
}

}  // namespace optrace::join
