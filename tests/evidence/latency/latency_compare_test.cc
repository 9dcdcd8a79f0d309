#include "evidence/latency/latency_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "evidence/report/report.h"

// Data (tests/data/evidence/latency/compare_*.csv, written by a script): 2 ranks, iterations 0-1
// warm-up (300+ us so a leak shows), then 20 measured iterations k = 0..19 (iteration k + 2):
//   even k: rank 0 = 100 + k, rank 1 = 90 + k;  odd k: rank 0 = 90 + k, rank 1 = 100 + k.
// So the per-iteration max is 100 + k: maxima 100..119.
// Hand-worked (type 7, n = 20: median h = 9.5, P95 h = 18.05):
//   maxima: median (109 + 110) / 2 = 109.5; P95 118 + 0.05 x 1 = 118.05.
//   rank 0 sorted 91,93,95,97, 99,100,101,...,110 (every integer), 112,114,116,118:
//     x[9] = 104, x[10] = 105 -> median 104.5; x[18] = 116, x[19] = 118 -> P95 116 + 0.05 x 2 = 116.1.
//   rank 1 sorted 90,92,94,96,98, 100,101,...,109 (every integer), 111,113,115,117,119:
//     median 104.5; x[18] = 117 -> P95 117.1.
// Per-iteration max quartiles (for the plot): Q1 h = 4.75 -> 104.75, Q3 h = 14.25 -> 114.25.
// compare_after.csv: every value x 1.2 (a 20% shift): medians 131.4, 125.4; P95 141.66, 139.32, 140.52.
// compare_same.csv: compare_before.csv with the iteration order reversed (same multisets).
// compare_event.csv: compare_before.csv with measurement = event.
// compare_after_missing.csv: compare_after.csv without rank 1's row of iteration 5.
namespace optrace::evidence {
namespace {
using ::testing::HasSubstr;

const std::string kDir = std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/latency/";

LatencyTable Read(const std::string& name, const LatencyOptions& opt = {}) {
  auto t = ReadLatencyCsvFiles({kDir + name}, opt);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return *t;
}

Result<LatencyComparison> Compare(const std::string& before, const std::string& after) {
  return CompareLatency(Read(before), Read(after), {});
}

const StatisticComparison& Row(const LatencyComparison& c, std::optional<int64_t> rank, std::string_view stat) {
  for (const StatisticComparison& s : c.rows) {
    if (s.rank == rank && s.statistic == stat) return s;
  }
  ADD_FAILURE() << "no row";
  return c.rows.front();
}

TEST(LatencyCompareTest, PointEstimatesAreTheHandWorkedMediansAndP95) {
  auto c = Compare("compare_before.csv", "compare_after.csv");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->rows.size(), 6u);  // per-iteration max, rank 0, rank 1 x (median, p95)
  const StatisticComparison& med = Row(*c, std::nullopt, "median");
  EXPECT_DOUBLE_EQ(med.before, 109.5);
  EXPECT_NEAR(med.after, 131.4, 1e-9);
  EXPECT_NEAR(med.change, 21.9, 1e-9);
  EXPECT_NEAR(*med.relative, 0.2, 1e-12);
  EXPECT_EQ(med.before_samples, 20u);
  EXPECT_EQ(med.after_samples, 20u);
  const StatisticComparison& p95 = Row(*c, std::nullopt, "p95");
  EXPECT_NEAR(p95.before, 118.05, 1e-9);
  EXPECT_NEAR(p95.after, 141.66, 1e-9);
  EXPECT_NEAR(Row(*c, 0, "median").before, 104.5, 1e-9);
  EXPECT_NEAR(Row(*c, 0, "p95").before, 116.1, 1e-9);
  EXPECT_NEAR(Row(*c, 1, "median").before, 104.5, 1e-9);
  EXPECT_NEAR(Row(*c, 1, "p95").before, 117.1, 1e-9);
  EXPECT_NEAR(Row(*c, 1, "p95").after, 140.52, 1e-9);
}

TEST(LatencyCompareTest, TwentyPercentShiftMovesEveryStatistic) {
  auto c = Compare("compare_before.csv", "compare_after.csv");
  ASSERT_TRUE(c.ok());
  for (const StatisticComparison& s : c->rows) {
    EXPECT_TRUE(s.moved) << ComparisonScopeName(s) << " " << s.statistic;
    EXPECT_GT(s.change_ci.low, 0);
    EXPECT_LE(s.change_ci.low, s.change);
    EXPECT_GE(s.change_ci.high, s.change);
    ASSERT_TRUE(s.relative_ci);
    EXPECT_LT(s.relative_ci->low, 0.2);
    EXPECT_GT(s.relative_ci->high, 0.2);
  }
}

TEST(LatencyCompareTest, SameDistributionDoesNotMove) {
  auto c = Compare("compare_before.csv", "compare_same.csv");
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->rows.size(), 6u);
  for (const StatisticComparison& s : c->rows) {
    EXPECT_FALSE(s.moved) << ComparisonScopeName(s) << " " << s.statistic;
    EXPECT_DOUBLE_EQ(s.change, 0);
    EXPECT_LT(s.change_ci.low, 0);
    EXPECT_GT(s.change_ci.high, 0);
  }
}

