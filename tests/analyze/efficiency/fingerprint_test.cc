#include "analyze/efficiency/fingerprint.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analyze/efficiency/efficiency.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::TempDir;

const char kHeader[] =
    "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes,Input Data Types,Output Shapes\n";

// A decoder of 4 layers (hidden 1024, 8 heads of 128, SwiGLU intermediate 3072, 512 tokens) and
// its lm head (vocab 32000), two steps.
std::string Steps() {
  std::string csv = kHeader;
  double t = 1000;
  auto row = [&](int step, const char* type, const char* core, const char* in, const char* dt, const char* out) {
    csv += fmt::format("{},{},{},{},{:.3f},10,\"{}\",{},\"{}\"\n", step, type, type, core, t, in, dt, out);
    t += 10;
  };
  for (int step = 1; step <= 2; ++step) {
    for (int layer = 0; layer < 4; ++layer) {
      row(step, "RmsNorm", "AI_VECTOR_CORE", "512,1024;1024", "DT_BF16;DT_BF16", "512,1024;512,1");
      row(step, "FlashAttentionScore", "AI_CORE", "512,1,1024;512,1,1024;512,1,1024;;;;2048,2048",
          "DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL", "1,8,512,8;1,8,512,8;;512,1,1024");
      row(step, "MatMulV2", "AI_CORE", "512,1024;1024,3072", "DT_BF16;DT_BF16", "512,3072");
      row(step, "SwiGlu", "AI_VECTOR_CORE", "512,6144", "DT_BF16", "512,3072");
    }
    row(step, "MatMulV3", "AI_CORE", "512,1024;32000,1024", "DT_BF16;DT_BF16", "512,32000");
    t += 5000;
  }
  return csv;
}

struct Fixture {
  TempDir tmp;
  AnalysisResult r;
  Fixture() {
    tmp.Write("r0_ascend_pt/profiler_info_0.json", "{}");
    tmp.Write("r0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", Steps());
    r = testing::Analyze(tmp.path());
  }
  ModelFingerprint Run(std::optional<ModelConfig> config = std::nullopt) {
    EfficiencyOptions opt;
    opt.model_config = std::move(config);
    return ComputeEfficiency(r, opt).fingerprint;
  }
};

std::string Value(const ModelFingerprint& fp, const std::string& field) {
  for (const FingerprintField& f : fp.config)
    if (f.field == field) return f.value;
  return "(no field)";
}

TEST(FingerprintTest, DimensionsComeFromTheShapesThatCarryThem) {
  Fixture f;
  ModelFingerprint fp = f.Run();
  EXPECT_EQ(Value(fp, "hidden_size"), "1024");
  EXPECT_EQ(Value(fp, "intermediate_size"), "3072");
  EXPECT_EQ(Value(fp, "num_attention_heads"), "8");
  EXPECT_EQ(Value(fp, "num_key_value_heads"), "8");
  EXPECT_EQ(Value(fp, "head_dim"), "128");
  EXPECT_EQ(Value(fp, "sequence_length"), "512");
  EXPECT_EQ(Value(fp, "layer_count"), "4");  // 4 forward attention calls a step
}

TEST(FingerprintTest, TheLmHeadIsTheOncePerStepMatmulFromTheHiddenSize) {
  Fixture f;
  ModelFingerprint fp = f.Run();
  EXPECT_EQ(Value(fp, "vocab_size_or_lm_head_shard"), "32000");
  // 4 layers x the 1024 x 3072 projection + the 32000 x 1024 head.
  EXPECT_EQ(Value(fp, "parameters_lower_bound"), std::to_string(4 * 1024 * 3072 + 32000 * 1024));
}

TEST(FingerprintTest, UnseenDimensionsStayUnknown) {
  Fixture f;
  ModelFingerprint fp = f.Run();
  EXPECT_EQ(Value(fp, "num_experts"), "");
  EXPECT_EQ(Value(fp, "num_local_experts"), "");
}

TEST(FingerprintTest, FeaturesNameTheOperatorsThatShowThem) {
  Fixture f;
  ModelFingerprint fp = f.Run();
  std::map<std::string, const FeatureRow*> by;
  for (const FeatureRow& row : fp.features) by[row.feature] = &row;
  ASSERT_TRUE(by.count("dense_flash_attention"));
  EXPECT_TRUE(by["dense_flash_attention"]->present);
  EXPECT_EQ(by["dense_flash_attention"]->calls, 8u);
  EXPECT_NE(by["gated_mlp"]->evidence.find("SwiGlu x8"), std::string::npos);
  EXPECT_FALSE(by["moe"]->present);
  EXPECT_FALSE(by["mla"]->present);
}

