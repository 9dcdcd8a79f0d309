// The join of a kernel's phases and a profiler capture (src/join): the device clock's relation,
// launches matched by order, residuals per launch, refusals, and the Perfetto trace it writes.
#include "join/join.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <sstream>

#include "collect/dump_builder.h"
#include "join/joined_trace.h"
#include "testing/protobuf_wire.h"
#include "testing/temp_tree.h"

namespace optrace::join {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using collect::testing::Bid;
using collect::testing::BuildNativeBuffer;
using collect::testing::Eid;
using collect::testing::SlotSpec;
using collect::testing::ToBytes;
using collect::testing::WriteBytes;
using optrace::testing::TempTree;
using format::CoreKind;

// A 100 MHz counter that started at tick 1,000,000 when CLOCK_MONOTONIC_RAW read 5 s, on a
// machine whose Unix time was 1.7e18 ns ahead of the monotonic clock.
constexpr int64_t kStartCnt = 1'000'000;
constexpr int64_t kMono0 = 5'000'000'000;
constexpr int64_t kOffset = 1'700'000'000'000'000'000;
int64_t Unix(int64_t cnt) { return kMono0 + (cnt - kStartCnt) * 10 + kOffset; }  // 10 ns a tick

std::string ProfilerInfo(int rank) {
  return fmt::format(R"({{"start_info": {{"syscnt_enable": true, "freq": 100, "start_cnt": {}, "start_monotonic": {}}},)"
                     R"( "end_info": {{"collectionTimeEnd": {}, "MonotonicTimeEnd": {}}}, "rank_id": {}}})",
                     kStartCnt, kMono0, kOffset + kMono0 + 60'000'000'000, kMono0 + 60'000'000'000, rank);
}

std::string Us(int64_t ns) { return fmt::format("{}.{:03d}", ns / 1000, ns % 1000); }

// kernel_details.csv rows: (name, stream, task, start Unix ns, duration ns).
struct Row {
  std::string name;
  int stream, task;
  int64_t start, dur;
};
std::string KernelDetails(const std::vector<Row>& rows) {
  std::string out =
      "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait "
      "Time(us),Block Dim\n";
  for (const Row& r : rows)
    out += fmt::format("1,4294967295,{},{},{},{},dynamic,{},{}\t,{},0,24\n", r.task, r.stream, r.name, r.name,
                       r.name.starts_with("hcom") ? "HCCL" : "AI_VECTOR_CORE", Us(r.start), Us(r.dur));
  return out;
}

// One launch of rank 0: two AIV cores, "processing" around "dispatch", from tick `t`.
std::string LaunchDump(int64_t t) {
  std::vector<std::optional<SlotSpec>> slots;
  for (uint32_t core = 0; core < 2; ++core) {
    SlotSpec s{CoreKind::kAiv, core, 0, 50'000'000, t};
    s.events = {{Bid("processing"), 0, t + 10},
                {Bid("dispatch"), 0, t + 20},
                {Eid("dispatch"), 0, t + 70},
                {Eid("processing"), 0, t + 100 + core}};
    slots.push_back(s);
  }
  return ToBytes(BuildNativeBuffer(slots, 32));
}

PointMap Map() {
  PointMap m;
  for (const char* l : {"processing", "dispatch"}) {
    m.points[Bid(l)] = PointInfo{Bid(l), l, 'B', "k.h", 1};
    m.points[Eid(l)] = PointInfo{Eid(l), l, 'E', "k.h", 2};
  }
  return m;
}

// Two launches at ticks 2,000,000 and 3,000,000; the capture's slices start 100 ns (10 ticks)
// before the first phase and end 200 ns after the last.
struct Fixture {
  TempTree t;
  PointMap map = Map();
  JoinOptions opt;
  explicit Fixture(std::vector<Row> rows = {}) {
    WriteBytes(t.path("launch0/rank0.bin"), LaunchDump(2'000'000));
    WriteBytes(t.path("launch1/rank0.bin"), LaunchDump(3'000'000));
    if (rows.empty()) {
      rows = {{"MatMul", 2, 7, Unix(1'999'000), 5'000},
              {"MoeKernel", 2, 8, Unix(2'000'010) - 100, 910 + 200 + 100},
              {"hcom_allReduce__1_0_1", 5, 9, Unix(2'000'200), 1'000},
              {"MoeKernel", 2, 10, Unix(3'000'010) - 100, 910 + 200 + 100}};
    }
    t.Write("cap/rank0_ascend_pt/profiler_info_0.json", ProfilerInfo(0));
    t.Write("cap/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", KernelDetails(rows));
    opt.launches = {t.path("launch0"), t.path("launch1")};
    opt.map = &map;
    opt.capture = t.path("cap");
    opt.kernel = "MoeKernel";
  }
};

TEST(DeviceClockTest, TheCapturesRelationPutsTheCounterOnUnixTime) {
  TempTree t;
  t.Write("profiler_info_0.json", ProfilerInfo(0));
  Result<DeviceClock> c = ReadDeviceClock(t.path("profiler_info_0.json"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->counter_hz, 100e6);
  EXPECT_EQ(c->UnixNs(kStartCnt), kMono0 + kOffset);
  EXPECT_EQ(c->UnixNs(kStartCnt + 123'456'789), Unix(kStartCnt + 123'456'789)) << "1.23 s of ticks, to the ns";
  EXPECT_EQ(c->UnixNs(kStartCnt - 5), Unix(kStartCnt - 5)) << "ticks before the start";
}

TEST(DeviceClockTest, AMissingStartInfoNamesTheFieldAndWhy) {
  TempTree t;
  t.Write("profiler_info_0.json", R"({"end_info": {"collectionTimeEnd": 1, "MonotonicTimeEnd": 1}})");
  Result<DeviceClock> c = ReadDeviceClock(t.path("profiler_info_0.json"));
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("no start_info.freq"));
  EXPECT_THAT(c.status().message(), HasSubstr("GetSystemCycle"));
}

TEST(JoinTest, EachLaunchsPhasesLandInsideItsOwnTaskSliceWithTheirResiduals) {
  Fixture f;
  Result<JoinResult> r = JoinKernelPhases(f.opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->launches.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const LaunchJoin& l = r->launches[static_cast<size_t>(k)];
    const int64_t t = 2'000'000 + 1'000'000 * k;
    EXPECT_EQ(l.launch, k);
    EXPECT_EQ(l.task_id, 8 + 2 * k) << "the k-th launch is the k-th slice of the kernel";
    EXPECT_EQ(l.phases_begin_ns, Unix(t + 10));
    EXPECT_EQ(l.phases_end_ns, Unix(t + 101));
    EXPECT_EQ(l.lead_ns(), 100);
    EXPECT_EQ(l.tail_ns(), 910 + 200 + 100 - 100 - 910);
    EXPECT_EQ(l.cores, 2u);
    EXPECT_EQ(l.intervals, 4u);
    EXPECT_EQ(l.outside, 0u);
  }
  EXPECT_TRUE(r->issues.empty());
  EXPECT_THAT(r->notes, ::testing::ElementsAre(HasSubstr("the slots declare a 50 MHz clock, the capture's system counter "
                                                         "runs at 100 MHz")));
  EXPECT_EQ(r->phases.size(), 8u);
}

TEST(JoinTest, DifferentLaunchCountsAreRefusedNotGuessed) {
  Fixture f;
  f.opt.launches.pop_back();
  Result<JoinResult> r = JoinKernelPhases(f.opt);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("rank 0: 1 launch(es) in the dumps, 2 task slice(s) of 'MoeKernel'"));
}

TEST(JoinTest, AKernelNameTheExportDoesNotHaveIsRefusedWithTheNamesLikeIt) {
  Fixture f;
  f.opt.kernel = "Moe";
  Result<JoinResult> r = JoinKernelPhases(f.opt);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("no task named (or of type) 'Moe'"));
  EXPECT_THAT(r.status().message(), HasSubstr("'MoeKernel' (2x)"));
}

TEST(JoinTest, ACaptureWithoutTheDeviceClockIsRefused) {
  Fixture f;
  fs::remove(f.t.path("cap/rank0_ascend_pt/profiler_info_0.json"));
  f.t.Write("cap/rank0_ascend_pt/profiler_info_0.json", R"({"rank_id": 0})");
  Result<JoinResult> r = JoinKernelPhases(f.opt);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("does not record the device's system counter"));
}

