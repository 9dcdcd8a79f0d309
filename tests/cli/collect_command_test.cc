// optrace collect: outputs, options, and every bad input of issue 2 (exit code and message).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "collect/dump_builder.h"
#include "core/point_map.h"
#include "testing/cli_runner.h"

namespace optrace::collect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;
using optrace::testing::RunCli;
using namespace testing;  // NOLINT

namespace fs = std::filesystem;
const std::string kData = std::string(OPTRACE_TEST_DATA_DIR) + "/collect/";

std::string MapFor(const std::vector<std::string>& labels) {
  PointMap map;
  int line = 10;
  for (const std::string& l : labels) {
    for (bool end : {false, true}) {
      PointInfo p;
      p.id = end ? Eid(l) : Bid(l);
      p.label = l;
      p.event_type = end ? 'E' : 'B';
      p.file = "kernel.cc";
      p.line = line++;
      map.points.emplace(p.id, p);
    }
  }
  return SerializePointMap(map);
}

struct Fixture {
  fs::path dir, dumps, map;
};

Fixture TwoRanks() {
  Fixture f;
  f.dir = FreshDir();
  f.dumps = f.dir / "dumps";
  WriteBytes(f.dumps / "rank0.bin", SmallNativeDump());
  WriteBytes(f.dumps / "rank1.bin", SmallNativeDump(1000));
  f.map = f.dir / "point_map.json";
  WriteBytes(f.map, MapFor({"processing", "gemm", "send"}));
  return f;
}

std::vector<json> EventsOf(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == ph) out.push_back(e);
  }
  return out;
}

