#include "analyze/segment/classify.h"

#include <gtest/gtest.h>

#include "analyze/segment/segment.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

// One rank, one step, events (name, op type, shapes) laid out back to back.
AnalysisResult Build(const std::vector<std::tuple<std::string, OpType, std::string>>& evs, int steps = 1) {
  AnalysisResult r;
  RankTable t;
  t.rank = 0;
  t.files.push_back({"k.csv", ""});
  int64_t ts = 0;
  uint32_t row = 2;
  for (int s = 0; s < steps; ++s)
    for (auto& [name, op, shapes] : evs) {
      Event e;
      e.name = r.strings.Intern(name);
      e.op_type = op;
      e.input_shapes = r.strings.Intern(shapes);
      e.start_ns = ts;
      e.dur_ns = 1000;
      e.step_id = s;
      e.row = row++;
      ts += 2000;
      t.events.push_back(e);
    }
  r.ranks.push_back(t);
  return r;
}

TEST(ClassifyTest, LayerSplitsIntoAttentionThenMoeBlock) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = Build({{"FlashAttentionScore", OpType::kMixCv, "1,2"},
                            {"MatMulV2", OpType::kAic, "2,2"},
                            {"hcom_allReduce_", OpType::kCommunication, ""},
                            {"MoeGatingTopK", OpType::kAiv, "4"},
                            {"GroupedMatmul", OpType::kMixCv, "4,4"},
                            {"FlashAttentionScore", OpType::kMixCv, "1,2"},
                            {"MatMulV2", OpType::kAic, "2,2"},
                            {"SwiGlu", OpType::kAiv, "3"}});
  SegmentRanks(r, rules);
  ClassifyAll(r, rules);
  ASSERT_EQ(r.layers.size(), 2u);
  ASSERT_EQ(r.layers[0].blocks.size(), 2u);
  const Block& att = r.blocks[r.layers[0].blocks[0]];
  const Block& moe = r.blocks[r.layers[0].blocks[1]];
  EXPECT_EQ(att.kind, BlockKind::kAttention);
  EXPECT_EQ(att.events.first, 0u);
  EXPECT_EQ(att.events.last, 1u);
  EXPECT_EQ(moe.kind, BlockKind::kMoe);
  EXPECT_EQ(moe.events.last, 5u);
  // Second layer: attention then MatMul/SwiGlu = ffn.
  ASSERT_EQ(r.layers[1].blocks.size(), 2u);
  EXPECT_EQ(r.blocks[r.layers[1].blocks[1]].kind, BlockKind::kFfn);
  EXPECT_FALSE(r.layers[0].companion_layer);
}

TEST(ClassifyTest, LayerWithoutAttentionIsACompanionLayer) {
  Rules rules = testing::BuiltinRules();
  rules.layer_anchors = {RegexRule{"Start", std::regex("Start"), "custom"}};
  AnalysisResult r = Build({{"Start", OpType::kAiv, "1"}, {"GroupedMatmul", OpType::kMixCv, "2"},
                            {"Start", OpType::kAiv, "1"}, {"aicpu_op", OpType::kAicpu, "3"}});
  SegmentRanks(r, rules);
  ClassifyAll(r, rules);
  ASSERT_EQ(r.layers.size(), 2u);
  EXPECT_TRUE(r.layers[0].companion_layer);
  ASSERT_EQ(r.layers[0].blocks.size(), 1u);
  EXPECT_EQ(r.blocks[r.layers[0].blocks[0]].kind, BlockKind::kMoe);
  EXPECT_EQ(r.blocks[r.layers[1].blocks[0]].kind, BlockKind::kAicpu);
}

TEST(ClassifyTest, IdenticalShapeSequencesShareAClass) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = Build({{"MatMulV2", OpType::kAic, "2,2"}, {"hcom_allReduce_", OpType::kCommunication, ""}}, 3);
  SegmentRanks(r, rules);
  ClassifyAll(r, rules);
  ASSERT_EQ(r.steps.size(), 3u);
  ASSERT_EQ(r.step_classes.size(), 1u);  // communication ops need no shapes
  EXPECT_EQ(r.step_classes[0].members.size(), 3u);
  EXPECT_EQ(r.steps[2].step_class, "S1");
}

TEST(ClassifyTest, MissingShapesNeverMerge) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = Build({{"MatMulV2", OpType::kAic, ""}}, 2);
  SegmentRanks(r, rules);
  ClassifyAll(r, rules);
  ASSERT_EQ(r.step_classes.size(), 2u);
  EXPECT_FALSE(r.step_classes[0].has_shapes);
  EXPECT_EQ(r.steps[0].step_class, "S1");
  EXPECT_EQ(r.steps[1].step_class, "S2");
}

TEST(ClassifyTest, ShapelessOperatorInsideAShapedCaptureStillMerges) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = Build({{"MatMulV2", OpType::kAic, "2,2"}, {"MemSet", OpType::kAiv, ""}}, 2);
  SegmentRanks(r, rules);
  ClassifyAll(r, rules);
  ASSERT_EQ(r.step_classes.size(), 1u);
  EXPECT_TRUE(r.step_classes[0].has_shapes);
}

}  // namespace
}  // namespace optrace::analyze
