#include "evidence/latency/latency.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace::evidence {
namespace {

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/latency/" + name; }

LatencyReport Analyze(const std::string& name, const LatencyOptions& opt = {}) {
  auto t = ReadLatencyCsvFiles({Data(name)}, opt);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return AnalyzeLatency(*t, opt);
}

// Hand-worked values: tests/data/evidence/README.md.
void ExpectHandWorkedCase(const LatencyReport& r) {
  ASSERT_EQ(r.ranks.size(), 3u);
  EXPECT_EQ(r.iterations, 5u);
  EXPECT_EQ(r.complete_iterations, 5u);
  EXPECT_EQ(r.per_iteration_max.samples, 5u);
  EXPECT_NEAR(r.per_iteration_max.median, 14.0, 1e-9);
  EXPECT_NEAR(r.per_iteration_max.p95, 15.8, 1e-9);
  EXPECT_NEAR(r.per_iteration_max.p99, 15.96, 1e-9);
  EXPECT_NEAR(r.per_iteration_max.mean, 13.8, 1e-9);
  EXPECT_NEAR(r.per_iteration_max.min, 11.0, 1e-9);
  EXPECT_NEAR(r.per_iteration_max.max, 16.0, 1e-9);
  ASSERT_EQ(r.per_rank.size(), 3u);
  EXPECT_NEAR(r.per_rank[0].stats.median, 11.0, 1e-9);
  EXPECT_NEAR(r.per_rank[0].stats.p95, 12.8, 1e-9);
  EXPECT_NEAR(r.per_rank[0].stats.max, 13.0, 1e-9);
  EXPECT_NEAR(r.per_rank[1].stats.p95, 14.4, 1e-9);
  EXPECT_NEAR(r.per_rank[2].stats.median, 12.0, 1e-9);
  EXPECT_NEAR(r.per_rank[2].stats.p95, 15.6, 1e-9);
  EXPECT_EQ(r.per_rank[2].stats.samples, 5u);
}

TEST(LatencyTest, PerIterationMaxAndPerRankStatisticsMatchHandWorkedCase) {
  LatencyReport r = Analyze("dispatch_latency.csv");
  ExpectHandWorkedCase(r);
  EXPECT_TRUE(r.problems.empty());
}

TEST(LatencyTest, MaxOfPerRankP95IsReportedApartFromP95OfMaxima) {
  LatencyReport r = Analyze("dispatch_latency.csv");
  EXPECT_NEAR(r.max_of_per_rank_p95, 15.6, 1e-9);
  EXPECT_EQ(r.max_of_per_rank_p95_rank, 2);
  EXPECT_GT(std::abs(r.max_of_per_rank_p95 - r.per_iteration_max.p95), 0.1);
}

TEST(LatencyTest, SlowestRankMostOftenBreaksTiesTowardLowestRank) {
  LatencyReport r = Analyze("dispatch_latency.csv");
  ASSERT_TRUE(r.slowest_rank.has_value());
  EXPECT_EQ(*r.slowest_rank, 1);
  EXPECT_EQ(r.slowest_rank_count, 2u);
  EXPECT_EQ(r.per_rank[0].slowest_count, 1u);
  EXPECT_EQ(r.per_rank[2].slowest_count, 2u);
}

TEST(LatencyTest, ReferenceMeanIsMeanOverRanksOfLastFiveMeans) {
  LatencyReport r = Analyze("dispatch_latency.csv");
  ASSERT_TRUE(r.reference_mean.has_value());
  EXPECT_NEAR(*r.reference_mean, (11.2 + 11.8 + 12.6) / 3, 1e-9);
  EXPECT_NEAR(*r.per_rank[1].last_n_mean, 11.8, 1e-9);
}

TEST(LatencyTest, ReferenceMeanUsesTheLastSamplesByIteration) {
  LatencyOptions opt;
  opt.reference_last_n = 2;  // rank 0: iterations 5, 6 -> (13 + 10) / 2
  LatencyReport r = Analyze("dispatch_latency.csv", opt);
  EXPECT_NEAR(*r.per_rank[0].last_n_mean, 11.5, 1e-9);
  EXPECT_NEAR(*r.reference_mean, (11.5 + 11.5 + 14.0) / 3, 1e-9);
}

TEST(LatencyTest, IsWarmupRowsAreExcluded) {
  auto t = ReadLatencyCsvFiles({Data("dispatch_latency.csv")}, {});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->warmup_rows_excluded, 6u);
  EXPECT_EQ(t->samples.size(), 15u);
  EXPECT_EQ(t->value_column, "elapsed_us");
}

