#include "analyze/cost/op_cost.h"

#include <gtest/gtest.h>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

const OpCostRules& Rules() {
  static const analyze::Rules rules = testing::BuiltinRules();
  return rules.efficiency.cost;
}

TEST(OpCostTest, ParseTensorsKeepsEmptySlotsAsAbsentAndReadsDtypes) {
  std::vector<Tensor> t = ParseTensors("4096,1024;;1024", "DT_BF16;INT8;FLOAT");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].dims, (std::vector<int64_t>{4096, 1024}));
  EXPECT_EQ(t[0].dtype, "DT_BF16");
  EXPECT_FALSE(t[1].present);
  EXPECT_EQ(t[2].Elements(), 1024);
}

TEST(OpCostTest, ParseTensorsRefusesANonNumericDimension) {
  EXPECT_TRUE(ParseTensors("4096,x", "FLOAT").empty());
  EXPECT_TRUE(ParseTensors("N/A", "N/A").empty());
}

TEST(OpCostTest, DtypeSizesAndPeakClasses) {
  EXPECT_EQ(DtypeBytes("DT_BF16"), 2);
  EXPECT_EQ(DtypeBytes("FLOAT"), 4);
  EXPECT_EQ(DtypeBytes("INT8"), 1);
  EXPECT_EQ(DtypeBytes("INT4"), 0.5);
  EXPECT_EQ(DtypeBytes("DT_UNDEFINED"), 0);
  EXPECT_EQ(DtypeClass("FLOAT16"), "fp16");
  EXPECT_EQ(DtypeClass("DT_BF16"), "bf16");
  EXPECT_EQ(DtypeClass("FLOAT"), "fp32");
  EXPECT_EQ(DtypeClass("INT8"), "int8");
}

TEST(OpCostTest, MatmulIsTwoMNKWithBytesOfEveryTensor) {
  // AlexNet's classifier: x [32, 9216] times W^T [4096, 9216] plus bias, fp32.
  OpCost c = ModelOpCost(Rules(), "MatMulV2", "32,9216;4096,9216;4096", "32,4096", "FLOAT;FLOAT;FLOAT");
  ASSERT_TRUE(c.modelled) << c.reason;
  EXPECT_EQ(c.family, "matmul");
  EXPECT_EQ(c.compute_dtype, "fp32");
  EXPECT_EQ(c.flops, 2.0 * 32 * 4096 * 9216);
  EXPECT_EQ(c.bytes, (32.0 * 9216 + 4096.0 * 9216 + 4096) * 4 + 32.0 * 4096 * 4);
  EXPECT_EQ(c.dims, "M=32 N=4096 K=9216");
}

TEST(OpCostTest, MatmulReadsATransposedFirstInput) {
  // A weight gradient: x^T [4096 tokens, 6144] x dy [4096, 1024] -> [6144, 1024].
  OpCost c = ModelOpCost(Rules(), "MatMulV3", "4096,6144;4096,1024", "6144,1024", "DT_BF16;DT_BF16");
  ASSERT_TRUE(c.modelled) << c.reason;
  EXPECT_EQ(c.params.at("M"), 6144);
  EXPECT_EQ(c.params.at("N"), 1024);
  EXPECT_EQ(c.params.at("K"), 4096);
  EXPECT_EQ(c.flops, 2.0 * 6144 * 1024 * 4096);
}

TEST(OpCostTest, BatchMatmulCountsTheBatch) {
  OpCost c = ModelOpCost(Rules(), "BatchMatMul", "12,1024,512;12,512,1024", "12,1024,1024", "FLOAT16;FLOAT16");
  ASSERT_TRUE(c.modelled) << c.reason;
  EXPECT_EQ(c.flops, 2.0 * 12 * 1024 * 1024 * 512);
  EXPECT_EQ(c.compute_dtype, "fp16");
}

TEST(OpCostTest, MatmulWhoseWeightDoesNotMatchIsNotModelled) {
  OpCost c = ModelOpCost(Rules(), "MatMulV2", "32,64;100,100", "32,128", "FLOAT16;FLOAT16");
  EXPECT_FALSE(c.modelled);
  EXPECT_NE(c.reason.find("does not match K=64 N=128"), std::string::npos) << c.reason;
}

TEST(OpCostTest, MatmulWithoutOutputShapeIsNotModelled) {
  OpCost c = ModelOpCost(Rules(), "MatMulV2", "32,64;64,128", "", "FLOAT16;FLOAT16");
  EXPECT_FALSE(c.modelled);
  EXPECT_NE(c.reason.find("no 2-D output"), std::string::npos) << c.reason;
}

TEST(OpCostTest, QuantizedMatmulComputesAtInt8AndWritesTwoByteOutputs) {
  OpCost c = ModelOpCost(Rules(), "QuantBatchMatmulV3", "128,7168;7168,2048;2048", "128,2048", "INT8;INT8;FLOAT");
  ASSERT_TRUE(c.modelled) << c.reason;
  EXPECT_EQ(c.compute_dtype, "int8");
  EXPECT_EQ(c.flops, 2.0 * 128 * 2048 * 7168);
  EXPECT_EQ(c.bytes, 128.0 * 7168 + 7168.0 * 2048 + 2048 * 4 + 128.0 * 2048 * 2);
}

