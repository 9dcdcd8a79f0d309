// report.html's overview plots (report_plots.h): the per-rank and per-step splits add up to the
// step wall, ranks are ordered by compute with the slow rank marked, many steps are grouped, and
// communication links become a global or a per-group matrix.
#include "analyze/report/report_plots.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analyze/report/report_fixture.h"

namespace optrace::analyze::report {
namespace {

double Sum(const nlohmann::json& row) {
  double wait = row.contains("wait_ms") && row["wait_ms"].is_number() ? row["wait_ms"].get<double>() : 0.0;
  return row["compute_ms"].get<double>() + row["comm_ms"].get<double>() + wait + row["free_ms"].get<double>();
}

TEST(ReportPlotsTest, EachRanksPartsAddUpToItsMeanStepWall) {
  AnalysisResult r = analyze::testing::MakeReportFixture();
  nlohmann::json j = RankBreakdownJson(r);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["ranks"].size(), 2u);
  for (const auto& row : j["ranks"]) EXPECT_NEAR(Sum(row), row["wall_ms"].get<double>(), 0.01) << row.dump();
  EXPECT_GE(j["ranks"][0]["compute_ms"].get<double>(), j["ranks"][1]["compute_ms"].get<double>());
}

TEST(ReportPlotsTest, TheSlowRankFindingsRankIsMarkedAndTheWaitSplitComesFromCommunicationJson) {
  AnalysisResult r = analyze::testing::MakeReportFixture();
  Finding f;
  f.type = "slow_rank";
  f.rank = 1;
  r.findings.push_back(f);
  CommRankSummary c;
  c.rank = 0;
  c.wait_ratio = 0.25;
  r.summaries.comm_ranks.push_back(c);
  nlohmann::json j = RankBreakdownJson(r);
  for (const auto& row : j["ranks"]) {
    EXPECT_EQ(row["slow"].get<bool>(), row["rank"] == 1);
    EXPECT_NEAR(Sum(row), row["wall_ms"].get<double>(), 0.01);
    if (row["rank"] == 0) {
      ASSERT_TRUE(row["wait_ms"].is_number());
      EXPECT_NEAR(row["wait_ms"].get<double>(), row["comm_ms"].get<double>() / 3, 0.01);  // 25% : 75%
    } else {
      EXPECT_TRUE(row["wait_ms"].is_null());
    }
  }
}

TEST(ReportPlotsTest, StepsAreMeansOverRanksAndManyStepsAreGrouped) {
  AnalysisResult r = analyze::testing::MakeReportFixture();
  nlohmann::json j = StepBreakdownJson(r);
  ASSERT_EQ(j["bars"].size(), 3u);
  EXPECT_FALSE(j["grouped"].get<bool>());
  EXPECT_EQ(j["bars"][0]["ranks"], 2);
  for (const auto& b : j["bars"]) EXPECT_NEAR(Sum(b), b["wall_ms"].get<double>(), 0.01);
  // 1,000 one-step copies: grouped into at most kStepBreakdownBars bars covering every step.
  Step proto = r.steps.front();
  r.steps.clear();
  for (int i = 0; i < 1000; ++i) {
    proto.step_id = i;
    r.steps.push_back(proto);
  }
  j = StepBreakdownJson(r);
  EXPECT_TRUE(j["grouped"].get<bool>());
  EXPECT_LE(j["bars"].size(), kStepBreakdownBars);
  EXPECT_EQ(j["bars"].front()["first_step"], 0);
  EXPECT_EQ(j["bars"].back()["last_step"], 999);
}

TEST(ReportPlotsTest, NoCompleteStepsAndNoLinksGiveNull) {
  AnalysisResult r = analyze::testing::MakeReportFixture();
  for (Step& s : r.steps) s.complete = false;
  EXPECT_TRUE(RankBreakdownJson(r).is_null());
  EXPECT_TRUE(StepBreakdownJson(r).is_null());
  EXPECT_TRUE(CommMatrixJson(r).is_null());
}

TEST(ReportPlotsTest, LinksWithGlobalRanksFormOneMatrixAndUnmappedOnesOnePerGroup) {
  AnalysisResult r = analyze::testing::MakeReportFixture();
  auto link = [](const char* group, int src, int dst, int gs, int gd, double mb, double ms) {
    CommLinkSummary l;
    l.group = group;
    l.src = src, l.dst = dst, l.src_global = gs, l.dst_global = gd;
    l.size_mb = mb, l.time_ms = ms;
    l.transport = "HCCS";
    return l;
  };
  r.summaries.comm_links = {link("g1", 0, 1, 4, 5, 100, 4), link("g1", 1, 0, 5, 4, 100, 2), link("g2", 0, 1, -1, -1, 10, 1)};
  nlohmann::json j = CommMatrixJson(r);
  ASSERT_EQ(j["matrices"].size(), 2u);
  const auto& global = j["matrices"][0];
  EXPECT_TRUE(global["global"].get<bool>());
  EXPECT_EQ(global["ranks"], nlohmann::json({4, 5}));
  ASSERT_EQ(global["cells"].size(), 2u);
  EXPECT_DOUBLE_EQ(global["cells"][0]["bandwidth_gbps"].get<double>(), 25.0);  // 4 -> 5: 100 MB in 4 ms
  EXPECT_FALSE(j["matrices"][1]["global"].get<bool>());
  EXPECT_NE(j["matrices"][1]["group"].get<std::string>().find("g2"), std::string::npos);
}

}  // namespace
}  // namespace optrace::analyze::report