TEST(LatencyCompareTest, IntervalsBracketTheEstimateInsideTheSampleRange) {
  auto c = Compare("compare_before.csv", "compare_after.csv");
  ASSERT_TRUE(c.ok());
  const StatisticComparison& med = Row(*c, std::nullopt, "median");
  EXPECT_LE(med.before_ci.low, 109.5);
  EXPECT_GE(med.before_ci.high, 109.5);
  EXPECT_GE(med.before_ci.low, 100);   // a resampled median never leaves the sample's range
  EXPECT_LE(med.before_ci.high, 119);
  EXPECT_GE(med.after_ci.low, 120);
  EXPECT_LE(med.after_ci.high, 142.8 + 1e-9);
}

TEST(LatencyCompareTest, FixedSeedMakesRunsIdentical) {
  auto a = Compare("compare_before.csv", "compare_after.csv");
  auto b = Compare("compare_before.csv", "compare_after.csv");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->seed, kBootstrapSeed);
  EXPECT_EQ(a->resamples, 2000);
  for (size_t i = 0; i < a->rows.size(); ++i) {
    EXPECT_EQ(a->rows[i].change_ci.low, b->rows[i].change_ci.low);
    EXPECT_EQ(a->rows[i].change_ci.high, b->rows[i].change_ci.high);
    EXPECT_EQ(a->rows[i].before_ci.low, b->rows[i].before_ci.low);
  }
}

TEST(LatencyCompareTest, RefusesDifferentMeasurementNamingBothFiles) {
  auto c = Compare("compare_before.csv", "compare_event.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kBadInput);
  EXPECT_THAT(c.status().message(), HasSubstr("cannot compare " + kDir + "compare_before.csv (measurement 'kernel') "
                                              "with " + kDir + "compare_event.csv (measurement 'event')"));
  EXPECT_THAT(c.status().message(), HasSubstr("compare two runs of the same measurement"));
}

TEST(LatencyCompareTest, RefusesStatedAgainstUnstatedMeasurement) {
  auto c = Compare("dispatch_latency.csv", "dispatch_latency_kernel.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("(measurement not stated (no measurement column))"));
}

TEST(LatencyCompareTest, RefusesDifferentRankSetsNamingTheRanks) {
  auto c = Compare("compare_before.csv", "dispatch_latency_kernel.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("compare_before.csv (ranks 0-1) with " + kDir + "dispatch_latency_kernel.csv (ranks 0-2): "
                        "the rank sets differ (rank(s) 2 only in " + kDir + "dispatch_latency_kernel.csv)"));
}

TEST(LatencyCompareTest, EachSideKeepsItsProblems) {
  auto c = Compare("compare_before.csv", "compare_after_missing.csv");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->before.report.problems.empty());
  ASSERT_EQ(c->after.report.problems.size(), 2u);
  EXPECT_EQ(c->after.report.problems[0].kind, LatencyProblemKind::kMissingPair);
  const StatisticComparison& med = Row(*c, std::nullopt, "median");
  EXPECT_EQ(med.after_samples, 19u);  // iteration 5 is incomplete after: left out
  EXPECT_EQ(Row(*c, 0, "median").after_samples, 20u);
  EXPECT_EQ(Row(*c, 1, "median").after_samples, 19u);
  std::ostringstream text;
  WriteLatencyComparisonText(*c, text);
  EXPECT_THAT(text.str(), HasSubstr("before problems: none\nafter problems (2):\n  - rank 1 has no sample for "
                                    "iteration 5"));
  auto j = LatencyComparisonJson(*c);
  EXPECT_EQ(j["after"]["problems"][0]["kind"], "missing_pair");
  EXPECT_EQ(j["after"]["iterations"]["incomplete_excluded"], 1);
}

TEST(LatencyCompareTest, SameOptionsApplyToBothSides) {
  LatencyOptions opt;
  opt.warmup = 12;  // iterations 12..21 measured on both sides
  auto c = CompareLatency(Read("compare_before.csv", opt), Read("compare_after.csv", opt), opt);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->before.report.iterations, 10u);
  EXPECT_EQ(c->after.report.iterations, 10u);
  // maxima 110..119 -> median 114.5
  EXPECT_DOUBLE_EQ(Row(*c, std::nullopt, "median").before, 114.5);
}

