// `optrace latency --compare BEFORE AFTER` and `optrace report --compare BEFORE --latency AFTER`.
// Data and hand-worked values: tests/evidence/latency_compare_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/cli_runner.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunCli;

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/latency/" + name; }

TEST(LatencyCompareCommandTest, TextTableShowsCisAndMoved) {
  auto r = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_after.csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("repeats: before 20 complete iterations of 20 measured, after 20 of 20; 2 ranks"));
  EXPECT_THAT(r.out, HasSubstr("statistic                    before [95% CI]              after [95% CI]"));
  EXPECT_THAT(r.out, HasSubstr("per-iteration max median     109.500 ["));
  EXPECT_THAT(r.out, HasSubstr("131.400 ["));
  EXPECT_THAT(r.out, HasSubstr("+21.900 ["));
  EXPECT_THAT(r.out, HasSubstr("(+20.0% ["));
  size_t yes = 0;  // the moved column ends each of the 6 statistic lines
  for (size_t p = 0; (p = r.out.find(" yes\n", p)) != std::string::npos; ++p) ++yes;
  EXPECT_EQ(yes, 6u);
  EXPECT_THAT(r.out, Not(HasSubstr(" no\n")));
}

TEST(LatencyCompareCommandTest, JsonIsVersionedAndSameRunDoesNotMove) {
  auto r = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_same.csv"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "latency_comparison");
  EXPECT_EQ(j["before"]["measurement"], "kernel");
  ASSERT_EQ(j["statistics"].size(), 6u);
  for (const auto& s : j["statistics"]) {
    EXPECT_EQ(s["moved"], false) << s.dump();
    EXPECT_DOUBLE_EQ(s["change"]["value"].get<double>(), 0.0);
  }
  EXPECT_DOUBLE_EQ(j["statistics"][1]["before"]["value"].get<double>(), 118.05);
}

TEST(LatencyCompareCommandTest, JsonShiftMoves) {
  auto r = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_after.csv"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const auto& s : j["statistics"]) EXPECT_EQ(s["moved"], true) << s.dump();
  EXPECT_NEAR(j["statistics"][0]["after"]["value"].get<double>(), 131.4, 1e-9);
  EXPECT_NEAR(j["statistics"][0]["change"]["value"].get<double>(), 21.9, 1e-9);
}

TEST(LatencyCompareCommandTest, WarmupFlagAppliesToBothFiles) {
  auto r = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_after.csv"), "--warmup", "12",
                   "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["before"]["iterations"]["measured"], 10);
  EXPECT_EQ(j["after"]["iterations"]["measured"], 10);
  EXPECT_DOUBLE_EQ(j["statistics"][0]["before"]["value"].get<double>(), 114.5);
}

TEST(LatencyCompareCommandTest, RefusesDifferentMeasurement) {
  auto r = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_event.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("optrace latency: error: cannot compare " + Data("compare_before.csv") +
                               " (measurement 'kernel') with " + Data("compare_event.csv") +
                               " (measurement 'event')"));
  EXPECT_TRUE(r.out.empty());
}

TEST(LatencyCompareCommandTest, RefusesDifferentRanks) {
  auto r = RunCli({"latency", "--compare", Data("dispatch_latency_kernel.csv"), Data("compare_after.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the rank sets differ (rank(s) 2 only in " + Data("dispatch_latency_kernel.csv") + ")"));
}

TEST(LatencyCompareCommandTest, ProblemsWarnAndStrictExitsOne) {
  auto r = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_after_missing.csv")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("after problems (2):\n  - rank 1 has no sample for iteration 5"));
  EXPECT_THAT(r.err, HasSubstr("warning: 2 data problem(s) (before 0, after 2)"));
  auto s = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_after_missing.csv"), "--strict"});
  EXPECT_EQ(s.exit_code, 1);
}

TEST(LatencyCompareCommandTest, OutputDirGetsTheComparisonPlot) {
  auto dir = std::filesystem::temp_directory_path() / "optrace_latency_compare_cli_test";
  std::filesystem::remove_all(dir);
  auto r = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_after.csv"), "-o", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream f(dir / "latency_compare.svg");
  std::string svg((std::istreambuf_iterator<char>(f)), {});
  EXPECT_THAT(svg, HasSubstr("<svg "));
  EXPECT_THAT(svg, HasSubstr(">median 109.500</text>"));
  EXPECT_THAT(svg, HasSubstr(">median 131.400</text>"));
  std::filesystem::remove_all(dir);
}

TEST(LatencyCompareCommandTest, UsageErrors) {
  auto extra = RunCli({"latency", Data("compare_before.csv"), "--compare", Data("compare_before.csv"),
                       Data("compare_after.csv")});
  EXPECT_EQ(extra.exit_code, 2);
  EXPECT_THAT(extra.err, HasSubstr("--compare BEFORE AFTER takes no other CSV argument"));
  auto csv = RunCli({"latency", "--compare", Data("compare_before.csv"), Data("compare_after.csv"), "--format", "csv"});
  EXPECT_EQ(csv.exit_code, 2);
  auto none = RunCli({"latency"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("give a CSV, or --compare BEFORE AFTER"));
}

TEST(ReportCompareCommandTest, SectionFourComparesBeforeWithTheLatencyRun) {
  auto r = RunCli({"report", "--latency", Data("compare_after.csv"), "--compare", Data("compare_before.csv"),
                   "--factor", "AIV count 56 -> 48"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("## 4. Controlled comparison\n\n- The one factor changed: AIV count 56 -&gt; 48\n"));
  EXPECT_THAT(r.out, HasSubstr("- Before: " + Data("compare_before.csv") + "; after: " + Data("compare_after.csv") +
                               " (kernel timing on both sides; 2 ranks)\n"));
  EXPECT_THAT(r.out, HasSubstr("- Repeats: before 20 complete iterations (20 measured), after 20 (20 measured)\n"));
  EXPECT_THAT(r.out, HasSubstr("| per-iteration max median | 109.500 ["));
  EXPECT_THAT(r.out, HasSubstr("| +20.0% | yes |"));
  EXPECT_THAT(r.out, Not(HasSubstr("After run latency data")));  // the after run's problems: section 5
}

TEST(ReportCompareCommandTest, CompareNeedsLatencyAndRefusalsReachTheReport) {
  auto alone = RunCli({"report", "--compare", Data("compare_before.csv"), "--stall",
                       std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/stall/stalls.csv"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_THAT(alone.err, HasSubstr("--compare BEFORE.csv needs --latency AFTER.csv"));
  auto event = RunCli({"report", "--latency", Data("compare_after.csv"), "--compare", Data("compare_event.csv")});
  EXPECT_EQ(event.exit_code, 2);
  EXPECT_THAT(event.err, HasSubstr("optrace report: error: cannot compare " + Data("compare_event.csv")));
  auto plain = RunCli({"report", "--latency", Data("compare_after.csv")});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, HasSubstr("- The one factor changed: _fill in_\n- Repeats and result (accuracy, main kernel, "
                                   "full call, tail latency): _fill in_\n"));
}

}  // namespace
}  // namespace optrace
