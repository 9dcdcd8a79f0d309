#include "analyze/segment/segment.h"

#include "analyze/segment/classify.h"
#include "analyze/diagnose/diagnose.h"
#include "analyze/summarize/summarize.h"

#include <gtest/gtest.h>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::Analyze;
using testing::Sample;

// A rank with events given as (name, start us, dur us, step).
AnalysisResult OneRank(std::vector<std::tuple<std::string, double, double, int64_t>> evs) {
  AnalysisResult r;
  RankTable t;
  t.rank = 0;
  t.files.push_back({"k.csv", ""});
  uint32_t row = 2;
  for (auto& [name, s, d, step] : evs) {
    Event e;
    e.name = r.strings.Intern(name);
    e.start_ns = static_cast<int64_t>(s * 1000);
    e.dur_ns = static_cast<int64_t>(d * 1000);
    e.step_id = step;
    e.row = row++;
    e.op_type = name.rfind("hcom_", 0) == 0 ? OpType::kCommunication : OpType::kAic;
    t.events.push_back(e);
  }
  r.ranks.push_back(t);
  return r;
}

TEST(SegmentTest, AnatomyMeasuresWallBusyAndBubbleGaps) {
  Thresholds th;  // bubble gap >= max(500 us, 1% wall)
  AnalysisResult r = OneRank({{"a", 0, 100, 1}, {"b", 50, 100, 1}, {"c", 1000, 100, 1}, {"d", 1110, 90, 1}});
  StepAnatomy a = ComputeAnatomy(r.ranks[0], {0, 4}, th);
  EXPECT_EQ(a.wall_ns, 1200000);
  EXPECT_EQ(a.busy_ns, 150000 + 100000 + 90000);
  EXPECT_EQ(a.bubble_ns, a.wall_ns - a.busy_ns);
  EXPECT_EQ(a.max_gap_ns, 850000);  // 150 us .. 1000 us
  EXPECT_EQ(a.max_gap_start_ns, 150000);
  EXPECT_EQ(a.max_gap_next_event, 2u);
  EXPECT_EQ(a.bubble_gap_count, 1);
  EXPECT_TRUE(a.has_bubble);
}

TEST(SegmentTest, SmallGapsAreNotBubbles) {
  Thresholds th;
  AnalysisResult r = OneRank({{"a", 0, 100, 1}, {"b", 400, 100, 1}});
  StepAnatomy a = ComputeAnatomy(r.ranks[0], {0, 2}, th);
  EXPECT_EQ(a.max_gap_ns, 300000);
  EXPECT_FALSE(a.has_bubble);
}

TEST(SegmentTest, StepsFromStepIdsWithPrelaunchAndTailGaps) {
  Rules rules = testing::BuiltinRules();
  // Step 2 starts 5 ms after step 1 ends: heavy (>= max(1 ms, 10% of 1 ms wall)).
  AnalysisResult r = OneRank({{"a", 0, 1000, 1}, {"b", 6000, 1000, 2}, {"c", 7100, 100, 3}});
  SegmentRanks(r, rules);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].step_id, 1);
  EXPECT_EQ(r.steps[0].prelaunch_gap_ns, -1);  // capture edge: unknown
  EXPECT_EQ(r.steps[0].tail_gap_ns, 5000000);
  EXPECT_EQ(r.steps[1].prelaunch_gap_ns, 5000000);
  EXPECT_EQ(r.steps[2].tail_gap_ns, -1);
  auto has = [](const Step& s, const char* tag) {
    return std::find(s.anomaly_tags.begin(), s.anomaly_tags.end(), tag) != s.anomaly_tags.end();
  };
  EXPECT_TRUE(has(r.steps[0], "TAIL_GAP_HEAVY"));
  EXPECT_TRUE(has(r.steps[1], "PRELAUNCH_GAP_HEAVY"));
  EXPECT_FALSE(has(r.steps[2], "PRELAUNCH_GAP_HEAVY"));  // 100 us gap
}

TEST(SegmentTest, NoStepIdsMakesOneIncompleteWholeCaptureStep) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = OneRank({{"a", 0, 10, -1}, {"b", 20, 10, -1}});
  SegmentRanks(r, rules);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].step_source, "whole_capture");
  EXPECT_FALSE(r.steps[0].complete);
  EXPECT_EQ(r.steps[0].events.size(), 2u);
}

