// collect's streamed job (each rank's intervals written and counted as the rank is read) writes
// exactly the trace and statistics the whole collection gives, and starts again held when it
// cannot: a dump that reads differently the second time, a label whose B source moves late.
#include <gtest/gtest.h>

#include "collect/collect_job.h"

#include <algorithm>
#include <sstream>

#include "collect/chrome_writer.h"
#include "dump_builder.h"

namespace optrace::collect {
namespace {

using testing::Bid;
using testing::Eid;
using testing::SlotSpec;

const std::string kLegacyDir = std::string(OPTRACE_TEST_DATA_DIR) + "/collect/legacy";

// What the held path writes for `job`: the whole collection, then the writers.
struct Held {
  std::string trace;
  std::string stats;
};
Held HeldOutputs(const CollectJob& job) {
  Result<CollectResult> r = Collect(job.options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  if (job.roles) AddRoleCoverageProblems(r->collection, *job.roles, r->diagnostics);
  std::ostringstream os;
  EXPECT_TRUE(WriteChromeTrace(r->collection, job.trace, OtherDataJson(*r, job.settings), os).ok());
  return {os.str(), StatsToJson(ComputeStats(r->collection, job.roles), *r, job.settings)};
}

enum class Expect { kStreamed, kCollectedAgain };

void ExpectStreamedEqualsHeld(CollectJob job, Expect expect = Expect::kStreamed) {
  const std::filesystem::path dir = testing::FreshDir("_out");
  job.trace_path = dir / "trace.json";
  job.stats_path = dir / "stats.json";
  Result<CollectReport> rep = RunCollectJob(job);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  const Held held = HeldOutputs(job);
  EXPECT_EQ(testing::ReadText(job.trace_path), held.trace);
  EXPECT_EQ(testing::ReadText(*job.stats_path), held.stats);
  // A streamed job holds no intervals; one collected again, held, holds them all.
  EXPECT_EQ(rep->result.collection.intervals.empty(), expect == Expect::kStreamed);
}

// Three ranks; rank 1's AIV slot comes before its AIC slot (the rank's intervals are sorted before
// they are written), rank 2 has an unmatched B and E, and rank 3's dump is truncated (skipped).
std::filesystem::path MixedNativeSet() {
  const std::filesystem::path dir = testing::FreshDir();
  testing::WriteBytes(dir / "rank0.bin", testing::SmallNativeDump());
  SlotSpec aiv{CoreKind::kAiv, 2};
  aiv.events = {{Bid("send"), 1, 500}, {Eid("send"), 1, 700}};
  SlotSpec aic{CoreKind::kAic, 0};
  aic.events = {{Bid("gemm"), 0, 400}, {Bid("tile"), 0, 450}, {Eid("tile"), 0, 480}, {Eid("gemm"), 0, 900}};
  testing::WriteBytes(dir / "rank1.bin", testing::ToBytes(testing::BuildNativeBuffer({aiv, aic}, 32)));
  SlotSpec odd{CoreKind::kAiv, 0};
  odd.events = {{Eid("recv"), 0, 40}, {Bid("recv"), 0, 60}, {Bid("send"), 3, 70}, {Eid("send"), 3, 90}};
  testing::WriteBytes(dir / "rank2.bin", testing::ToBytes(testing::BuildNativeBuffer({odd}, 32)));
  testing::WriteBytes(dir / "rank3.bin", testing::SmallNativeDump().substr(0, 100));
  return dir;
}

TEST(CollectJob, StreamedTraceAndStatsEqualTheWholeCollections) {
  CollectJob job;
  job.options.inputs = {MixedNativeSet().string()};
  ExpectStreamedEqualsHeld(job);
}

TEST(CollectJob, StreamedEqualsHeldWithDepthUnalignedAndLegacyNames) {
  CollectJob job;
  job.options.inputs = {MixedNativeSet().string()};
  job.options.depth = 1;
  job.trace.align = Align::kNone;
  job.trace.names = NameStyle::kLegacy;
  ExpectStreamedEqualsHeld(job);
}

TEST(CollectJob, StreamedEqualsHeldWithRoles) {
  Result<RoleMap> roles = ParseRoles("cube: aic 0\ncomm: aiv 0-2\nghost: aiv 5\n", "roles.txt");
  ASSERT_TRUE(roles.ok()) << roles.status().message();
  CollectJob job;
  job.options.inputs = {MixedNativeSet().string()};
  job.roles = &*roles;
  ExpectStreamedEqualsHeld(job);
}

// A legacy-sequential map where one label has two B points in different files: the whole
// collection writes the label's last-met source for every interval; the streamed job, having
// written rank 0 with the first, starts again held.
TEST(CollectJob, ALabelWhoseSourceMovesLateIsCollectedAgainHeld) {
  PointMap map;
  map.scheme = PointIdScheme::kLegacySequential;
  map.points[1] = PointInfo{1, "step", 'B', "kernel_a.h", 10};
  map.points[2] = PointInfo{2, "step", 'E', "kernel_a.h", 20};
  map.points[3] = PointInfo{3, "step", 'B', "kernel_b.h", 30};
  map.points[4] = PointInfo{4, "step", 'E', "kernel_b.h", 40};
  const std::filesystem::path dir = testing::FreshDir();
  SlotSpec first{CoreKind::kAiv, 0};
  first.events = {{1, 0, 100}, {2, 0, 200}};
  SlotSpec second{CoreKind::kAiv, 0};
  second.events = {{3, 0, 100}, {4, 0, 300}};
  testing::WriteBytes(dir / "rank0.bin", testing::ToBytes(testing::BuildNativeBuffer({first}, 32)));
  testing::WriteBytes(dir / "rank1.bin", testing::ToBytes(testing::BuildNativeBuffer({second}, 32)));
  CollectJob job;
  job.options.inputs = {dir.string()};
  job.options.map = &map;
  ExpectStreamedEqualsHeld(job, Expect::kCollectedAgain);
  EXPECT_NE(testing::ReadText(dir.parent_path() / (dir.filename().string() + "_out") / "trace.json").find("kernel_b.h"),
            std::string::npos);
}

// The layout pass does not check the zip CRC-32; a rank failing only there is found by the full
// read, and the job starts again held, where it is named as unreadable like any other.
TEST(CollectJob, ARankFailingItsCrcIsCollectedAgainHeld) {
  const std::filesystem::path dir = testing::FreshDir();
  const std::string good = testing::ReadText(kLegacyDir + "/rank000.pt");
  const std::string bad = testing::FlipStoredTensorBit(good, 8 * 3 + 1);  // a timestamp, not a count
  ASSERT_FALSE(bad.empty());
  testing::WriteBytes(dir / "rank000.pt", good);
  testing::WriteBytes(dir / "rank001.pt", bad);
  testing::WriteBytes(dir / "rank002.pt", good);
  Result<PointMap> map = LoadPointMap(kLegacyDir + "/point_map.json");
  ASSERT_TRUE(map.ok());
  CollectJob job;
  job.options.inputs = {dir.string()};
  job.options.map = &*map;
  ExpectStreamedEqualsHeld(job, Expect::kCollectedAgain);
  const std::string stats = testing::ReadText(dir.parent_path() / (dir.filename().string() + "_out") / "stats.json");
  EXPECT_NE(stats.find("CRC-32"), std::string::npos);
}

// A sink sees each rank once, in rank order, its earliest tick first, then its intervals sorted
// by core: a core at a time when the dump's cores come in core order, else all at once; every
// core of every readable dump is named first.
class RecordingSink final : public IntervalSink {
 public:
  Status Begin(std::span<const SeriesInfo> cores) override {
    for (const SeriesInfo& s : cores) begun.push_back(fmt::format("{} {} {}", s.rank, CoreKindName(s.kind), s.core_index));
    return Status::Ok();
  }
  Status BeginRank(int32_t rank, std::optional<int64_t> earliest) override {
    ranks.push_back(fmt::format("{} from {}:", rank, earliest ? std::to_string(*earliest) : "none"));
    return Status::Ok();
  }
  Status TakeIntervals(const Collection&, std::span<const Interval> intervals) override {
    std::string part;
    for (const Interval& iv : intervals)
      part += fmt::format("{}{}:{}{}@{}", part.empty() ? "" : " ", iv.rank, CoreKindName(iv.kind), iv.core_index,
                          iv.begin_ticks);
    ranks.back() += " [" + part + "]";
    return Status::Ok();
  }
  std::vector<std::string> begun;
  std::vector<std::string> ranks;
};

TEST(CollectSink, GetsEveryCoreFirstThenEachRankFromItsEarliestTickSortedByCore) {
  RecordingSink sink;
  CollectOptions o;
  o.inputs = {MixedNativeSet().string()};
  o.sink = &sink;
  Result<CollectResult> r = Collect(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->layout_changed);
  EXPECT_EQ(sink.begun, (std::vector<std::string>{"0 AIC 0", "0 AIV 0", "0 AIV 1", "1 AIV 2", "1 AIC 0", "2 AIV 0"}));
  ASSERT_EQ(sink.ranks.size(), 4u);  // rank 3 is unreadable: no interval, no earliest tick
  EXPECT_EQ(sink.ranks[1], "1 from 400: [1:AIC0@400 1:AIC0@450 1:AIV2@500]");  // AIV 2 before AIC 0: held
  EXPECT_EQ(sink.ranks[2], "2 from 40: [2:AIV0@70]");  // the orphaned E at 40 is the earliest
  EXPECT_EQ(sink.ranks[3], "3 from none: []");
  EXPECT_EQ(r->interval_count, 10u);
  EXPECT_TRUE(r->collection.intervals.empty());
}

TEST(CollectSink, TakesACoreAtATimeWhenTheDumpIsInCoreOrder) {
  RecordingSink sink;
  CollectOptions o;
  o.inputs = {MixedNativeSet().string()};
  o.sink = &sink;
  ASSERT_TRUE(Collect(o).ok());
  // Rank 0's slots are AIC 0, AIV 0, AIV 1: three parts, one per core with intervals.
  EXPECT_EQ(std::count(sink.ranks[0].begin(), sink.ranks[0].end(), '['), 3) << sink.ranks[0];
  // --depth filters a core's intervals by the rank's nesting: the rank goes at once.
  RecordingSink held;
  o.sink = &held;
  o.depth = 1;
  ASSERT_TRUE(Collect(o).ok());
  EXPECT_EQ(std::count(held.ranks[0].begin(), held.ranks[0].end(), '['), 1) << held.ranks[0];
}

}  // namespace
}  // namespace optrace::collect
