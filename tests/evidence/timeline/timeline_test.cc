#include "evidence/timeline/timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace optrace::evidence {
namespace {

using ::testing::HasSubstr;

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/timeline/" + name; }

const CoreTimeline* Find(const TimelineSummary& s, const std::string& core, TimelineSource src) {
  for (const CoreTimeline& c : s.cores) {
    if (c.core == core && c.source == src) return &c;
  }
  return nullptr;
}

double Busy(const CoreTimeline& c, const std::string& pipe) {
  for (const PipeBusy& b : c.busy) {
    if (b.pipe == pipe) return b.busy_us;
  }
  return -1;
}

TimelineSummary LoadAll() {
  auto run = LoadTimelines({Data("pipe_timeline.json"), Data("instr_timeline.json"), Data("sim")});
  EXPECT_TRUE(run.ok()) << run.status().message();
  auto roles = LoadRoles(Data("roles.txt"));
  EXPECT_TRUE(roles.ok());
  return SummarizeTimeline(*run, &*roles);
}

TEST(TimelineTest, IntervalUnionAndIntersection) {
  auto m = MergeIntervals({{6, 9}, {0, 4}, {2, 3}, {9, 10}});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(TotalLength(m), 8.0);  // [0,4) + [6,10)
  EXPECT_DOUBLE_EQ(IntersectionLength(m, MergeIntervals({{3, 7}})), 2.0);
}

TEST(TimelineTest, ParsesCoreNames) {
  auto c = ParseTimelineCore("core3.veccore1");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, format::CoreKind::kAiv);
  EXPECT_EQ(c->block, 3u);
  EXPECT_EQ(c->sub, 1u);
  EXPECT_EQ(ParseTimelineCore("core0.cubecore")->kind, format::CoreKind::kAic);
  EXPECT_FALSE(ParseTimelineCore("MTE2"));
}

// Hand calculations: tests/data/evidence/timeline/README.md.
TEST(TimelineTest, PipeTimelineBusyIsUnionAndOverlapMatchesHandCalculation) {
  TimelineSummary s = LoadAll();
  const CoreTimeline* v0 = Find(s, "core0.veccore0", TimelineSource::kPipeTimeline);
  ASSERT_NE(v0, nullptr);
  EXPECT_EQ(v0->role, "send");
  EXPECT_DOUBLE_EQ(Busy(*v0, "SCALAR"), 10.0);
  EXPECT_DOUBLE_EQ(Busy(*v0, "MTE2"), 7.0);
  EXPECT_DOUBLE_EQ(v0->mte_us, 8.0);
  EXPECT_DOUBLE_EQ(v0->compute_us, 4.0);
  EXPECT_DOUBLE_EQ(v0->overlap_us, 2.0);
  EXPECT_EQ(v0->marks, 1u);
  const CoreTimeline* c1 = Find(s, "core1.cubecore", TimelineSource::kPipeTimeline);
  ASSERT_NE(c1, nullptr);
  EXPECT_EQ(c1->role, "gemm");
  EXPECT_DOUBLE_EQ(c1->mte_us, 5.0);
  EXPECT_DOUBLE_EQ(c1->compute_us, 4.0);
  EXPECT_DOUBLE_EQ(c1->overlap_us, 3.0);
  EXPECT_DOUBLE_EQ(Busy(*c1, "FIXP"), 2.0);
}

TEST(TimelineTest, InstrTimelineOverlappingInstructionsCountOnceInBusy) {
  TimelineSummary s = LoadAll();
  const CoreTimeline* c = Find(s, "core0.veccore0", TimelineSource::kInstrTimeline);
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(Busy(*c, "MTE2"), 4.0);  // 3 + 2 summed would be 5
  EXPECT_DOUBLE_EQ(c->overlap_us, 2.0);
  ASSERT_EQ(c->instructions.size(), 3u);
  const InstrStats& mte2 = c->instructions[1];
  EXPECT_EQ(mte2.pipe, "MTE2");
  EXPECT_EQ(mte2.count, 2u);
  EXPECT_DOUBLE_EQ(mte2.mean_us, 2.5);
  EXPECT_DOUBLE_EQ(mte2.max_us, 3.0);
}

TEST(TimelineTest, SimulatorCacheMissesCountedPerSourceLocationElsePerCore) {
  TimelineSummary s = LoadAll();
  const CoreTimeline* c = Find(s, "core1.veccore0", TimelineSource::kSimulator);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->role, "recv");  // aiv 1*2+0 = 2 once veccore1 is seen
  EXPECT_EQ(c->icache_misses, 4u);
  EXPECT_EQ(c->waits, 1u);
  EXPECT_DOUBLE_EQ(Busy(*c, "SCALAR"), 1.0);  // WAIT_FLAG is not busy
  EXPECT_DOUBLE_EQ(Busy(*c, "VECTOR"), 3.0);
  EXPECT_DOUBLE_EQ(c->overlap_us, 1.0);
  ASSERT_EQ(s.icache.size(), 3u);
  EXPECT_EQ(s.icache[0].location, "dispatch.cpp:12");
  EXPECT_EQ(s.icache[0].count, 2u);
  bool per_core = false;
  for (const IcacheSite& site : s.icache) per_core |= !site.has_location && site.location == "core core1.veccore0";
  EXPECT_TRUE(per_core);
}

TEST(TimelineTest, CsvToleratesUnknownColumnsAndRefusesMissingOneByName) {
  auto ok = LoadTimelines({Data("timeline.csv")});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  TimelineSummary s = SummarizeTimeline(*ok, nullptr);
  ASSERT_EQ(s.cores.size(), 1u);
  EXPECT_DOUBLE_EQ(Busy(s.cores[0], "MTE2"), 4.0);
  EXPECT_DOUBLE_EQ(s.cores[0].overlap_us, 1.0);
  auto bad = LoadTimelines({Data("missing_dur.csv")});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("missing_dur.csv:1: no 'dur(us)' column"));
}

TEST(TimelineTest, JsonEventWithoutDurIsRefusedWithItsIndex) {
  auto bad = LoadTimelines({Data("missing_dur.json")});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("traceEvents[1]: X event has no 'dur'"));
}

TEST(TimelineTest, SameCoreTwiceFromOneSourceIsRefused) {
  auto bad = LoadTimelines({Data("pipe_timeline.json"), Data("pipe_timeline.json")});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("one replay per summary"));
}

TEST(TimelineTest, EventWithoutCoreNamesWhatItSaw) {
  TimelineRun run;
  Status st = AddTimelineText(run, R"({"traceEvents":[{"name":"x","ph":"X","ts":0,"dur":1,"pid":"gpu","tid":"MTE2"}]})",
                              "t/trace.json");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("traceEvents[0]: cannot tell the core: pid 'gpu'"));
}

}  // namespace
}  // namespace optrace::evidence