TEST(SegmentTest, LayersStartAtAnchorsFromTheRulesFile) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = OneRank({{"RmsNorm", 0, 10, 1},
                              {"FlashAttentionScore", 20, 10, 1},
                              {"MatMul", 40, 10, 1},
                              {"FlashAttentionScore", 60, 10, 1},
                              {"MatMul", 80, 10, 1},
                              {"LmHead", 100, 10, 1},
                              {"Softmax", 120, 10, 1}});
  SegmentRanks(r, rules);
  ASSERT_EQ(r.steps.size(), 1u);
  const Step& s = r.steps[0];
  EXPECT_EQ(s.layer_anchor, "flash_attention");
  ASSERT_EQ(s.layers.size(), 2u);
  EXPECT_EQ(r.layers[0].events.first, 1u);
  EXPECT_EQ(r.layers[0].events.last, 3u);
  EXPECT_EQ(r.layers[1].events.first, 3u);
  EXPECT_EQ(r.layers[1].events.last, 5u);  // as long as the median layer; the rest is the tail
  EXPECT_EQ(s.anatomy.head_ns, 20000);
  EXPECT_EQ(s.anatomy.main_ns, 90000 - 20000);
  EXPECT_EQ(s.anatomy.tail_ns, 130000 - 90000);
}

TEST(SegmentTest, AnchorRulesComeFromData) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = OneRank({{"MyBlockStart", 0, 10, 1}, {"x", 20, 10, 1}, {"MyBlockStart", 40, 10, 1}});
  SegmentRanks(r, rules);
  EXPECT_TRUE(r.layers.empty());
  rules.layer_anchors.insert(rules.layer_anchors.begin(),
                             RegexRule{"MyBlockStart", std::regex("MyBlockStart", std::regex::icase), "custom"});
  SegmentRanks(r, rules);
  EXPECT_EQ(r.layers.size(), 2u);
  EXPECT_EQ(r.steps[0].layer_anchor, "custom");
}

TEST(SegmentTest, AMinAnchorCountOfZeroNeverCutsAtARuleWithNoMatch) {
  // min_anchor_count 0 chose the first rule though nothing matched it, and its anchors' back()
  // was read from an empty list (fuzz_plan_rules, UBSan).
  Rules rules = testing::BuiltinRules();
  rules.min_anchor_count = 0;
  AnalysisResult r = OneRank({{"MatMul", 0, 10, 1}, {"Softmax", 20, 10, 1}});
  SegmentRanks(r, rules);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_TRUE(r.layers.empty());
  EXPECT_TRUE(r.steps[0].layer_anchor.empty());
}

TEST(SegmentTest, InterleavedStepIdsGiveEachStepItsFirstToLastEvent) {
  AnalysisResult r = OneRank({{"a", 0, 10, 1}, {"b", 20, 10, 1}, {"c", 40, 10, 2}, {"d", 60, 10, 1},
                              {"e", 80, 10, 2}, {"f", 100, 10, 3}});
  SegmentRanks(r, testing::BuiltinRules());
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].step_id, 1);
  EXPECT_EQ(r.steps[0].events.first, 0u);
  EXPECT_EQ(r.steps[0].events.last, 4u);
  EXPECT_EQ(r.steps[1].step_id, 2);
  EXPECT_EQ(r.steps[1].events.first, 2u);
  EXPECT_EQ(r.steps[1].events.last, 5u);
  EXPECT_EQ(r.steps[2].events.first, 5u);
  EXPECT_EQ(r.steps[2].events.last, 6u);
}

// Steps are cut into layers side by side: the layers are numbered in step order, as one thread
// numbers them.
TEST(SegmentTest, LayersAreTheSameWithSeveralThreads) {
  std::vector<std::tuple<std::string, double, double, int64_t>> evs;
  double t = 0;
  for (int step = 1; step <= 40; ++step)
    for (int layer = 0; layer < 1 + step % 5; ++layer)
      for (const char* name : {"FlashAttentionScore", "MatMul", "Add"}) {
        evs.emplace_back(name, t, 5, step);
        t += 10;
      }
  const Rules rules = testing::BuiltinRules();
  AnalysisResult one = OneRank(evs), four = OneRank(evs);
  SegmentRanks(one, rules, 1);
  SegmentRanks(four, rules, 4);
  ASSERT_EQ(one.layers.size(), four.layers.size());
  ASSERT_GT(one.layers.size(), 80u);
  for (size_t i = 0; i < one.layers.size(); ++i) {
    EXPECT_EQ(four.layers[i].step, one.layers[i].step) << i;
    EXPECT_EQ(four.layers[i].index_in_step, one.layers[i].index_in_step) << i;
    EXPECT_EQ(four.layers[i].events.first, one.layers[i].events.first) << i;
    EXPECT_EQ(four.layers[i].events.last, one.layers[i].events.last) << i;
    EXPECT_EQ(four.layers[i].end_ns, one.layers[i].end_ns) << i;
  }
  for (size_t s = 0; s < one.steps.size(); ++s) EXPECT_EQ(four.steps[s].layers, one.steps[s].layers) << s;
}