TEST(FingerprintTest, AModelConfigIsShownNextToTheProfileNeverInstead) {
  Fixture f;
  TempDir cfg;
  auto path = cfg.Write("config.json", R"({"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 6144,
    "num_attention_heads": 16, "num_key_value_heads": 8, "vocab_size": 64000})");
  auto config = LoadModelConfig(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  ModelFingerprint fp = f.Run(*config);
  std::map<std::string, FingerprintField> by;
  for (const FingerprintField& x : fp.config) by[x.field] = x;
  EXPECT_EQ(by["hidden_size"].agreement, "equal");
  EXPECT_EQ(by["intermediate_size"].value, "3072");  // the profile's value stays
  EXPECT_EQ(by["intermediate_size"].config_value, "6144");
  EXPECT_EQ(by["intermediate_size"].agreement, "shard (1/2)");
  EXPECT_EQ(by["num_attention_heads"].agreement, "shard (1/2)");
  EXPECT_EQ(by["vocab_size_or_lm_head_shard"].agreement, "shard (1/2)");
  EXPECT_EQ(by["head_dim"].config_value, "64");  // 1024 / 16 from the config ...
  EXPECT_EQ(by["head_dim"].agreement, "differs");  // ... against the 128 the kernels ran
  EXPECT_EQ(by["num_experts"].config_value, "");
}

TEST(FingerprintTest, ANonConfigFileIsRefusedWithWhatItLacks) {
  TempDir cfg;
  auto bad = LoadModelConfig(cfg.Write("c.json", R"({"architectures": ["X"]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("num_hidden_layers"), std::string::npos);
  EXPECT_FALSE(LoadModelConfig(cfg.Write("d.json", "[1, 2")).ok());
}

TEST(FingerprintTest, TheReducedLevel2SampleGivesTheDimensionsItsRowsShow) {
  AnalysisResult r = testing::Analyze(testing::Sample("st_l2"));
  ModelFingerprint fp = ComputeEfficiency(r, {}).fingerprint;
  EXPECT_EQ(Value(fp, "hidden_size"), "1024");
  EXPECT_EQ(Value(fp, "num_attention_heads"), "16");
  EXPECT_EQ(Value(fp, "head_dim"), "128");
  EXPECT_EQ(Value(fp, "sequence_length"), "4096");
}

TEST(FingerprintTest, TheRealLevel2SampleGivesItsModelsDimensions) {
  // msinsight's Level2 ST capture (a 28-layer GQA decoder, pipeline parallel): the corpus copy,
  // whole (tests/data/analyze/st_l2 keeps only its first 614 rows).
  std::filesystem::path real =
      std::filesystem::path(OPTRACE_SOURCE_DIR).parent_path() / "shared/data/ascend/msinsight/test/st/level2";
  if (!std::filesystem::exists(real)) GTEST_SKIP() << "no ../shared";
  AnalysisResult r = testing::Analyze(real);
  ModelFingerprint fp = ComputeEfficiency(r, {}).fingerprint;
  EXPECT_EQ(Value(fp, "hidden_size"), "1024");  // not the 128 of the per-head q / k norms
  EXPECT_EQ(Value(fp, "num_attention_heads"), "16");
  EXPECT_EQ(Value(fp, "num_key_value_heads"), "8");
  EXPECT_EQ(Value(fp, "head_dim"), "128");
  EXPECT_EQ(Value(fp, "sequence_length"), "4096");
  EXPECT_EQ(Value(fp, "intermediate_size"), "3072");
  EXPECT_EQ(Value(fp, "layer_count"), "28");
  EXPECT_EQ(Value(fp, "vocab_size_or_lm_head_shard"), "");  // no logits matmul on this stage
}

// Seed 002's candidate matching: the catalog's models ranked by the share of the profile's known
// fields they agree with (equal, or a shard of a rank-visible one).
TEST(FingerprintTest, CatalogModelsThatAgreeAreRankedAsCandidatesNeverFindings) {
  Fixture f;
  TempDir dir;
  dir.Write("rules/model_catalog.json", R"({"models": [
    {"id": "far/model", "family": "x", "config": {"num_hidden_layers": 7, "hidden_size": 999, "vocab_size": 5}},
    {"id": "tp2/model", "family": "x", "config": {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 6144,
      "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 64000, "head_dim": 128}},
    {"id": "near/model", "family": "x", "config": {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 4096}},
    {"id": "wide/model", "family": "x", "config": {"num_hidden_layers": 4, "hidden_size": 2048, "intermediate_size": 3072,
      "num_attention_heads": 8}}]})");
  auto rules = LoadRules(dir.path() / "rules");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  EfficiencyOptions opt;
  opt.rules = &*rules;
  ModelFingerprint fp = ComputeEfficiency(f.r, opt).fingerprint;
  ASSERT_EQ(fp.candidates.size(), 2u) << "far/model agrees with nothing; wide/model's hidden size (global) differs";
  EXPECT_EQ(fp.candidates[0].id, "tp2/model");  // the same model under tensor parallelism 2
  EXPECT_EQ(fp.candidates[0].compared, 7);
  EXPECT_EQ(fp.candidates[0].agreeing, 7);
  EXPECT_NE(fp.candidates[0].agreeing_fields.find("intermediate_size shard (1/2)"), std::string::npos);
  EXPECT_EQ(fp.candidates[1].id, "near/model");
  EXPECT_EQ(fp.candidates[1].agreeing, 2);
  EXPECT_EQ(fp.candidates[1].differing_fields, "intermediate_size 3072 vs 4096");
}

}  // namespace
}  // namespace optrace::analyze
