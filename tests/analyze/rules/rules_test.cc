#include "analyze/rules/rules.h"

#include <gtest/gtest.h>

#include "testing/temp_tree.h"

namespace optrace::analyze {
namespace {

using testing::TempTree;

// A diagnosis rules file whose one integer threshold is `value`.
Result<Rules> WithTopOperators(const std::string& value) {
  TempTree tree({{"rules/diagnosis_rules.json", R"({"schema_version": 1, "top_operators": )" + value + "}"}});
  return LoadRules(tree.path("rules"));
}

TEST(RulesTest, AnIntegerThresholdInRangeIsRead) {
  auto rules = WithTopOperators("7");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  EXPECT_EQ(rules->thresholds.top_operators, 7);
}

TEST(RulesTest, AnIntegerThresholdPastIntIsAnErrorNotACast) {
  // 1e300 was converted by a cast (undefined behaviour: fuzz_plan_rules, UBSan); 4294967297
  // truncated to 1.
  for (const char* v : {"1e300", "-1e300", "4294967297", "-3", "2.5"}) {
    auto rules = WithTopOperators(v);
    ASSERT_FALSE(rules.ok()) << v;
    EXPECT_NE(rules.status().message().find("'top_operators' must be an integer from 0 to 1000000"),
              std::string::npos)
        << rules.status().message();
  }
}

TEST(RulesTest, AMinAnchorCountAsAWholeFloatIsRead) {
  TempTree tree({{"rules/segmentation_rules.json", R"({"schema_version": 1, "min_anchor_count": 3.0})"}});
  auto rules = LoadRules(tree.path("rules"));
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  EXPECT_EQ(rules->min_anchor_count, 3);
}

TEST(RulesTest, TheBuiltInModelCatalogIsReadUnderTheFingerprintsFieldNames) {
  auto rules = LoadRules("");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_GE(rules->model_catalog.size(), 10u);
  const CatalogModel* v3 = nullptr;
  for (const CatalogModel& m : rules->model_catalog)
    if (m.id == "deepseek-ai/DeepSeek-V3") v3 = &m;
  ASSERT_NE(v3, nullptr);
  EXPECT_EQ(v3->values.at("layer_count"), 61);
  EXPECT_EQ(v3->values.at("num_experts"), 256);  // n_routed_experts
  EXPECT_EQ(v3->values.at("head_dim"), 128);     // qk_nope_head_dim
  EXPECT_EQ(v3->values.at("vocab_size_or_lm_head_shard"), 129280);
}

TEST(RulesTest, ACatalogModelWithoutAConfigIsRefusedNamingIt) {
  TempTree tree({{"rules/model_catalog.json", R"({"models": [{"id": "x/y", "config": {"architectures": ["Z"]}}]})"}});
  auto rules = LoadRules(tree.path("rules"));
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.status().message().find("model x/y"), std::string::npos) << rules.status().message();
}

}  // namespace
}  // namespace optrace::analyze