TEST(LatencyTest, WarmupOptionOverridesTheColumn) {
  LatencyOptions opt;
  opt.warmup = 3;  // iterations 0, 1, 2 out
  auto t = ReadLatencyCsvFiles({Data("dispatch_latency.csv")}, opt);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->warmup_rows_excluded, 9u);
  LatencyReport r = AnalyzeLatency(*t, opt);
  EXPECT_EQ(r.iterations, 4u);
  EXPECT_NEAR(r.per_iteration_max.min, 13.0, 1e-9);
  EXPECT_NE(t->warmup_policy.find("--warmup 3"), std::string::npos);
}

TEST(LatencyTest, KernelModeColumnsAreRead) {
  auto t = ReadLatencyCsvFiles({Data("dispatch_latency_kernel.csv")}, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->measurement, "kernel");
  ASSERT_TRUE(t->clock_hz.has_value());
  EXPECT_DOUBLE_EQ(*t->clock_hz, 5e7);
  ExpectHandWorkedCase(AnalyzeLatency(*t, {}));
}

TEST(LatencyTest, GenericColumnsInCyclesConvertToMicroseconds) {
  LatencyOptions opt;
  opt.rank_column = "r", opt.iteration_column = "it", opt.value_column = "cycles";
  opt.unit = LatencyUnit::kCycles, opt.clock_hz = 5e7;
  ExpectHandWorkedCase(Analyze("cycles.csv", opt));
}

TEST(LatencyTest, MillisecondColumnIsUsedWhenMicrosecondsAbsent) {
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_ms\n0,0,0.5\n1,0,0.25\n", "ms.csv", {});
  ASSERT_TRUE(t.ok());
  LatencyReport r = AnalyzeLatency(*t, {});
  EXPECT_DOUBLE_EQ(r.per_iteration_max.max, 500.0);
}

TEST(LatencyTest, IncompleteIterationIsExcludedAndReported) {
  LatencyReport r = Analyze("missing_pair.csv");
  EXPECT_EQ(r.iterations, 4u);
  EXPECT_EQ(r.complete_iterations, 3u);
  EXPECT_NEAR(r.per_iteration_max.median, 7.0, 1e-9);
  EXPECT_NEAR(r.per_iteration_max.mean, 22.0 / 3, 1e-9);
  EXPECT_NEAR(r.per_iteration_max.p95, 8.8, 1e-9);
  EXPECT_EQ(*r.slowest_rank, 2);
  EXPECT_EQ(r.slowest_rank_count, 2u);
  int missing = 0, unequal = 0;
  for (const LatencyProblem& p : r.problems) {
    if (p.kind == LatencyProblemKind::kMissingPair) {
      ++missing;
      EXPECT_EQ(*p.rank, 2);
      EXPECT_EQ(*p.iteration, 2);
    }
    if (p.kind == LatencyProblemKind::kUnequalCounts) {
      ++unequal;
      EXPECT_NE(p.message.find("rank 2: 3"), std::string::npos) << p.message;
    }
  }
  EXPECT_EQ(missing, 1);
  EXPECT_EQ(unequal, 1);
}

TEST(LatencyTest, SingleRankIsAProblemNotAnError) {
  LatencyReport r = Analyze("one_rank.csv");
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].kind, LatencyProblemKind::kSingleRank);
  EXPECT_NE(r.problems[0].message.find("only rank 0 present"), std::string::npos);
  EXPECT_NEAR(r.per_iteration_max.median, 4.0, 1e-9);
}

