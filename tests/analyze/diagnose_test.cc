#include "analyze/diagnose.h"

#include <gtest/gtest.h>

#include <set>

#include "analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::Analyze;
using testing::Sample;

const Finding* FindType(const AnalysisResult& r, const std::string& type) {
  for (const Finding& f : r.findings)
    if (f.type == type) return &f;
  return nullptr;
}

// The synthetic root plants a slow rank (5) and a recurring bubble (rank 2): exactly these two
// problems come out, beside the informational top-operator list.
TEST(DiagnoseTest, SyntheticRootYieldsExactlyThePlantedFindings) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  std::multiset<std::string> problems;
  int top_ops = 0;
  for (const Finding& f : r.findings) {
    if (f.type == "top_operator") ++top_ops;
    else problems.insert(f.type + "@" + std::to_string(f.rank));
  }
  EXPECT_EQ(problems, (std::multiset<std::string>{"slow_rank@5", "recurring_bubble_pattern@2"}));
  EXPECT_EQ(top_ops, 5);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].type, "slow_rank");  // high severity first
  EXPECT_EQ(r.findings[0].id, "F001");
}

TEST(DiagnoseTest, SlowRankEvidencePointsAtTheLateCollectiveRows) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  const Finding* f = FindType(r, "slow_rank");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kHigh);
  ASSERT_EQ(f->evidence.size(), 5u);  // the first allreduce of each of the 5 steps
  const RankTable& t = *r.FindRank(5);
  std::set<int64_t> steps;
  for (const Evidence& e : f->evidence) {
    EXPECT_EQ(e.rank, 5);
    EXPECT_NE(e.file.find("node0_4005_"), std::string::npos) << e.file;
    EXPECT_EQ(e.row_first, e.row_last);
    steps.insert(e.step_id);
    // The row is the allreduce of layer 0 and the window is exactly that event.
    const Event* ev = nullptr;
    for (const Event& x : t.events)
      if (x.row == e.row_first) ev = &x;
    ASSERT_NE(ev, nullptr);
    EXPECT_EQ(r.Str(ev->name), "hcom_allReduce__358_0_1");
    EXPECT_EQ(e.window_start_ns, t.AbsNs(ev->start_ns));
    EXPECT_EQ(e.window_end_ns, t.AbsNs(ev->end_ns()));
  }
  EXPECT_EQ(steps, (std::set<int64_t>{10, 11, 12, 13, 14}));
  double votes = 0, lateness = 0;
  for (auto& [k, v] : f->numbers) {
    if (k == "votes") votes = v;
    if (k == "mean_lateness_us") lateness = v;
  }
  EXPECT_EQ(votes, 5);
  EXPECT_NEAR(lateness, 600, 30);  // the planted 600 us late launch
}

TEST(DiagnoseTest, RecurringBubbleEvidenceIsTheIdleWindowOfEachBubblingStep) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  const Finding* f = FindType(r, "recurring_bubble_pattern");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->evidence.size(), 4u);
  std::set<int64_t> steps;
  for (const Evidence& e : f->evidence) {
    EXPECT_EQ(e.rank, 2);
    steps.insert(e.step_id);
    EXPECT_NEAR(double(e.window_end_ns - e.window_start_ns) / 1e3, 1500, 20);  // the planted 1.5 ms
    EXPECT_NE(e.file.find("node0_4002_"), std::string::npos);
    EXPECT_EQ(e.row_last, e.row_first + 1);  // the rows on both sides of the gap
  }
  EXPECT_EQ(steps, (std::set<int64_t>{10, 11, 12, 13}));
}

TEST(DiagnoseTest, TopOperatorsCarryBoundFamilyAndRowRanges) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  const Finding* f = FindType(r, "top_operator");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("FusedInferAttentionScore"), std::string::npos);
  EXPECT_NE(f->summary.find("bound: cube"), std::string::npos);
  ASSERT_EQ(f->evidence.size(), 8u);
  EXPECT_GT(f->evidence[0].row_first, 1u);
  EXPECT_GE(f->evidence[0].row_last, f->evidence[0].row_first);
}

TEST(DiagnoseTest, RaisedThresholdsSilenceTheFindings) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  rules.thresholds.slow_rank_min_votes = 6;          // 5 votes no longer enough
  rules.thresholds.recurring_bubble_min_ratio = 0.9;  // 80% of steps no longer enough
  Diagnose(r, rules);
  EXPECT_EQ(FindType(r, "slow_rank"), nullptr);
  EXPECT_EQ(FindType(r, "recurring_bubble_pattern"), nullptr);
}

TEST(DiagnoseTest, TwoRankSampleReportsCommunicationDominatedSteps) {
  // TP-L1: the first allreduce waits ~79 ms of a ~137 ms step on both ranks.
  AnalysisResult r = Analyze(Sample("tp_l1_text"));
  int comm = 0;
  for (const Finding& f : r.findings)
    if (f.type == "communication_dominated_step") {
      ++comm;
      ASSERT_EQ(f.evidence.size(), 1u);
      EXPECT_EQ(f.evidence[0].step_id, 50);
      EXPECT_EQ(f.evidence[0].row_first, 2u);
      EXPECT_EQ(f.evidence[0].row_last, 192u);
    }
  EXPECT_EQ(comm, 2);
}

TEST(DiagnoseTest, TopOperatorsAreComputeOperators) {
  // TP-L1 spends most device time in allreduce; the top list still names compute kernels.
  AnalysisResult r = Analyze(Sample("tp_l1_text"));
  int n = 0;
  for (const Finding& f : r.findings) {
    if (f.type != "top_operator") continue;
    ++n;
    EXPECT_EQ(f.summary.find("hcom_"), std::string::npos) << f.summary;
    EXPECT_EQ(f.evidence.size(), 2u);  // one row range per rank
  }
  EXPECT_EQ(n, 5);
}

}  // namespace
}  // namespace optrace::analyze