TEST(LatencyCompareTest, TextTableAndJsonSchema) {
  auto c = Compare("compare_before.csv", "compare_after.csv");
  ASSERT_TRUE(c.ok());
  std::ostringstream text;
  WriteLatencyComparisonText(*c, text);
  EXPECT_THAT(text.str(), HasSubstr("statistic                    before [95% CI]"));
  EXPECT_THAT(text.str(), HasSubstr("per-iteration max median     109.500 ["));
  EXPECT_THAT(text.str(), HasSubstr("2000 resamples per side, seed 3"));
  auto j = LatencyComparisonJson(*c);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "latency_comparison");
  EXPECT_EQ(j["bootstrap"]["resamples"], 2000);
  EXPECT_EQ(j["bootstrap"]["seed"], 3);
  const auto& s0 = j["statistics"][0];
  EXPECT_EQ(s0["scope"], "per_iteration_max");
  EXPECT_FALSE(s0.contains("rank"));
  EXPECT_EQ(s0["statistic"], "median");
  EXPECT_DOUBLE_EQ(s0["before"]["value"].get<double>(), 109.5);
  EXPECT_EQ(s0["before"]["samples"], 20);
  EXPECT_TRUE(s0["change"].contains("ci_low"));
  EXPECT_NEAR(s0["relative_change"]["value"].get<double>(), 0.2, 1e-12);
  EXPECT_EQ(s0["moved"], true);
  EXPECT_EQ(j["statistics"][2]["scope"], "rank");
  EXPECT_EQ(j["statistics"][2]["rank"], 0);
}

TEST(LatencyCompareTest, PlotMarksBothMediansAndTheVerdict) {
  auto c = Compare("compare_before.csv", "compare_after.csv");
  ASSERT_TRUE(c.ok());
  std::string svg = RenderLatencyComparisonSvg(*c);
  EXPECT_THAT(svg, HasSubstr(">median 109.500</text>"));
  EXPECT_THAT(svg, HasSubstr(">median 131.400</text>"));
  EXPECT_THAT(svg, HasSubstr("median change +21.900 us ["));
  EXPECT_THAT(svg, HasSubstr("]: moved</text>"));
  // Axis 100..150 (steps of 10) over y 360..40: the before box spans Q1 104.75 .. Q3 114.25.
  EXPECT_THAT(svg, HasSubstr("<rect x=\"132.5\" y=\"268.8\" width=\"60.0\" height=\"60.8\""));
}

TEST(ReportComparisonTest, SectionFourShowsFactorRepeatsAndStatistics) {
  EvidenceInputs in;
  auto c = Compare("compare_before.csv", "compare_after.csv");
  ASSERT_TRUE(c.ok());
  c->factor = "unroll 4 -> 2 in simt_write_wqe_v4";
  in.comparison = *c;
  std::ostringstream out;
  WriteEvidenceReport(in, out);
  const std::string md = out.str();
  // The user's text, with '>' as an entity like every '<', '>', '&' outside code spans (issue 53.11).
  EXPECT_THAT(md, HasSubstr("## 4. Controlled comparison\n\n- The one factor changed: unroll 4 -&gt; 2 in "
                            "simt_write_wqe_v4\n"));
  EXPECT_THAT(md, HasSubstr("- Repeats: before 20 complete iterations (20 measured), after 20 (20 measured)\n"));
  EXPECT_THAT(md, HasSubstr("| per-iteration max median | 109.500 ["));
  EXPECT_THAT(md, HasSubstr("| +20.0% | yes |"));
  EXPECT_THAT(md, HasSubstr("Before run latency data: every rank has every iteration."));
  EXPECT_THAT(md, HasSubstr("After run latency data: every rank has every iteration."));  // no --latency here
}

// Issue 53.11, the class: every Markdown optrace writes holds names from the user's files.
TEST(ReportComparisonTest, HtmlInTheUsersTextReachesTheReportAsText) {
  EvidenceInputs in;
  auto c = Compare("compare_before.csv", "compare_after.csv");
  ASSERT_TRUE(c.ok());
  c->factor = "x\\`<img src=x onerror=alert(1)>` <script>alert(2)</script>";
  in.comparison = *c;
  std::ostringstream out;
  WriteEvidenceReport(in, out);
  EXPECT_EQ(out.str().find("<img"), std::string::npos);
  EXPECT_EQ(out.str().find("<script"), std::string::npos);
  EXPECT_THAT(out.str(), HasSubstr("&lt;script&gt;alert(2)&lt;/script&gt;"));
}

TEST(ReportComparisonTest, UnstatedFactorStaysBlankAndSameRunDoesNotMove) {
  EvidenceInputs in;
  auto c = Compare("compare_before.csv", "compare_same.csv");
  ASSERT_TRUE(c.ok());
  in.comparison = *c;
  std::ostringstream out;
  WriteEvidenceReport(in, out);
  EXPECT_THAT(out.str(), HasSubstr("- The one factor changed: _fill in_\n"));
  EXPECT_THAT(out.str(), HasSubstr("| +0.0% | no |"));
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("| yes |")));
}

}  // namespace
}  // namespace optrace::evidence
