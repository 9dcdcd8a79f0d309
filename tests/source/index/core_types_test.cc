#include "source/index/core_types.h"

#include <gtest/gtest.h>

namespace optrace::source::index {
namespace {

TEST(CoreTypesTest, CoreOfTextReadsNamesMacrosAndRegions) {
  EXPECT_EQ(CoreOfText("AscendC::AIC"), kCoreAic);
  EXPECT_EQ(CoreOfText("AIV"), kCoreAiv);
  EXPECT_EQ(CoreOfText("ASCEND_IS_AIC"), kCoreAic);
  EXPECT_EQ(CoreOfText("__DAV_C220_VEC__"), kCoreAiv);
  EXPECT_EQ(CoreOfText("defined(__DAV_C220_CUBE__)"), kCoreAic);
  EXPECT_EQ(CoreOfText("SPLIT_CORE_CUBE"), kCoreAic);
  EXPECT_EQ(CoreOfText("coreNum"), kCoreNone);
  EXPECT_EQ(CoreOfText("aivNum"), kCoreNone);  // a word containing AIV is not the core name
}

TEST(CoreTypesTest, NegationAndInequalityFlipTheCore) {
  EXPECT_EQ(CoreOfText("!ASCEND_IS_AIV"), kCoreAic);
  EXPECT_EQ(CoreOfText("g_coreType != AscendC::AIC"), kCoreAiv);
}

TEST(CoreTypesTest, TextNamingBothCoresNamesNone) {
  EXPECT_EQ(CoreOfText("defined(__DAV_C220_CUBE__) || defined(__DAV_C220_VEC__)"), kCoreNone);
}

TEST(CoreTypesTest, CoreVariableComparisonSplitsBodyAndElse) {
  CoreCondition c = EvaluateCoreCondition("g_coreType == AscendC::AIV");
  EXPECT_EQ(c.body, kCoreAiv);
  EXPECT_EQ(c.other, kCoreAic);
  EXPECT_FALSE(c.decided);
  CoreCondition m = EvaluateCoreCondition("ASCEND_IS_AIC");
  EXPECT_EQ(m.body, kCoreAic);
  EXPECT_EQ(m.other, kCoreAiv);
  EXPECT_EQ(EvaluateCoreCondition("(AscendC::g_coreType == AscendC::AIC)").body, kCoreAic);
  EXPECT_EQ(EvaluateCoreCondition("!(g_coreType == AscendC::AIC)").body, kCoreAiv);
}

TEST(CoreTypesTest, BoundCoreTypeDecidesTheBranch) {
  // `if constexpr (CORE_TYPE == AscendC::AIV)` once CORE_TYPE is bound to AscendC::AIC.
  CoreCondition never = EvaluateCoreCondition("AscendC::AIC == AscendC::AIV");
  EXPECT_TRUE(never.decided);
  EXPECT_FALSE(never.value);
  EXPECT_EQ(never.body, kCoreNone);
  EXPECT_EQ(never.other, kCoreBoth);
  CoreCondition always = EvaluateCoreCondition("AscendC::AIV == AscendC::AIV");
  EXPECT_TRUE(always.decided);
  EXPECT_TRUE(always.value);
  EXPECT_EQ(always.other, kCoreNone);
}

TEST(CoreTypesTest, ConjunctionNarrowsTheBodyButNotTheElse) {
  // `if (ASCEND_IS_AIV && coreIdx == 0)`: the else runs on AIV cores too.
  CoreCondition c = EvaluateCoreCondition("ASCEND_IS_AIV && coreIdx == 0");
  EXPECT_EQ(c.body, kCoreAiv);
  EXPECT_EQ(c.other, kCoreBoth);
  CoreCondition d = EvaluateCoreCondition("ASCEND_IS_AIC || ASCEND_IS_AIV");
  EXPECT_EQ(d.body, kCoreBoth);
  EXPECT_EQ(d.other, kCoreBoth);
  EXPECT_EQ(EvaluateCoreCondition("tokenNum > 0").body, kCoreBoth);
}

TEST(CoreTypesTest, TaskTypesMapToCores) {
  EXPECT_EQ(TaskTypeCores("KERNEL_TYPE_AIV_ONLY"), kCoreAiv);
  EXPECT_EQ(TaskTypeCores("KERNEL_TYPE_AIC_ONLY"), kCoreAic);
  EXPECT_EQ(TaskTypeCores("KERNEL_TYPE_MIX_AIC_1_2"), kCoreBoth);
  EXPECT_EQ(TaskTypeCores("KERNEL_TYPE_MIX_AIC"), kCoreBoth);
  EXPECT_EQ(TaskTypeCores("KERNEL_TYPE_MIX_AIV_1_0"), kCoreAiv);
  EXPECT_EQ(TaskTypeCores("KERNEL_TYPE_MIX_AIC_1_0"), kCoreAic);
  EXPECT_EQ(TaskTypeCores("1000010"), kCoreNone);
}

TEST(CoreTypesTest, FlipAndNames) {
  EXPECT_EQ(FlipCore(kCoreAic), kCoreAiv);
  EXPECT_EQ(FlipCore(kCoreBoth), kCoreBoth);
  EXPECT_EQ(CoreName(kCoreAic), "AIC");
  EXPECT_EQ(CoreName(kCoreBoth), "AIC+AIV");
  EXPECT_EQ(CoreName(kCoreNone), "-");
}

TEST(CoreTypesTest, CubeUnitOperationsRunOnAic) {
  EXPECT_TRUE(IsCubeOperation("Mmad"));
  EXPECT_TRUE(IsCubeOperation("LoadData"));
  EXPECT_TRUE(IsCubeOperation("Fixpipe"));
  EXPECT_FALSE(IsCubeOperation("DataCopy"));
  EXPECT_FALSE(IsCubeOperation("Add"));
}

}  // namespace
}  // namespace optrace::source::index
