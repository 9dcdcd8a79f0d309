// Perfetto protobuf writer: decoded with a minimal protobuf reader, slices rebuilt per track and
// compared with the intervals that were written.
#include "collect/perfetto_writer.h"

#include "collect/chrome_writer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "testing/protobuf_wire.h"

namespace optrace::collect {
namespace {

// --- the protobuf reader (tests/testing/protobuf_wire.h), failures as test failures ------
using Field = optrace::testing::WireField;

std::vector<Field> Fields(std::string_view s) {
  std::string error;
  std::vector<Field> out = optrace::testing::WireFields(s, &error);
  EXPECT_TRUE(error.empty()) << error;
  return out;
}

const Field* Get(const std::vector<Field>& fs, uint32_t number) { return optrace::testing::WireGet(fs, number); }

// --- decoding the trace into tracks and slices ---------------------------------------------
struct Slice {
  std::string name, category;
  uint64_t begin_ns = 0, end_ns = 0;
  std::map<std::string, std::string> args;
};

struct Decoded {
  std::map<uint64_t, std::string> process_names;  // process uuid -> name
  std::map<uint64_t, std::string> thread_names;   // thread track uuid -> name
  std::map<uint64_t, std::string> track_names;    // other named tracks
  std::map<uint64_t, std::vector<Slice>> slices;  // track uuid -> completed slices
  std::map<uint64_t, std::vector<Slice>> instants;
  std::map<uint64_t, uint64_t> last_ts_per_sequence;
  bool sequence_order_ok = true;
  bool state_cleared_before_use = true;  // every sequence's first packet clears its state
  size_t packets_needing_state = 0, track_event_packets = 0;
};

// The incremental state of one sequence, as trace processor keeps it.
struct SequenceTables {
  std::map<uint64_t, std::string> names, categories, annotation_names, strings;
  std::map<uint64_t, std::pair<std::string, uint64_t>> locations;
  uint64_t default_track = 0;
};

// zlib-inflates a compressed_packets payload.
std::string Inflate(const std::string& z) {
  std::string out;
  EXPECT_TRUE(optrace::testing::Inflate(z, &out));
  return out;
}

// Trace.packet payloads, compressed_packets inflated in place.
std::vector<std::string> Packets(const std::string& trace, size_t* compressed = nullptr) {
  std::vector<std::string> out;
  for (const Field& p : Fields(trace)) {
    EXPECT_EQ(p.number, 1u);  // Trace.packet
    std::vector<Field> packet = Fields(p.bytes);
    if (const Field* z = Get(packet, 50)) {
      if (compressed) ++*compressed;
      for (std::string& inner : Packets(Inflate(z->bytes))) out.push_back(std::move(inner));
      continue;
    }
    out.push_back(p.bytes);
  }
  return out;
}

Decoded Decode(const std::string& trace) {
  Decoded d;
  std::map<uint64_t, std::vector<Slice>> open;
  std::map<uint64_t, SequenceTables> tables;
  for (const std::string& bytes : Packets(trace)) {
    std::vector<Field> packet = Fields(bytes);
    if (const Field* td = Get(packet, 60)) {
      std::vector<Field> desc = Fields(td->bytes);
      const uint64_t uuid = Get(desc, 1)->varint;
      if (const Field* proc = Get(desc, 3)) d.process_names[uuid] = Get(Fields(proc->bytes), 6)->bytes;
      if (const Field* th = Get(desc, 4)) d.thread_names[uuid] = Get(Fields(th->bytes), 5)->bytes;
      if (const Field* name = Get(desc, 2)) d.track_names[uuid] = name->bytes;
      continue;
    }
    const Field* te = Get(packet, 11);
    if (!te) continue;
    const uint64_t ts = Get(packet, 8)->varint;
    const uint64_t seq = Get(packet, 10)->varint;
    ++d.track_event_packets;
    const uint64_t flags = Get(packet, 13) ? Get(packet, 13)->varint : 0;
    if (flags & 2) ++d.packets_needing_state;
    if (flags & 1) {
      tables[seq] = SequenceTables();
    } else if (!tables.count(seq)) {
      d.state_cleared_before_use = false;
    }
    SequenceTables& st = tables[seq];
    if (const Field* defaults = Get(packet, 59)) {
      const std::vector<Field> packet_defaults = Fields(defaults->bytes);
      if (const Field* te_defaults = Get(packet_defaults, 11)) {
        const std::vector<Field> track_defaults = Fields(te_defaults->bytes);
        st.default_track = Get(track_defaults, 11)->varint;
      }
    }
    if (const Field* interned = Get(packet, 12)) {
      for (const Field& entry : Fields(interned->bytes)) {
        std::vector<Field> e = Fields(entry.bytes);
        const uint64_t iid = Get(e, 1)->varint;
        switch (entry.number) {
          case 1: st.categories[iid] = Get(e, 2)->bytes; break;
          case 2: st.names[iid] = Get(e, 2)->bytes; break;
          case 3: st.annotation_names[iid] = Get(e, 2)->bytes; break;
          case 29: st.strings[iid] = Get(e, 2)->bytes; break;
          case 4: st.locations[iid] = {Get(e, 2)->bytes, Get(e, 4)->varint}; break;
          default: ADD_FAILURE() << "unexpected interned field " << entry.number;
        }
      }
    }
    if (d.last_ts_per_sequence.count(seq) && ts < d.last_ts_per_sequence[seq]) d.sequence_order_ok = false;
    d.last_ts_per_sequence[seq] = ts;
    std::vector<Field> ev = Fields(te->bytes);
    const uint64_t type = Get(ev, 9)->varint;
    const uint64_t track = Get(ev, 11) ? Get(ev, 11)->varint : st.default_track;
    Slice s;
    if (const Field* n = Get(ev, 23)) s.name = n->bytes;
    if (const Field* n = Get(ev, 10)) s.name = st.names.at(n->varint);
    if (const Field* cat = Get(ev, 22)) s.category = cat->bytes;
    if (const Field* cat = Get(ev, 3)) s.category = st.categories.at(cat->varint);
    if (const Field* loc = Get(ev, 34)) {
      s.args["file"] = st.locations.at(loc->varint).first;
      s.args["line"] = std::to_string(st.locations.at(loc->varint).second);
    }
    for (const Field& f : ev) {
      if (f.number != 4) continue;
      std::vector<Field> a = Fields(f.bytes);
      const std::string key = Get(a, 10) ? Get(a, 10)->bytes : st.annotation_names.at(Get(a, 1)->varint);
      if (const Field* i = Get(a, 4)) s.args[key] = std::to_string(i->varint);
      if (const Field* str = Get(a, 6)) s.args[key] = str->bytes;
      if (const Field* str = Get(a, 17)) s.args[key] = st.strings.at(str->varint);
    }
    if (type == 1) {
      s.begin_ns = ts;
      open[track].push_back(s);
    } else if (type == 2) {
      EXPECT_FALSE(open[track].empty()) << "END without BEGIN on track " << track;
      if (open[track].empty()) continue;
      Slice b = open[track].back();
      open[track].pop_back();
      b.end_ns = ts;
      d.slices[track].push_back(b);
    } else {
      EXPECT_EQ(type, 3u);
      s.begin_ns = s.end_ns = ts;
      d.instants[track].push_back(s);
    }
  }
  for (const auto& [track, stack] : open) EXPECT_TRUE(stack.empty()) << "unclosed slice on track " << track;
  return d;
}

Interval Iv(uint32_t series, int32_t rank, CoreKind kind, uint32_t core, uint32_t label, int64_t b, int64_t e,
            uint32_t payload = 0) {
  Interval i;
  i.series = series;
  i.rank = rank;
  i.kind = kind;
  i.core_index = core;
  i.label = label;
  i.begin_ticks = b;
  i.end_ticks = e;
  i.begin_payload = i.end_payload = payload;
  return i;
}

// Rank 0: AIC 0 with processing > {gemm, gemm} and a zero-length mark; AIV 1 with a crossed
// pair. Rank 1: AIV 0 on a 1 GHz clock.
Collection Sample() {
  Collection c;
  c.labels = {{"processing", 1, "k.cc", 10, "k.cc", 20}, {"gemm", 2, "k.cc", 11, "k.cc", 12}, {"send", 3, "", 0, "", 0}};
  c.series = {{0, CoreKind::kAic, 0, 50e6}, {0, CoreKind::kAiv, 1, 50e6}, {1, CoreKind::kAiv, 0, 1e9}};
  c.intervals = {Iv(0, 0, CoreKind::kAic, 0, 0, 100, 600),       Iv(0, 0, CoreKind::kAic, 0, 1, 150, 300, 3),
                 Iv(0, 0, CoreKind::kAic, 0, 1, 300, 300, 4),     Iv(0, 0, CoreKind::kAic, 0, 1, 300, 450, 5),
                 Iv(1, 0, CoreKind::kAiv, 1, 2, 120, 500),        Iv(1, 0, CoreKind::kAiv, 1, 1, 200, 700),
                 Iv(2, 1, CoreKind::kAiv, 0, 0, 1000, 3000)};
  Instant in;
  in.rank = 0;
  in.kind = CoreKind::kAiv;
  in.core_index = 1;
  in.series = 1;
  in.label = 2;
  in.is_begin = true;
  in.ticks = 510;
  c.instants = {in};
  return c;
}

Decoded WriteAndDecode(const Collection& c) {
  std::ostringstream os;
  ChromeTraceOptions opt;
  Status st = WritePerfettoTrace(c, opt, os);
  EXPECT_TRUE(st.ok()) << st.message();
  return Decode(os.str());
}

TEST(PerfettoWriter, OneProcessTrackPerRankAndOneThreadTrackPerCore) {
  Decoded d = WriteAndDecode(Sample());
  std::vector<std::string> processes, threads;
  for (const auto& [uuid, name] : d.process_names) processes.push_back(name);
  for (const auto& [uuid, name] : d.thread_names) threads.push_back(name);
  EXPECT_EQ(processes, (std::vector<std::string>{"rank 0", "rank 1"}));
  EXPECT_EQ(threads, (std::vector<std::string>{"AIC 0", "AIV 1", "AIV 0"}));
}

// CUDA's %globaltimer counts ns since 1970 (1.7e18): through a double, ranges of 100-149 ns came
// out as 0 or 256 ns with --align none. Integer arithmetic keeps every ns (issue 53.2).
TEST(PerfettoWriter, UnalignedNanosecondClockTimesAreExact) {
  Collection c;
  c.labels = {{"outer", 1, "", 0, "", 0}, {"inner", 2, "", 0, "", 0}};
  c.series = {{0, CoreKind::kAiv, 0, 1e9}};
  const int64_t t0 = 1733400000123456789;
  c.intervals = {Iv(0, 0, CoreKind::kAiv, 0, 0, t0, t0 + 1000), Iv(0, 0, CoreKind::kAiv, 0, 1, t0 + 101, t0 + 250)};
  std::ostringstream os;
  ChromeTraceOptions opt;
  opt.align = Align::kNone;
  ASSERT_TRUE(WritePerfettoTrace(c, opt, os).ok());
  Decoded d = Decode(os.str());
  std::multiset<std::tuple<std::string, uint64_t, uint64_t>> got;
  for (const auto& [track, slices] : d.slices)
    for (const Slice& sl : slices) got.emplace(sl.name, sl.begin_ns, sl.end_ns);
  const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  EXPECT_EQ(got, (std::multiset<std::tuple<std::string, uint64_t, uint64_t>>{
                     {"outer", u(t0), u(t0 + 1000)}, {"inner", u(t0 + 101), u(t0 + 250)}}));
}

TEST(PerfettoWriter, TicksToNsAtHzRoundsToTheNearestNanosecond) {
  EXPECT_EQ(TicksToNsAtHz(3, 50e6), 60);              // 20 ns a tick
  EXPECT_EQ(TicksToNsAtHz(1, 3e9), 0);                // 0.33 ns
  EXPECT_EQ(TicksToNsAtHz(2, 3e9), 1);                // 0.67 ns
  EXPECT_EQ(TicksToNsAtHz(-2, 3e9), -1);
  EXPECT_EQ(TicksToNsAtHz(INT64_MAX, 1), int64_t{1} << 62);  // saturates as TicksToNs does
}

TEST(PerfettoWriter, SlicesEqualTheIntervalsWithNanosecondTimes) {
  const Collection c = Sample();
  Decoded d = WriteAndDecode(c);
  // Every interval comes back once, on some track of its core, with the JSON trace's times.
  std::multiset<std::tuple<std::string, uint64_t, uint64_t>> want, got;
  for (const Interval& iv : c.intervals) {
    const double ns_per_tick = 1e9 / c.series[iv.series].clock_hz;
    const int64_t origin = iv.rank == 0 ? 100 : 1000;  // the rank's earliest event
    want.emplace(c.labels[iv.label].name, static_cast<uint64_t>((iv.begin_ticks - origin) * ns_per_tick),
                 static_cast<uint64_t>((iv.end_ticks - origin) * ns_per_tick));
  }
  for (const auto& [track, slices] : d.slices)
    for (const Slice& s : slices) got.emplace(s.name, s.begin_ns, s.end_ns);
  EXPECT_EQ(got, want);
}

TEST(PerfettoWriter, ArgsCarryIndexExtraSeqSourceAndCategory) {
  Decoded d = WriteAndDecode(Sample());
  bool found = false;
  for (const auto& [track, slices] : d.slices) {
    for (const Slice& s : slices) {
      if (s.name != "gemm" || s.args.at("index") != "3") continue;
      found = true;
      EXPECT_EQ(s.category, "AIC");
      EXPECT_EQ(s.args.at("extra"), "3");
      EXPECT_EQ(s.args.at("seq"), "0");
      EXPECT_EQ(s.args.at("file"), "k.cc");
      EXPECT_EQ(s.args.at("line"), "11");
    }
  }
  EXPECT_TRUE(found);
}

TEST(PerfettoWriter, TimestampsNeverDecreaseWithinASequence) {
  Decoded d = WriteAndDecode(Sample());
  EXPECT_TRUE(d.sequence_order_ok);
}

TEST(PerfettoWriter, CrossedRangeGoesToTheCoresCrossedTrack) {
  Decoded d = WriteAndDecode(Sample());
  ASSERT_EQ(d.track_names.size(), 1u);
  const auto& [uuid, name] = *d.track_names.begin();
  EXPECT_EQ(name, "AIV 1 (crossed)");
  ASSERT_EQ(d.slices[uuid].size(), 1u);
  EXPECT_EQ(d.slices[uuid][0].name, "gemm");  // 200..700 crosses send 120..500
}

// Two ranges that cross their parent and each other (X [150,250], Y [160,300] in A [100,200]) on
// one crossed track were re-nested by the viewer: X read 150 ns, Y 90 (issue 53.1). Each gets a
// lane where it stands alone, with the JSON trace's times.
TEST(PerfettoWriter, CrossedRangesThatOverlapEachOtherGetTheirOwnLanes) {
  Collection c;
  c.labels = {{"a", 1, "", 0, "", 0}, {"x", 2, "", 0, "", 0}, {"y", 3, "", 0, "", 0}};
  c.series = {{0, CoreKind::kAiv, 0, 1e9}};
  c.intervals = {Iv(0, 0, CoreKind::kAiv, 0, 0, 100, 200), Iv(0, 0, CoreKind::kAiv, 0, 1, 150, 250),
                 Iv(0, 0, CoreKind::kAiv, 0, 2, 160, 300)};
  Decoded d = WriteAndDecode(c);
  std::multiset<std::tuple<std::string, uint64_t, uint64_t>> got;
  for (const auto& [track, slices] : d.slices)
    for (const Slice& sl : slices) got.emplace(sl.name, sl.begin_ns, sl.end_ns);
  EXPECT_EQ(got, (std::multiset<std::tuple<std::string, uint64_t, uint64_t>>{
                     {"a", 0, 100}, {"x", 50, 150}, {"y", 60, 200}}));
  std::set<std::string> names;
  for (const auto& [uuid, name] : d.track_names) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"AIV 0 (crossed)", "AIV 0 (crossed 2)"}));
  EXPECT_TRUE(d.sequence_order_ok);
}

