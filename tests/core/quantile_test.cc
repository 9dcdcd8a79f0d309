#include "core/quantile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace optrace {
namespace {

// Every field of two summaries, compared exactly.
void ExpectSameStats(const SummaryStats& a, const SummaryStats& b) {
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  EXPECT_EQ(a.p50, b.p50);
  EXPECT_EQ(a.p90, b.p90);
  EXPECT_EQ(a.p95, b.p95);
  EXPECT_EQ(a.p99, b.p99);
  EXPECT_EQ(a.stddev, b.stddev);
}

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

TEST(QuantileTest, LargeSamplesSortAsStdSortDoes) {
  // Above the radix threshold: negatives, zero, subnormal-free wide exponents, duplicates.
  std::vector<double> v;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double d = double(x % 2000000) / 7.0 - 50000.0;
    v.push_back(i % 5 == 0 ? std::ldexp(d, int(x % 40) - 20) : d);
  }
  v.push_back(0.0);
  v.push_back(0.0);
  std::vector<double> expect = v;
  std::sort(expect.begin(), expect.end());
  SortValues(v);
  EXPECT_EQ(v, expect);
}

TEST(QuantileTest, LargeIntegerSamplesSortAsStdSortDoes) {
  // Above the radix threshold: negatives, zero, the extremes, values differing only in high bits.
  std::vector<int64_t> v;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v.push_back(i % 7 == 0 ? static_cast<int64_t>(x) : static_cast<int64_t>(x % 5000000) - 1000000);
  }
  v.push_back(INT64_MIN);
  v.push_back(INT64_MAX);
  v.push_back(0);
  v.push_back(int64_t{1} << 40);
  std::vector<int64_t> expect = v;
  std::sort(expect.begin(), expect.end());
  SortValues(v);
  EXPECT_EQ(v, expect);
}

TEST(QuantileTest, SummarizeSortedEqualsSummarize) {
  std::vector<double> v = {5, 1, 4, 2, 3, 9, 0.5};
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  ExpectSameStats(Summarize(v), SummarizeSorted(sorted));
  EXPECT_EQ(SummarizeSorted({}).count, 0u);
}

TEST(QuantileTest, LargeSamplesOfOneValueStayPut) {
  std::vector<double> v(10000, 12.5);
  SortValues(v);
  EXPECT_EQ(v, std::vector<double>(10000, 12.5));
}

TEST(QuantileTest, SlicesOfOneBlockSortWithAGivenScratch) {
  // Two slices of one block sorted with one scratch (as the operator summaries do): each slice
  // sorted as std::sort does, the other left alone. A short scratch falls back to std::sort.
  std::vector<int64_t> block;
  uint64_t x = 2463534242ull;
  for (int i = 0; i < 30000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    block.push_back(static_cast<int64_t>(x % 90000000) - 1000);
  }
  std::vector<int64_t> expect = block;
  std::sort(expect.begin(), expect.begin() + 10000);
  std::sort(expect.begin() + 10000, expect.begin() + 25000);
  std::vector<int64_t> scratch(15000, -7);
  SortValues(std::span<int64_t>(block.data(), 10000), std::span<int64_t>(scratch));
  SortValues(std::span<int64_t>(block.data() + 10000, 15000), std::span<int64_t>(scratch));
  EXPECT_EQ(block, expect);
  std::vector<int64_t> shorter(5000);
  std::vector<int64_t> big(block.begin(), block.begin() + 20000);
  std::reverse(big.begin(), big.end());
  SortValues(std::span<int64_t>(big), std::span<int64_t>(shorter));
  EXPECT_TRUE(std::is_sorted(big.begin(), big.end()));
}

TEST(QuantileTest, NanosecondSummaryIsTheSummaryOfItsMicroseconds) {
  // Bit for bit: the summaries' CSVs print these doubles, and they were made from a vector of
  // double(ns) / 1000 before.
  std::vector<int64_t> ns;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 5000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    ns.push_back(static_cast<int64_t>(x % 987654321));
  }
  std::sort(ns.begin(), ns.end());
  std::vector<double> us;
  for (int64_t v : ns) us.push_back(double(v) / 1000.0);
  ExpectSameStats(SummarizeSortedNsAsUs(ns), SummarizeSorted(us));
  EXPECT_EQ(SummarizeSortedNsAsUs({}).count, 0u);
  EXPECT_EQ(SummarizeSortedNsAsUs(std::vector<int64_t>{1500}).p90, 1.5);
}

}  // namespace
}  // namespace optrace
