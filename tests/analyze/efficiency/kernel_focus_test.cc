#include "analyze/efficiency/kernel_focus.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::TempDir;

const char kHeader[] = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";

// Two ranks, three dispatch calls each between a matmul and a combine:
//   rank 0: MatMul [0,100) Dispatch [110,160)  Combine [160,200) | +1000 us per step
//   rank 1: MatMul [0,100) Dispatch [130,200)  Combine [200,240)   (its dispatch is 70 us: slower)
// except rank 0's third dispatch, 90 us (the slowest of that iteration).
std::string Rank(int rank) {
  std::string csv = kHeader;
  for (int k = 0; k < 3; ++k) {
    double t0 = 1000.0 + 1000.0 * k;
    double start = rank == 0 ? 110 : 130, dur = rank == 0 ? (k == 2 ? 90 : 50) : 70;
    csv += fmt::format("{},MatMul,MatMulV2,AI_CORE,{:.3f},100\n", k + 1, t0);
    csv += fmt::format("{},MoeDistributeDispatch,MoeDistributeDispatch,AI_VECTOR_CORE,{:.3f},{}\n", k + 1,
                       t0 + start, dur);
    csv += fmt::format("{},MoeDistributeCombine,MoeDistributeCombine,AI_VECTOR_CORE,{:.3f},40\n", k + 1,
                       t0 + start + dur);
  }
  return csv;
}

AnalysisResult Root(const TempDir& tmp) {
  for (int r = 0; r < 2; ++r) {
    tmp.Write(fmt::format("r{}_ascend_pt/profiler_info_{}.json", r, r), "{}");
    tmp.Write(fmt::format("r{}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", r), Rank(r));
  }
  return testing::Analyze(tmp.path());
}

TEST(KernelFocusTest, EveryCallWithItsDurationLaunchGapAndPeriod) {
  TempDir tmp;
  AnalysisResult r = Root(tmp);
  auto f = FocusKernel(r, "MoeDistributeDispatch");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->matched_by, "name");
  ASSERT_EQ(f->calls.size(), 6u);
  const KernelCall& c = f->calls[1];  // rank 0, second call
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.call, 1);
  EXPECT_DOUBLE_EQ(c.dur_us, 50);
  EXPECT_DOUBLE_EQ(c.launch_gap_us, 10);   // the matmul ended at 100, the dispatch started at 110
  EXPECT_DOUBLE_EQ(c.period_us, 1000);
  EXPECT_EQ(f->calls[0].period_us, -1);
  EXPECT_DOUBLE_EQ(f->calls[3].launch_gap_us, 30);  // rank 1's first call: 130 - 100
  EXPECT_EQ(f->calls_per_rank.at(0), 3);
}

TEST(KernelFocusTest, IterationsNameTheSlowestRank) {
  TempDir tmp;
  AnalysisResult r = Root(tmp);
  auto f = FocusKernel(r, "MoeDistributeDispatch");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->iterations.size(), 3u);
  EXPECT_EQ(f->iterations[0].slowest_rank, 1);
  EXPECT_DOUBLE_EQ(f->iterations[0].max_us, 70);
  EXPECT_DOUBLE_EQ(f->iterations[0].min_us, 50);
  EXPECT_EQ(f->iterations[2].slowest_rank, 0);  // 90 us against 70
  EXPECT_EQ(f->slowest_count.at(1), 2);
  EXPECT_EQ(f->slowest_count.at(0), 1);
}

TEST(KernelFocusTest, ATypeOrTheOneNameContainingTheQueryMatches) {
  TempDir tmp;
  AnalysisResult r = Root(tmp);
  auto by_part = FocusKernel(r, "Dispatch");
  ASSERT_TRUE(by_part.ok()) << by_part.status().message();
  EXPECT_EQ(by_part->matched_by, "name contains");
  EXPECT_EQ(by_part->calls.size(), 6u);
  auto by_type = FocusKernel(r, "MatMulV2");
  ASSERT_TRUE(by_type.ok());
  EXPECT_EQ(by_type->matched_by, "type");
  EXPECT_EQ(by_type->names, std::vector<std::string>{"MatMul"});
}

TEST(KernelFocusTest, SeveralNamesContainingTheQueryAreRefusedWithTheList) {
  TempDir tmp;
  AnalysisResult r = Root(tmp);
  auto f = FocusKernel(r, "MoeDistribute");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("2 kernel names contain it (MoeDistributeCombine, MoeDistributeDispatch)"),
            std::string::npos)
      << f.status().message();
}

TEST(KernelFocusTest, NoMatchListsTheHeaviestKernels) {
  TempDir tmp;
  AnalysisResult r = Root(tmp);
  auto f = FocusKernel(r, "Nope");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("the heaviest kernels are: MatMul, MoeDistributeDispatch"), std::string::npos)
      << f.status().message();
}

}  // namespace
}  // namespace optrace::analyze