TEST(SegmentTest, SyntheticRootHasFiveStepsOfThreeLayersPerRank) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  EXPECT_EQ(r.steps.size(), 40u);
  EXPECT_EQ(r.layers.size(), 120u);
  for (const Step& s : r.steps) {
    EXPECT_EQ(s.step_source, "Step Id");
    EXPECT_EQ(s.layers.size(), 3u);
    EXPECT_GT(s.anatomy.head_ns, 0);
    EXPECT_GT(s.anatomy.tail_ns, 0);
  }
}

}  // namespace
}  // namespace optrace::analyze

namespace optrace::analyze {
namespace {

// Four steps of 10 kernels; the capture window opened after the first 4 kernels of step 1 and
// closed after 3 kernels of step 4.
AnalysisResult CutAtBothEdges() {
  std::vector<std::tuple<std::string, double, double, int64_t>> evs;
  for (int step = 1; step <= 4; ++step)
    for (int k = 0; k < 10; ++k) {
      if ((step == 1 && k < 4) || (step == 4 && k >= 3)) continue;
      evs.emplace_back("op" + std::to_string(k), step * 1000.0 + k * 50, 40, step);
    }
  return OneRank(evs);
}

TEST(SegmentTest, EdgeStepsCutByTheCaptureWindowArePartial) {
  AnalysisResult r = CutAtBothEdges();
  SegmentRanks(r, testing::BuiltinRules());
  ASSERT_EQ(r.steps.size(), 4u);
  for (size_t i : {size_t{0}, size_t{3}}) {
    EXPECT_TRUE(r.steps[i].partial_capture_boundary) << i;
    EXPECT_FALSE(r.steps[i].complete) << i;
    EXPECT_NE(std::find(r.steps[i].anomaly_tags.begin(), r.steps[i].anomaly_tags.end(), "PARTIAL_CAPTURE_BOUNDARY"),
              r.steps[i].anomaly_tags.end());
  }
  EXPECT_TRUE(r.steps[1].complete);
  EXPECT_FALSE(r.steps[1].partial_capture_boundary);
  EXPECT_TRUE(r.steps[2].complete);
}

TEST(SegmentTest, FullEdgeStepsStayComplete) {
  std::vector<std::tuple<std::string, double, double, int64_t>> evs;
  for (int step = 1; step <= 3; ++step)
    for (int k = 0; k < 10; ++k) evs.emplace_back("op" + std::to_string(k), step * 1000.0 + k * 50, 40, step);
  AnalysisResult r = OneRank(evs);
  SegmentRanks(r, testing::BuiltinRules());
  for (const Step& s : r.steps) EXPECT_TRUE(s.complete && !s.partial_capture_boundary) << s.step_id;
}

}  // namespace
}  // namespace optrace::analyze

namespace optrace::analyze {
namespace {

// Six layers of ~5 ms; the third also holds a 121 ms allreduce (a gradient sync between two
// anchors), which makes it a 126 ms "layer".
TEST(SegmentTest, LayerAbsorbingACollectiveIsAnOutlierKeptOutOfLayerStats) {
  std::vector<std::tuple<std::string, double, double, int64_t>> evs;
  double t = 0;
  for (int layer = 0; layer < 6; ++layer) {
    evs.emplace_back("FlashAttentionScore", t, 2000, 1);
    evs.emplace_back("MatMulV2", t + 2000, 2500, 1);
    t += 5000;
    if (layer == 2) {
      evs.emplace_back("hcom_allReduce__1", t, 121000, 1);
      t += 121000;
    }
  }
  AnalysisResult r = OneRank(evs);
  Rules rules = testing::BuiltinRules();
  SegmentRanks(r, rules);
  ASSERT_EQ(r.layers.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(r.layers[i].outlier, i == 2) << i;
  EXPECT_EQ(r.layers[2].absorbed, "hcom_allReduce__1 121.000 ms, MatMulV2 2.500 ms, FlashAttentionScore 2.000 ms");
  ClassifyAll(r, rules);
  Summarize(r, rules);
  for (const LayerClassSummary& c : r.summaries.layer_classes) EXPECT_LT(c.wall_ms_mean, 6.0) << c.id;
  Diagnose(r, rules);
  bool found = false;
  for (const Finding& f : r.findings)
    if (f.type == "layer_outlier") {
      found = true;
      EXPECT_NE(f.summary.find("hcom_allReduce__1"), std::string::npos) << f.summary;
      EXPECT_EQ(f.evidence.size(), 1u);
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace optrace::analyze