TEST(LatencyTest, NaCellCountsAsMissingPair) {
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us\n0,0,1\n1,0,NA\n0,1,2\n1,1,3\n", "na.csv", {});
  ASSERT_TRUE(t.ok());
  LatencyReport r = AnalyzeLatency(*t, {});
  EXPECT_EQ(r.complete_iterations, 1u);
  ASSERT_GE(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0].kind, LatencyProblemKind::kMissingValue);
  EXPECT_NE(r.problems[0].message.find("na.csv:3"), std::string::npos);
}

TEST(LatencyTest, ShortRankForReferenceMeanIsReported) {
  LatencyOptions opt;
  opt.reference_last_n = 4;
  LatencyReport r = Analyze("one_rank.csv", opt);
  EXPECT_NEAR(*r.reference_mean, 4.0, 1e-9);
  bool found = false;
  for (const auto& p : r.problems) found |= p.kind == LatencyProblemKind::kShortReference;
  EXPECT_TRUE(found);
}

TEST(LatencyTest, NonNumericCellNamesFileAndLine) {
  auto t = ReadLatencyCsvFiles({Data("non_numeric.csv")}, {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("non_numeric.csv:3: elapsed_us 'abc' is not a number"), std::string::npos)
      << t.status().message();
}

TEST(LatencyTest, MissingColumnListsTheColumnsAndTheFlag) {
  auto t = ReadLatencyCsvFiles({Data("no_value_column.csv")}, {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("no elapsed_us or elapsed_ms column (columns: rank, iteration, time)"),
            std::string::npos)
      << t.status().message();
  EXPECT_NE(t.status().message().find("--value-col"), std::string::npos);
}

TEST(LatencyTest, EmptyFileIsAnError) {
  auto t = ReadLatencyCsvFiles({Data("empty.csv")}, {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("empty.csv: empty file"), std::string::npos) << t.status().message();
}

TEST(LatencyTest, HeaderOnlyFileIsAnError) {
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us\n", "h.csv", {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("h.csv: no data rows"), std::string::npos);
}

TEST(LatencyTest, DuplicatePairIsAnError) {
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us\n0,0,1\n0,0,2\n", "d.csv", {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "d.csv:3: rank 0 iteration 0 appears twice (first at d.csv:2); each (rank, iteration) needs one row");
}

TEST(LatencyTest, NegativeLatencyIsAnError) {
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us\n0,0,-1\n", "n.csv", {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("n.csv:2:"), std::string::npos);
}

TEST(LatencyTest, MixedMeasurementModesAreRejected) {
  auto t = ReadLatencyCsvText(
      "rank,iteration,elapsed_us,measurement,clock_hz\n0,0,1,kernel,50000000\n1,0,2,event,50000000\n", "m.csv", {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("m.csv:3: measurement 'event' differs from 'kernel'"), std::string::npos);
}

TEST(LatencyTest, WarmupAndInAverageBothSetIsRejected) {
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us,is_warmup,in_average\n0,0,1,1,1\n", "w.csv", {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("w.csv:2: is_warmup and in_average are both 1"), std::string::npos);
}

TEST(LatencyTest, CyclesWithoutClockIsAnError) {
  LatencyOptions opt;
  opt.value_column = "elapsed_us", opt.unit = LatencyUnit::kCycles;
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us\n0,0,1\n", "c.csv", opt);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("--clock-hz"), std::string::npos);
}

TEST(LatencyTest, AllRowsWarmupIsAnError) {
  LatencyOptions opt;
  opt.warmup = 100;
  auto t = ReadLatencyCsvFiles({Data("dispatch_latency.csv")}, opt);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("nothing left to analyze"), std::string::npos);
}

TEST(LatencyTest, RankWhoseValuesAreAllNaStillCountsAsPresent) {
  LatencyReport r = Analyze("all_na_rank.csv");
  EXPECT_EQ(r.ranks, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(r.iterations, 3u);
  EXPECT_EQ(r.complete_iterations, 0u);
  EXPECT_EQ(r.per_iteration_max.samples, 0u);
  ASSERT_EQ(r.per_rank.size(), 2u);
  EXPECT_EQ(r.per_rank[0].rank, 0);
  EXPECT_EQ(r.per_rank[1].rank, 2);
  int na = 0, without = 0, pairs = 0;
  for (const LatencyProblem& p : r.problems) {
    if (p.kind == LatencyProblemKind::kMissingValue) {
      ++na;
      EXPECT_EQ(*p.rank, 1);
    }
    if (p.kind == LatencyProblemKind::kRankWithoutValues) {
      ++without;
      EXPECT_EQ(*p.rank, 1);
    }
    if (p.kind == LatencyProblemKind::kMissingPair) ++pairs;
    if (p.kind == LatencyProblemKind::kUnequalCounts) {
      EXPECT_NE(p.message.find("rank 1: 0"), std::string::npos) << p.message;
    }
  }
  EXPECT_EQ(na, 3);
  EXPECT_EQ(without, 1);
  EXPECT_EQ(pairs, 0);  // an NA pair is reported once, as missing_value
}

TEST(LatencyTest, NaPairLeavesItsIterationOutOfTheMaxStatistics) {
  // Iteration 1 would have max 5 from rank 0 alone; with rank 1 NA it must not count.
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us\n0,0,1\n1,0,2\n0,1,5\n1,1,NA\n0,2,3\n1,2,4\n", "na.csv", {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  LatencyReport r = AnalyzeLatency(*t, {});
  EXPECT_EQ(r.complete_iterations, 2u);
  EXPECT_NEAR(r.per_iteration_max.max, 4.0, 1e-9);
  EXPECT_NEAR(r.per_iteration_max.mean, 3.0, 1e-9);
  ASSERT_EQ(r.problems.front().kind, LatencyProblemKind::kMissingValue);
  EXPECT_EQ(*r.problems.front().rank, 1);
  EXPECT_EQ(*r.problems.front().iteration, 1);
  EXPECT_NE(r.problems.front().message.find("na.csv:5: rank 1 iteration 1"), std::string::npos)
      << r.problems.front().message;
}

TEST(LatencyTest, IterationWithOnlyNaValuesCountsAsIncomplete) {
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us\n0,0,1\n1,0,2\n0,1,NA\n1,1,NA\n", "na.csv", {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  LatencyReport r = AnalyzeLatency(*t, {});
  EXPECT_EQ(r.iterations, 2u);
  EXPECT_EQ(r.complete_iterations, 1u);
  ASSERT_EQ(r.per_iteration.size(), 2u);
  EXPECT_EQ(r.per_iteration[1].ranks, 0u);
  EXPECT_FALSE(r.per_iteration[1].complete);
}

TEST(LatencyTest, GapInRankNumbersIsReported) {
  LatencyReport r = Analyze("rank_gap.csv");
  EXPECT_EQ(r.complete_iterations, 2u);
  int gaps = 0;
  for (const LatencyProblem& p : r.problems) {
    if (p.kind != LatencyProblemKind::kRankGap) continue;
    ++gaps;
    EXPECT_EQ(*p.rank, 1);
    EXPECT_NE(p.message.find("ranks 0 and 2 are present but rank 1 is absent"), std::string::npos) << p.message;
  }
  EXPECT_EQ(gaps, 1);
}

TEST(LatencyTest, ContiguousRanksHaveNoGapProblem) {
  LatencyReport r = Analyze("dispatch_latency.csv");
  EXPECT_TRUE(r.problems.empty());
}

TEST(LatencyTest, RowWithFewerFieldsThanTheHeaderIsAnError) {
  auto t = ReadLatencyCsvFiles({Data("short_row.csv")}, {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("short_row.csv:3: 3 fields but the header has 4"), std::string::npos)
      << t.status().message();
}

TEST(LatencyTest, TrailingCommaInTheHeaderDoesNotMakeRowsShort) {
  auto t = ReadLatencyCsvText("rank,iteration,elapsed_us,\n0,0,1\n1,0,2\n", "tc.csv", {});
  EXPECT_TRUE(t.ok()) << t.status().message();
}

}  // namespace
}  // namespace optrace::evidence