TEST(PerfettoWriter, UnmatchedMarkIsAFlaggedInstant) {
  Decoded d = WriteAndDecode(Sample());
  size_t n = 0;
  for (const auto& [track, list] : d.instants) {
    for (const Slice& s : list) {
      ++n;
      EXPECT_EQ(s.name, "send");
      EXPECT_EQ(s.args.at("unmatched"), "B");
      EXPECT_EQ(s.begin_ns, (510u - 100u) * 20u);
    }
  }
  EXPECT_EQ(n, 1u);
}

TEST(PerfettoWriter, EverySequenceClearsItsStateBeforeUsingInternedData) {
  Decoded d = WriteAndDecode(Sample());
  EXPECT_TRUE(d.state_cleared_before_use);
  EXPECT_EQ(d.packets_needing_state, d.track_event_packets);  // as Perfetto's own writers flag them
}

TEST(PerfettoWriter, EachNameIsWrittenOncePerSequence) {
  Collection c = Sample();
  // 200 more gemm slices on AIC 0: the name, category, annotation names and file stay one copy.
  for (int i = 0; i < 200; ++i) c.intervals.push_back(Iv(0, 0, CoreKind::kAic, 0, 1, 1000 + 10 * i, 1005 + 10 * i, 3));
  std::ostringstream os;
  ASSERT_TRUE(WritePerfettoTrace(c, ChromeTraceOptions(), os).ok());
  size_t compressed = 0;
  std::string trace;
  for (const std::string& p : Packets(os.str(), &compressed)) trace += p;
  EXPECT_EQ(compressed, 1u);  // one batch
  size_t gemm = 0;
  for (size_t p = trace.find("gemm"); p != std::string::npos; p = trace.find("gemm", p + 1)) ++gemm;
  EXPECT_EQ(gemm, 2u);  // once per sequence that uses it: AIC 0's and AIV 1's crossed track
  Decoded d = Decode(os.str());
  size_t slices = 0;
  for (const auto& [track, list] : d.slices) slices += list.size();
  EXPECT_EQ(slices, c.intervals.size());
}

TEST(PerfettoWriter, PathExtensionsSelectTheWriter) {
  EXPECT_TRUE(IsPerfettoPath("out/trace.pftrace"));
  EXPECT_TRUE(IsPerfettoPath("t.perfetto-trace"));
  EXPECT_FALSE(IsPerfettoPath("trace.json"));
  EXPECT_FALSE(IsPerfettoPath(".pftrace"));
}

}  // namespace
}  // namespace optrace::collect
