#include "analyze/cross_rank/cross_rank.h"

#include <gtest/gtest.h>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::Analyze;
using testing::Sample;

TEST(CrossRankTest, DixonFlagsAClearLowOutlier) {
  Rules rules = testing::BuiltinRules();
  OutlierTest t = TestLowOutlier({1000, 1002, 998, 1001, 999, 1003, 400, 1000}, rules);
  EXPECT_EQ(t.test, "dixon_q");
  EXPECT_TRUE(t.low_outlier);
  EXPECT_NEAR(t.statistic, (998.0 - 400) / (1003 - 400), 1e-9);
  EXPECT_NEAR(t.critical, 0.526, 0.01);  // n = 8, alpha 0.05
}

TEST(CrossRankTest, DixonKeepsOrdinarySpread) {
  Rules rules = testing::BuiltinRules();
  EXPECT_FALSE(TestLowOutlier({1000, 990, 1010, 1005, 995}, rules).low_outlier);
  EXPECT_FALSE(TestLowOutlier({5, 5, 5}, rules).low_outlier);  // zero range
}

TEST(CrossRankTest, ThreeSigmaAboveOneHundredRanks) {
  Rules rules = testing::BuiltinRules();
  std::vector<double> v(120, 1000.0);
  for (size_t i = 0; i < v.size(); ++i) v[i] += static_cast<double>(i % 7) - 3.0;
  v[17] = 900;
  OutlierTest t = TestLowOutlier(v, rules);
  EXPECT_EQ(t.test, "three_sigma");
  EXPECT_TRUE(t.low_outlier);
  v[17] = 997;
  EXPECT_FALSE(TestLowOutlier(v, rules).low_outlier);
}

TEST(CrossRankTest, TwoRanksUseTheSkewThreshold) {
  Rules rules = testing::BuiltinRules();
  EXPECT_EQ(TestLowOutlier({100, 90}, rules).test, "two_rank_skew");
  EXPECT_TRUE(TestLowOutlier({100, 90}, rules).low_outlier);
  EXPECT_FALSE(TestLowOutlier({100, 98}, rules).low_outlier);
}

TEST(CrossRankTest, SyntheticRootVotesForTheLateRank) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  const CrossRank& c = r.cross_rank;
  EXPECT_EQ(c.alignment_method, "step_id");
  EXPECT_EQ(c.ranks.size(), 8u);
  EXPECT_EQ(c.steps.size(), 5u);
  EXPECT_EQ(c.tested_collectives, 15);  // 3 allreduces x 5 steps
  ASSERT_EQ(c.votes.size(), 1u);
  EXPECT_EQ(c.votes[0].rank, 5);
  EXPECT_EQ(c.votes[0].votes, 5);
  EXPECT_LT(c.max_step_skew_ratio, 0.05);
  EXPECT_LT(c.compute_imbalance_ratio, 0.01);
  for (const AlignedCollective& a : c.collectives) {
    EXPECT_EQ(a.dur_us.size(), 8u);
    EXPECT_EQ(a.kind, "allreduce");
    if (a.occurrence == 0 && r.Str(a.name) == "hcom_allReduce__358_0_1") EXPECT_EQ(a.outlier_rank, 5);
    else EXPECT_EQ(a.outlier_rank, -1);
  }
}

// The 8-rank sample's step walls differ by at most 3.3% (ranks wait for each other): within the
// 5% skew threshold no rank is named slowest or fastest; the table names the rank that computes most.
TEST(CrossRankTest, WallsWithinTheSkewThresholdNameNoSlowestRank) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  ASSERT_FALSE(r.cross_rank.steps.empty());
  for (const AlignedStep& a : r.cross_rank.steps) {
    ASSERT_LE(a.wall_skew_ratio, 0.05);
    EXPECT_EQ(a.slowest_rank, -1) << "step " << a.step_id;
    EXPECT_EQ(a.fastest_rank, -1) << "step " << a.step_id;
  }
}

TEST(CrossRankTest, SingleRankHasNothingToCompare) {
  AnalysisResult r = Analyze(Sample("msprof_minimal"));
  EXPECT_EQ(r.cross_rank.alignment_method, "single_rank");
  EXPECT_TRUE(r.cross_rank.votes.empty());
  EXPECT_EQ(r.cross_rank.tested_collectives, 0);
}

}  // namespace
}  // namespace optrace::analyze
