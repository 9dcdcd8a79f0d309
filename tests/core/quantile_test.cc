#include "core/quantile.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

// Values worked by hand with h = (n - 1) * q (numpy.percentile's default).
TEST(QuantileTest, InterpolatesBetweenClosestRanks) {
  std::vector<double> v = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(Quantile(v, 0.5), 25);    // h = 1.5
  EXPECT_DOUBLE_EQ(Quantile(v, 0.9), 37);    // h = 2.7 -> 30 + 0.7 * 10
  EXPECT_DOUBLE_EQ(Quantile(v, 0.0), 10);
  EXPECT_DOUBLE_EQ(Quantile(v, 1.0), 40);
}

TEST(QuantileTest, SingleValueIsEveryQuantile) {
  std::vector<double> v = {7};
  EXPECT_DOUBLE_EQ(Quantile(v, 0.99), 7);
}

TEST(QuantileTest, SummarizeSortsAndFillsEveryField) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  SummaryStats s = Summarize(v);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.total, 15);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p50, 3);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);   // h = 3.6
  EXPECT_DOUBLE_EQ(s.p99, 4.96);  // h = 3.96
  EXPECT_NEAR(s.stddev, 1.41421356, 1e-6);
}

TEST(QuantileTest, EmptySampleHasZeroCount) {
  std::vector<double> v;
  EXPECT_EQ(Summarize(v).count, 0u);
}

}  // namespace
}  // namespace optrace