TEST(OpCostTest, GroupedMatmulCountsEveryTokenOnceAcrossExperts) {
  // 256 routed tokens, 8 local experts of [1024 -> 2048], group_list of 8.
  OpCost c = ModelOpCost(Rules(), "GroupedMatmul", "256,1024;8,1024,2048;8", "256,2048", "DT_BF16;DT_BF16;INT64");
  ASSERT_TRUE(c.modelled) << c.reason;
  EXPECT_EQ(c.flops, 2.0 * 256 * 2048 * 1024);
  EXPECT_EQ(c.params.at("E"), 8);
}

// The real FlashAttentionScore row of the Level2 sample (SBH, GQA 16/8 heads, sparse mode with the
// compressed 2048x2048 mask).
constexpr const char* kFaIn = "4096,1,2048;4096,1,1024;4096,1,1024;;;;2048,2048;;;;;;;;";
constexpr const char* kFaOut = "1,16,4096,8;1,16,4096,8;;4096,1,2048";
constexpr const char* kFaTypes =
    "DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL;INT64;INT64;INT64;INT64;INT64;FLOAT;FLOAT;FLOAT";

TEST(OpCostTest, FlashAttentionReadsHeadsFromTheSoftmaxStatisticsAndHalvesACausalMask) {
  OpCost c = ModelOpCost(Rules(), "FlashAttentionScore", kFaIn, kFaOut, kFaTypes);
  ASSERT_TRUE(c.modelled) << c.reason;
  // QK^T and PV over B=1, S=4096, 2048-wide queries (16 x 128), 1024-wide keys and values: half counted.
  EXPECT_EQ(c.flops, 2.0 * 1 * 4096 * 4096 * 2048 * (1 + 1024.0 / 1024) * 0.5);
  EXPECT_EQ(c.params.at("Nq"), 16);
  EXPECT_EQ(c.params.at("D"), 128);
  EXPECT_EQ(c.params.at("Skv"), 4096);
  EXPECT_NE(c.note.find("causal"), std::string::npos);
}

TEST(OpCostTest, FlashAttentionGradIsTwoAndAHalfForwards) {
  OpCost fwd = ModelOpCost(Rules(), "FlashAttentionScore", kFaIn, kFaOut, kFaTypes);
  OpCost bwd = ModelOpCost(
      Rules(), "FlashAttentionScoreGrad",
      "4096,1,2048;4096,1,1024;4096,1,1024;4096,1,2048;2048,2048;1,16,4096,8;1,16,4096,8;;4096,1,2048;;;;;;",
      "4096,1,2048;4096,1,1024;4096,1,1024;;;", "DT_BF16;DT_BF16;DT_BF16;DT_BF16;BOOL;FLOAT;FLOAT;DT_BF16");
  ASSERT_TRUE(bwd.modelled) << bwd.reason;
  EXPECT_EQ(bwd.family, "flash_attention_grad");
  EXPECT_EQ(bwd.flops, 2.5 * fwd.flops);
}

TEST(OpCostTest, FlashAttentionWithAFullMaskCountsTheDenseScoreMatrix) {
  // msinsight's sample: SBH [8192, 2, 640], mask [1, 1, 8192, 8192], flattened statistics.
  OpCost c = ModelOpCost(Rules(), "FlashAttentionScore", "8192,2,640;8192,2,640;8192,2,640;;83886112;;1,1,8192,8192",
                         "655360;655360;;10485760", "DT_BF16;DT_BF16;DT_BF16;FLOAT;UINT8;FLOAT;DT_BF16");
  ASSERT_TRUE(c.modelled) << c.reason;
  EXPECT_EQ(c.flops, 2.0 * 2 * 8192 * 8192 * 640 * 2);
  EXPECT_NE(c.note.find("dense"), std::string::npos);
}

TEST(OpCostTest, FlashAttentionWithoutASequenceAxisIsNotModelled) {
  // TND (varlen): the per-sequence lengths are values, not shapes.
  OpCost c = ModelOpCost(Rules(), "FlashAttentionScore", "4096,16,128;4096,8,128;4096,8,128", "4096,16,128",
                         "DT_BF16;DT_BF16;DT_BF16");
  EXPECT_FALSE(c.modelled);
  EXPECT_FALSE(c.reason.empty());
}

TEST(OpCostTest, VectorOpsAreOutputElementsTimesTheirRuleAndAllBytes) {
  OpCost c = ModelOpCost(Rules(), "Add", "4096,1024;4096,1024", "4096,1024", "FLOAT16;FLOAT16");
  ASSERT_TRUE(c.modelled) << c.reason;
  EXPECT_EQ(c.family, "vector");
  EXPECT_EQ(c.flops, 4096.0 * 1024);
  EXPECT_EQ(c.bytes, 3 * 4096.0 * 1024 * 2);
  OpCost norm = ModelOpCost(Rules(), "RmsNorm", "4096,1,1024;1024", "4096,1,1024;4096,1,1", "DT_BF16;DT_BF16");
  EXPECT_EQ(norm.flops, 4.0 * 4096 * 1024);  // 4 FLOPs per element (efficiency_rules.json)
}

TEST(OpCostTest, UnknownOpTypesAreNotModelled) {
  OpCost c = ModelOpCost(Rules(), "Conv2DBackpropFilter", "32,32,13,13,8;4;32,32,13,13,8", "288,16,16,8",
                         "FLOAT;INT32;FLOAT");
  EXPECT_FALSE(c.modelled);
  EXPECT_EQ(c.reason, "operator type not modelled");
}

}  // namespace
}  // namespace optrace::analyze
