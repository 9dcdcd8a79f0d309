// Issue 52.2: the slow rank is measured as the wait its late arrivals cost the others, in time and
// as a share of the step; a pair late by turns is a tie (no finding), never a vote.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::Analyze;
using testing::TempDir;

const Finding* FindType(const AnalysisResult& r, const std::string& type) {
  for (const Finding& f : r.findings)
    if (f.type == type) return &f;
  return nullptr;
}

double Number(const Finding& f, const std::string& name) {
  for (auto& [k, v] : f.numbers)
    if (k == name) return v;
  return -1;
}

// Two torch_npu ranks, one step of four rounds: 18 ms of compute, then an allreduce that ends 1 ms
// after the last rank arrives (76 ms with no one late). late_us[r][i]: how much longer rank r
// computes before allreduce i; the other rank waits that much longer inside it.
void WritePair(const TempDir& tmp, const std::array<std::array<int, 4>, 2>& late_us) {
  std::string csv[2];
  for (int r = 0; r < 2; ++r) csv[r] = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
  int t = 1000;
  for (int i = 0; i < 4; ++i) {
    int arrive[2], end = 0;
    for (int r = 0; r < 2; ++r) {
      arrive[r] = t + 18000 + late_us[r][i];
      end = std::max(end, arrive[r] + 1000);
    }
    for (int r = 0; r < 2; ++r) {
      csv[r] += fmt::format("1,MatMul,MatMul,AI_CORE,{}.000,{}\n", t, arrive[r] - t);
      csv[r] += fmt::format("1,hcom_allReduce__{}_0_1,hcom_allReduce_,HCCL,{}.000,{}\n", i, arrive[r], end - arrive[r]);
    }
    t = end;
  }
  for (int r = 0; r < 2; ++r) {
    std::string dir = fmt::format("rank{}_ascend_pt/", r);
    tmp.Write(dir + fmt::format("profiler_info_{}.json", r), "{}");
    tmp.Write(dir + "ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv[r]);
  }
}

TEST(SlowRankTest, APairLateByTurnsIsATieAndNoFinding) {
  // Rank 0 late by 0.30 and 0.25 ms at allreduces 0 and 2, rank 1 by the same at 1 and 3: 2:2.
  TempDir tmp;
  WritePair(tmp, {{{300, 0, 250, 0}, {0, 300, 0, 250}}});
  AnalysisResult r = Analyze(tmp.path());
  EXPECT_EQ(FindType(r, "slow_rank"), nullptr);
  ASSERT_EQ(r.cross_rank.lateness.size(), 2u);
  EXPECT_NEAR(r.cross_rank.lateness[0].caused_wait_ms, 0.55, 1e-6);
  EXPECT_NEAR(r.cross_rank.lateness[1].caused_wait_ms, 0.55, 1e-6);
}

TEST(SlowRankTest, AnUnevenTieBelowTheFloorInMsIsNoFinding) {
  // Rank 1 is late more often (3 of 4) but costs 0.9 ms in all, rank 0 0.1 ms: net 0.8 ms < 1 ms.
  TempDir tmp;
  WritePair(tmp, {{{100, 0, 0, 0}, {0, 300, 300, 300}}});
  AnalysisResult r = Analyze(tmp.path());
  EXPECT_EQ(FindType(r, "slow_rank"), nullptr);
}

TEST(SlowRankTest, TheRankWhoseLatenessCostsTheStepIsNamedWithItsCost) {
  // Rank 1 late at 3 of 4 allreduces; at allreduce 1 rank 0 waits 15.7 ms for it (17% of the
  // 92.6 ms step). Rank 0 is late once, by 0.4 ms.
  TempDir tmp;
  WritePair(tmp, {{{0, 0, 0, 400}, {200, 15700, 300, 0}}});
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "slow_rank");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 1);
  EXPECT_EQ(f->severity, Severity::kHigh);
  EXPECT_NEAR(Number(*f, "caused_wait_ms"), 16.2, 1e-6);
  EXPECT_NEAR(Number(*f, "net_wait_ms"), 15.8, 1e-6);
  EXPECT_EQ(Number(*f, "late_collectives"), 3);
  EXPECT_NEAR(Number(*f, "worst_step_share"), 16.2 / 92.6, 0.001);
  EXPECT_NE(f->summary.find("rank 0 waited 15.70 ms"), std::string::npos) << f->summary;
  ASSERT_GE(f->evidence.size(), 2u);
  EXPECT_EQ(f->evidence[0].rank, 1);  // its row of the costliest allreduce
  EXPECT_EQ(f->evidence[1].rank, 0);  // the waiting rank's row of it
  EXPECT_NE(f->evidence[1].note.find("waiting for rank 1"), std::string::npos) << f->evidence[1].note;
}

TEST(SlowRankTest, ModerateCostIsMediumAndSmallCostLow) {
  {
    TempDir tmp;  // 4.8 ms of 80.8: 5.9%
    WritePair(tmp, {{{0, 0, 0, 0}, {1200, 1200, 1200, 1200}}});
    AnalysisResult r = Analyze(tmp.path());
    const Finding* f = FindType(r, "slow_rank");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, Severity::kMedium);
  }
  {
    TempDir tmp;  // 1.2 ms of 77.2: 1.6%
    WritePair(tmp, {{{0, 0, 0, 0}, {300, 300, 300, 300}}});
    AnalysisResult r = Analyze(tmp.path());
    const Finding* f = FindType(r, "slow_rank");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, Severity::kLow);
  }
}

TEST(SlowRankTest, ANamedRankOnLowConfidenceDataIsLowNotHigh) {
  // The same 15.7 ms wait, but rank 0's step_trace_time.csv says it computed far more than its
  // kernel rows hold: kernel_rows_incomplete, and the finding does not outrank that.
  TempDir tmp;
  WritePair(tmp, {{{0, 0, 0, 400}, {200, 15700, 300, 0}}});
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
            "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
            "Communication(Not Overlapped and Exclude Receive),Preparing\n"
            "1,300000,20000,0,20000,0,320000,0,20000,0\n");
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "slow_rank");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 1);
  EXPECT_EQ(f->severity, Severity::kLow);
  EXPECT_NE(f->summary.find("Low confidence: rank(s) 0"), std::string::npos) << f->summary;
  EXPECT_EQ(f->confidence, "low");
  // Every finding on that data is capped at low, whatever its own rule said.
  for (const Finding& g : r.findings) {
    if (g.confidence == "low") EXPECT_LE(g.severity, Severity::kLow) << g.type;
    if (g.rank == 0) EXPECT_EQ(g.confidence, "low") << g.type;
  }
}

TEST(SlowRankTest, AFindingCarriesItsConfidenceAndWhereToReadWhatToTry) {
  TempDir tmp;
  WritePair(tmp, {{{0, 0, 0, 400}, {200, 15700, 300, 0}}});
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "slow_rank");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->confidence, "high");
  ASSERT_EQ(f->knowledge_refs.size(), 1u);
  EXPECT_EQ(f->knowledge_refs[0].first, "skills/optrace-profiling-analysis/references/findings.md#across-ranks");
  EXPECT_NE(f->knowledge_refs[0].second.find("before the collectives it is late for"), std::string::npos);
  for (const Finding& g : r.findings) EXPECT_FALSE(g.knowledge_refs.empty()) << g.type;  // every type has one
}

}  // namespace
}  // namespace optrace::analyze