TEST(JoinTest, APhaseOutsideItsSliceIsADataIssueWithItsSizeAndIsNotClipped) {
  // The second slice starts 1 us late: the phases begin 900 ns before it.
  Fixture f({{"MoeKernel", 2, 8, Unix(2'000'010) - 100, 1'210},
             {"MoeKernel", 2, 10, Unix(3'000'010) + 900, 1'210}});
  Result<JoinResult> r = JoinKernelPhases(f.opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->launches[0].outside, 0u);
  EXPECT_EQ(r->launches[1].outside, 4u) << "every phase of that launch reaches past the slice";
  EXPECT_EQ(r->launches[1].lead_ns(), -900);
  EXPECT_EQ(r->launches[1].worst_outside_ns, 900);
  ASSERT_EQ(r->issues.size(), 1u);
  EXPECT_THAT(r->issues[0], HasSubstr("rank 0 launch 1: 4 phase(s) outside the task slice"));
  EXPECT_THAT(r->issues[0], HasSubstr("by up to 0.900 us"));
  EXPECT_EQ(r->phases[4].begin_ns, Unix(3'000'010)) << "kept where the clock puts it";
}

TEST(JoinTest, DumpsOfARankTheCaptureLacksAreRefused) {
  Fixture f;
  WriteBytes(f.t.path("launch0/rank3.bin"), LaunchDump(2'000'000));
  Result<JoinResult> r = JoinKernelPhases(f.opt);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("rank 3 is in the dumps but has no kernel rows in the capture"));
}

// The trace's tracks (name -> slices as (begin, end, name)), decoded from the wire.
struct Slice {
  int64_t begin, end;
  std::string name;
};
std::map<std::string, std::vector<Slice>> DecodeTracks(const std::string& trace) {
  std::string error;
  std::map<uint64_t, std::string> names;
  std::map<uint64_t, std::vector<std::pair<int64_t, std::string>>> open;
  std::map<std::string, std::vector<Slice>> out;
  for (const auto& packet : optrace::testing::WireFields(trace, &error)) {
    EXPECT_EQ(packet.number, 1u);
    auto fields = optrace::testing::WireFields(packet.bytes, &error);
    if (const auto* desc = optrace::testing::WireGet(fields, 60)) {
      auto d = optrace::testing::WireFields(desc->bytes, &error);
      if (const auto* name = optrace::testing::WireGet(d, 2)) names[optrace::testing::WireGet(d, 1)->varint] = name->bytes;
      continue;
    }
    const auto* ev = optrace::testing::WireGet(fields, 11);
    if (!ev) continue;
    const int64_t ts = static_cast<int64_t>(optrace::testing::WireGet(fields, 8)->varint);
    auto e = optrace::testing::WireFields(ev->bytes, &error);
    const uint64_t track = optrace::testing::WireGet(e, 11)->varint;
    const uint64_t type = optrace::testing::WireGet(e, 9)->varint;
    if (type == 1) {
      open[track].push_back({ts, optrace::testing::WireGet(e, 23)->bytes});
    } else if (type == 2) {
      EXPECT_FALSE(open[track].empty()) << "an end without its begin on track " << names[track];
      if (open[track].empty()) continue;
      out[names[track]].push_back({open[track].back().first, ts, open[track].back().second});
      open[track].pop_back();
    }
  }
  EXPECT_EQ(error, "");
  return out;
}

TEST(JoinedTraceTest, TheKernelsPhasesSitInsideItsSlicesBesideTheStreamsAndTheHost) {
  Fixture f;
  f.t.Write("cap/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
            fmt::format(R"([{{"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {{"name": "Python"}}}},)"
                        R"( {{"ph": "X", "name": "aten::moe", "pid": 7, "tid": 7, "ts": "{}", "dur": 30, "cat": "cpu_op"}}])",
                        Us(Unix(1'999'000))));
  Result<JoinResult> r = JoinKernelPhases(f.opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::ostringstream os;
  ASSERT_TRUE(WriteJoinedTrace(*r, os).ok());
  auto tracks = DecodeTracks(os.str());
  ASSERT_EQ(tracks.count("stream 2"), 1u);
  ASSERT_EQ(tracks.count("stream 5 (HCCL)"), 1u);
  ASSERT_EQ(tracks.count("host: Python"), 1u);
  ASSERT_EQ(tracks.count("MoeKernel AIV 0"), 1u);
  ASSERT_EQ(tracks.count("MoeKernel AIV 1"), 1u);
  std::vector<Slice> kernel;
  for (const Slice& s : tracks["stream 2"])
    if (s.name == "MoeKernel") kernel.push_back(s);
  ASSERT_EQ(kernel.size(), 2u);
  for (const char* core : {"MoeKernel AIV 0", "MoeKernel AIV 1"}) {
    ASSERT_EQ(tracks[core].size(), 4u) << "processing and dispatch, two launches";
    for (const Slice& p : tracks[core]) {
      const Slice& k = p.begin < kernel[1].begin ? kernel[0] : kernel[1];
      EXPECT_GE(p.begin, k.begin) << p.name;
      EXPECT_LE(p.end, k.end) << p.name;
    }
  }
}

}  // namespace
}  // namespace optrace::join