TEST(CollectCommand, WritesOneProcessPerRankAndOneThreadPerCore) {
  Fixture f = TwoRanks();
  auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", (f.dir / "trace.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json trace = json::parse(ReadText(f.dir / "trace.json"));
  std::set<std::string> processes, threads;
  for (const json& m : EventsOf(trace, "M")) {
    if (m["name"] == "process_name") processes.insert(m["args"]["name"].get<std::string>());
    if (m["name"] == "thread_name" && m["pid"] == 0) threads.insert(m["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(processes, (std::set<std::string>{"rank 0", "rank 1"}));
  EXPECT_EQ(threads, (std::set<std::string>{"AIC 0", "AIV 0", "AIV 1"}));
  std::vector<json> xs = EventsOf(trace, "X");
  ASSERT_EQ(xs.size(), 12u);
  const json& gemm = *std::find_if(xs.begin(), xs.end(), [](const json& e) { return e["name"] == "gemm"; });
  EXPECT_DOUBLE_EQ(gemm["ts"].get<double>(), 2.0);   // (1100 - 1000) ticks at 50 MHz
  EXPECT_DOUBLE_EQ(gemm["dur"].get<double>(), 10.0);  // 500 ticks
  EXPECT_EQ(gemm["args"]["file"], "kernel.cc");
  EXPECT_EQ(gemm["args"]["line"], 12);
  EXPECT_TRUE(trace["otherData"].contains("diagnostics"));
  EXPECT_THAT(r.out, HasSubstr("processing"));
  EXPECT_THAT(r.out, HasSubstr("12 intervals, 0 unmatched"));
}

TEST(CollectCommand, AlignGlobalKeepsTheOffsetBetweenRanks) {
  Fixture f = TwoRanks();
  for (const std::string align : {"rank", "global"}) {
    fs::path out = f.dir / (align + ".json");
    auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", out.string(), "--align", align});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    double first_rank1 = 1e18;
    for (const json& e : EventsOf(json::parse(ReadText(out)), "X")) {
      if (e["pid"] == 1) first_rank1 = std::min(first_rank1, e["ts"].get<double>());
    }
    EXPECT_DOUBLE_EQ(first_rank1, align == "rank" ? 0.0 : 20.0) << align;
  }
}

TEST(CollectCommand, SourceOptionScansTheTreeForTheMap) {
  Fixture f = TwoRanks();
  WriteBytes(f.dir / "src" / "kernel.cpp",
             "void K() {\n"
             "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
             "  MoeTracing(TRACE_POINT(\"gemm\", \"B\"));\n"
             "  MoeTracing(TRACE_POINT(\"gemm\", \"E\"));\n"
             "  MoeTracing(TRACE_POINT(\"send\", \"B\"), 1);\n"
             "  MoeTracing(TRACE_POINT(\"send\", \"E\"), 1);\n"
             "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
             "}\n");
  auto r = RunCli({"collect", f.dumps.string(), "--source", (f.dir / "src").string(), "-o",
                   (f.dir / "t.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json trace = json::parse(ReadText(f.dir / "t.json"));
  std::vector<json> xs = EventsOf(trace, "X");
  ASSERT_EQ(xs.size(), 12u);
  const json& gemm = *std::find_if(xs.begin(), xs.end(), [](const json& e) { return e["name"] == "gemm"; });
  EXPECT_EQ(gemm["args"]["file"], "kernel.cpp");
  EXPECT_EQ(gemm["args"]["line"], 3);
}

TEST(CollectCommand, StatsFileFormatFollowsTheExtension) {
  Fixture f = TwoRanks();
  auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", (f.dir / "t.json").string(),
                   "--stats", (f.dir / "stats.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json stats = json::parse(ReadText(f.dir / "stats.json"));
  EXPECT_EQ(stats["schema_version"], 1);
  ASSERT_FALSE(stats["labels"].empty());
  EXPECT_TRUE(stats["labels"][0].contains("p99_us"));
  r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", (f.dir / "t.json").string(), "--stats",
              (f.dir / "stats.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadText(f.dir / "stats.csv"), HasSubstr("group,role,label,core_kind,count,total_us"));
  EXPECT_THAT(ReadText(f.dir / "stats.csv"), HasSubstr("kind,,send,aiv,4,"));
}

TEST(CollectCommand, StatsFileWithAnotherExtensionIsAUsageError) {
  Fixture f = TwoRanks();
  auto r = RunCli({"collect", f.dumps.string(), "-o", (f.dir / "t.json").string(), "--stats",
                   (f.dir / "stats.txt").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("use .json or .csv"));
}

TEST(CollectCommand, RolesAddPerRoleStatistics) {
  Fixture f = TwoRanks();
  WriteBytes(f.dir / "roles.txt", "send: aiv 0\nidle: aiv 1\ngemm: aic 0\n");
  auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", (f.dir / "t.json").string(), "--roles",
                   (f.dir / "roles.txt").string(), "--stats", (f.dir / "s.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("per role:"));
  json stats = json::parse(ReadText(f.dir / "s.json"));
  std::set<std::string> roles;
  for (const json& row : stats["roles"]) roles.insert(row["role"].get<std::string>());
  EXPECT_EQ(roles, (std::set<std::string>{"send", "idle", "gemm"}));
}

TEST(CollectCommand, RolesMatchingNoCoreAndCoresWithoutRoleAreWarned) {
  Fixture f = TwoRanks();  // cores: aic 0, aiv 0, aiv 1 on each rank
  WriteBytes(f.dir / "roles.txt", "send: aiv 0\ncombine: aiv 64-79\n");
  auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", (f.dir / "t.json").string(), "--roles",
                   (f.dir / "roles.txt").string(), "--stats", (f.dir / "s.json").string(), "--strict"});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // info, not data loss
  EXPECT_THAT(r.out, HasSubstr("role_matches_no_core"));
  EXPECT_THAT(r.out, HasSubstr("role 'combine' (aiv 64-79): no such core in the dumps"));
  EXPECT_THAT(r.out, HasSubstr("aic 0; aiv 1: in the dumps, in no role"));
  json stats = json::parse(ReadText(f.dir / "s.json"));
  std::set<std::string> names;
  for (const json& d : stats["diagnostics"]) names.insert(d["name"].get<std::string>());
  EXPECT_TRUE(names.count("role_matches_no_core"));
  EXPECT_TRUE(names.count("core_without_role"));
}

TEST(CollectCommand, FormatJsonPrintsTheStatsDocument) {
  Fixture f = TwoRanks();
  auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", (f.dir / "t.json").string(),
                   "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["intervals"], 12);
}

TEST(CollectCommand, WithoutAMapLabelsAreHashedIds) {
  Fixture f = TwoRanks();
  auto r = RunCli({"collect", f.dumps.string(), "-o", (f.dir / "t.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(fmt::format("0x{:08x}", Bid("send") >> 1)));
  EXPECT_THAT(r.out, HasSubstr("no_point_map"));
}

TEST(CollectCommand, CudaBlockSlotsBecomeBlockThreadsAt1GHz) {
  // The CUDA backend's slots: kind kCudaBlock, one per thread block, %globaltimer in ns.
  fs::path dir = FreshDir();
  SlotSpec b0{CoreKind::kCudaBlock, 0, 0, 1'000'000'000};
  b0.events = {{Bid("send"), 0, 1000}, {Eid("send"), 0, 3500}};
  SlotSpec b1{CoreKind::kCudaBlock, 1, 0, 1'000'000'000};
  b1.events = {{Bid("send"), 0, 1200}, {Eid("send"), 0, 1700}};
  WriteBytes(dir / "rank0.bin", ToBytes(BuildNativeBuffer({b0, b1}, 16)));
  WriteBytes(dir / "point_map.json", MapFor({"send"}));
  auto r = RunCli({"collect", (dir / "rank0.bin").string(), "--map", (dir / "point_map.json").string(), "-o",
                   (dir / "t.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json trace = json::parse(ReadText(dir / "t.json"));
  std::set<std::string> threads;
  std::vector<double> durs;
  for (const json& e : trace["traceEvents"]) {
    if (e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X") durs.push_back(e["dur"].get<double>());
  }
  EXPECT_EQ(threads, (std::set<std::string>{"block 0", "block 1"}));
  std::sort(durs.begin(), durs.end());
  EXPECT_EQ(durs, (std::vector<double>{0.5, 2.5}));  // microseconds
}

TEST(CollectCommand, PftraceOutputIsAPerfettoProtobufTrace) {
  Fixture f = TwoRanks();
  const fs::path out = f.dir / "trace.pftrace";
  auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string file = ReadText(out);
  ASSERT_GT(file.size(), 16u);
  EXPECT_EQ(file[0], '\x0a');  // Trace.packet, length-delimited
  // A small trace is one batch: Trace.packet { compressed_packets (50): zlib of the packets }.
  size_t p = 1;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0; p < file.size(); shift += 7) {
      const uint8_t b = static_cast<uint8_t>(file[p++]);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  };
  varint();                                 // the packet's length
  ASSERT_EQ(varint(), (50u << 3) | 2);      // compressed_packets
  const uint64_t n = varint();
  std::string bytes(1 << 20, '\0');
  uLongf got = bytes.size();
  ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(bytes.data()), &got, reinterpret_cast<const Bytef*>(file.data() + p), n),
            Z_OK);
  bytes.resize(got);
  EXPECT_EQ(bytes[0], '\x0a');  // inside: Trace.packet fields again
  EXPECT_NE(bytes.find("rank 1"), std::string::npos);
  EXPECT_NE(bytes.find("processing"), std::string::npos);
  EXPECT_EQ(bytes.find("traceEvents"), std::string::npos);
}

TEST(CollectCommand, OverflowNamesTheSlotSizeThatWouldFitAndStrictExitsOne) {
  fs::path dir = FreshDir();
  SlotSpec s{CoreKind::kAiv, 0};
  s.events = {{Bid("send"), 0, 10}, {Eid("send"), 0, 20}};
  s.dropped = 30;  // 32 events in all -> 8 + 64 words -> 128
  WriteBytes(dir / "rank0.bin", ToBytes(BuildNativeBuffer({s}, 16)));
  auto r = RunCli({"collect", dir.string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("slot_overflow"));
  EXPECT_THAT(r.out, HasSubstr("PROF_SIZE_PER_CORE 128 would have fit every slot"));
  r = RunCli({"collect", dir.string(), "-o", (dir / "t.json").string(), "--strict"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--strict"));
}

TEST(CollectCommand, UnmatchedBeginIsReportedWithFileAndLine) {
  fs::path dir = FreshDir();
  SlotSpec s{CoreKind::kAiv, 2};
  s.events = {{Bid("send"), 0, 10}, {Bid("gemm"), 0, 20}, {Eid("gemm"), 0, 30}};
  WriteBytes(dir / "d" / "rank0.bin", ToBytes(BuildNativeBuffer({s}, 16)));
  WriteBytes(dir / "map.json", MapFor({"send", "gemm"}));
  auto r = RunCli({"collect", (dir / "d").string(), "--map", (dir / "map.json").string(), "-o",
                   (dir / "t.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rank 0 AIV 2: 'send' B at kernel.cc:10"));
  json trace = json::parse(ReadText(dir / "t.json"));
  std::vector<json> inst = EventsOf(trace, "I");
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(inst[0]["args"]["unmatched"], "B");
}

TEST(CollectCommand, BackwardsTimestampIsCounted) {
  fs::path dir = FreshDir();
  SlotSpec s{CoreKind::kAiv, 0};
  s.events = {{Bid("send"), 0, 50}, {Eid("send"), 0, 40}};
  WriteBytes(dir / "rank0.bin", ToBytes(BuildNativeBuffer({s}, 16)));
  auto r = RunCli({"collect", dir.string(), "-o", (dir / "t.json").string()});
  EXPECT_THAT(r.out, HasSubstr("timestamp_backwards"));
}

TEST(CollectCommand, LegacyDumpGivesTheHandWorkedIntervals) {
  fs::path dir = FreshDir();
  auto r = RunCli({"collect", kData + "legacy", "--map", kData + "legacy/point_map.json", "-o",
                   (dir / "t.json").string(), "--names", "legacy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json trace = json::parse(ReadText(dir / "t.json"));
  std::multiset<std::string> names;
  for (const json& e : EventsOf(trace, "X")) names.insert(e["name"].get<std::string>());
  // SPEC 5, the reference collector's names: "<label> [extra:<low 8>] #<high 24>".
  EXPECT_EQ(names, (std::multiset<std::string>{"processing [extra:0] #0", "processing [extra:0] #0",
                                               "send [extra:0] #1", "send [extra:5] #2"}));
  EXPECT_THAT(r.out, HasSubstr("distinct point ids: 5 in the dumps, 4 in the map, 4 in both"));
  EXPECT_THAT(r.out, HasSubstr("skipped_no_mapping"));
}

TEST(CollectCommand, DepthOneKeepsOnlyLeaves) {
  fs::path dir = FreshDir();
  auto r = RunCli({"collect", kData + "legacy", "--map", kData + "legacy/point_map.json", "-o",
                   (dir / "t.json").string(), "--depth", "1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // AIC processing (a leaf there) and the two sends; AIV processing has children.
  EXPECT_EQ(json::parse(r.out)["intervals"], 3);
}

// --- Bad input (issue 2, SPEC section 9): exit 2, the file named, what to do. ---

TEST(CollectBadInput, TruncatedFile) {
  fs::path dir = FreshDir();
  std::string bytes = SmallNativeDump();
  WriteBytes(dir / "rank0.bin", bytes.substr(0, bytes.size() - 100));
  auto r = RunCli({"collect", dir.string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("rank0.bin"));
  EXPECT_THAT(r.err, HasSubstr("truncated"));
  EXPECT_THAT(r.err, HasSubstr("save"));
  EXPECT_FALSE(fs::exists(dir / "t.json"));
}

TEST(CollectBadInput, WrongMagic) {
  fs::path dir = FreshDir();
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}, SlotSpec{}}, 16);
  for (uint64_t& word : w) word = word ^ 0x00000000deadbeefull;  // no slot has the magic any more
  WriteBytes(dir / "rank4.bin", ToBytes(w));
  auto r = RunCli({"collect", dir.string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("rank4.bin: no optrace slot header found"));
  EXPECT_THAT(r.err, HasSubstr("expected magic 0x5254504f"));
  EXPECT_FALSE(fs::exists(dir / "t.json"));
}

TEST(CollectBadInput, LeftoverMemoryInAnUnusedSlotIsReportedNotFatal) {
  fs::path dir = FreshDir();
  SlotSpec s{CoreKind::kAiv, 0};
  s.events = {{Bid("send"), 0, 10}, {Eid("send"), 0, 20}};
  std::vector<uint64_t> w = BuildNativeBuffer({s, SlotSpec{}}, 16);
  w[16] = 0xdeadbeefull;
  WriteBytes(dir / "rank4.bin", ToBytes(w));
  WriteBytes(dir / "point_map.json", MapFor({"send"}));
  auto r = RunCli({"collect", (dir / "rank4.bin").string(), "--map", (dir / "point_map.json").string(), "-o",
                   (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("slot(s) 1 never written (1 holding leftover memory, not a slot header)"));
}

TEST(CollectBadInput, CountLargerThanCapacity) {
  fs::path dir = FreshDir();
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}}, 16);
  w[format::kWordEventCount] = 1900;
  WriteBytes(dir / "rank3.bin", ToBytes(w));
  auto r = RunCli({"collect", (dir / "rank3.bin").string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("rank3.bin: slot 0 @ byte 40: count 1900 > capacity 4"));
  EXPECT_THAT(r.err, HasSubstr("corrupt or the dump is truncated"));
}

TEST(CollectBadInput, ZipThatIsNotATorchFile) {
  fs::path dir = FreshDir();
  auto r = RunCli({"collect", kData + "not_torch", "--map", kData + "legacy/point_map.json", "-o",
                   (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not_torch/rank000.pt: a zip file without <archive>/data.pkl"));
  EXPECT_THAT(r.err, HasSubstr("not a torch.save file"));
}

TEST(CollectBadInput, PickleThatDoesNotDescribeInt64Tensors) {
  fs::path dir = FreshDir();
  for (const std::string sub : {"dict", "float"}) {
    auto r = RunCli({"collect", kData + sub, "--map", kData + "legacy/point_map.json", "-o",
                     (dir / "t.json").string()});
    EXPECT_EQ(r.exit_code, 2) << sub;
    EXPECT_THAT(r.err, HasSubstr(sub + "/rank000.pt"));
    EXPECT_THAT(r.err, HasSubstr("int64"));
  }
}

TEST(CollectBadInput, MapThatIsNotJson) {
  Fixture f = TwoRanks();
  WriteBytes(f.map, "{\"points\": {\"12\": ");
  auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", (f.dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("point_map.json: not valid JSON at byte"));
  EXPECT_THAT(r.err, HasSubstr("optrace scan"));
}

TEST(CollectBadInput, DirectoryWithNoDumpsSaysWhatItHolds) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "profiling" / "notes.txt", "hello");
  WriteBytes(dir / "profiling" / "rank0.npy", "x");
  auto r = RunCli({"collect", (dir / "profiling").string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("profiling: no dumps found (expected rank<N>.bin or rank<N>.pt)"));
  EXPECT_THAT(r.err, HasSubstr("notes.txt, rank0.npy"));
  EXPECT_THAT(r.err, HasSubstr("save_profiling_data"));
}

TEST(CollectBadInput, EmptyDirectory) {
  fs::path dir = FreshDir();
  fs::create_directories(dir / "empty");
  auto r = RunCli({"collect", (dir / "empty").string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("it is empty"));
}

TEST(CollectBadInput, AllZeroDump) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "rank0.bin", std::string(4096, '\0'));
  auto r = RunCli({"collect", dir.string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("rank0.bin: all 4096 bytes are zero"));
  EXPECT_THAT(r.err, HasSubstr("synchronise first"));
}

TEST(CollectBadInput, MapFromAnotherBuild) {
  Fixture f = TwoRanks();
  WriteBytes(f.map, MapFor({"something", "else"}));
  auto r = RunCli({"collect", f.dumps.string(), "--map", f.map.string(), "-o", (f.dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the map is from another build"));
  EXPECT_THAT(r.err, HasSubstr("6 in the dumps, 4 in the map, 0 in both"));
}

TEST(CollectBadInput, LegacyDumpsWithoutAMap) {
  fs::path dir = FreshDir();
  auto r = RunCli({"collect", kData + "legacy", "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("rank000.pt: legacy dumps number their points"));
  EXPECT_THAT(r.err, HasSubstr("--map"));
}

TEST(CollectBadInput, MissingInput) {
  auto r = RunCli({"collect", "/nonexistent/dumps", "-o", "t.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/dumps: no such file or directory"));
}

}  // namespace
}  // namespace optrace::collect
