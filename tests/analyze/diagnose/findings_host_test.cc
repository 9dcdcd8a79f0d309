// Issue 52.7: host costs api_statistic.csv states: run-time operator compilation and device
// synchronizations.
#include <gtest/gtest.h>

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

// One rank, one 100 ms step of device work, 20 ms of host time before it (Preparing), and the
// api_statistic.csv rows given.
void WriteRank(const TempDir& tmp, const std::string& api_rows) {
  tmp.Write("rank0_ascend_pt/profiler_info_0.json", "{}");
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
            "1,MatMul,MatMul,AI_CORE,1000.000,50000\n1,Add,Add,AI_VECTOR_CORE,51000.000,50000\n");
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
            "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
            "Communication(Not Overlapped and Exclude Receive),Preparing\n"
            "1,100000,0,0,0,0,100000,0,0,20000\n");
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/api_statistic.csv",
            "Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n" + api_rows);
}

TEST(HostApiFindingsTest, RunTimeOperatorCompilationIsAFindingWithItsShareOfTheStep) {
  TempDir tmp;
  WriteRank(tmp, "acl,aclnnAdd,58.85,3,19.6,16.2,22.2,6.3\nacl,aclopCompileAndExecute,14049.23,19,739.4,63.3,1773.7,4e5\n");
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "host_op_compile");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kMedium);  // 14.05 of 120 ms: 11.7%
  EXPECT_NE(f->summary.find("19 aclopCompileAndExecute calls take 14.05 ms"), std::string::npos) << f->summary;
  ASSERT_EQ(f->evidence.size(), 1u);
  EXPECT_EQ(f->evidence[0].row_first, 3u);
  EXPECT_EQ(FindType(r, "host_sync"), nullptr);
}

TEST(HostApiFindingsTest, ASmallCompileCostIsNoFinding) {
  TempDir tmp;
  WriteRank(tmp, "acl,aclopCompileAndExecute,1500.0,2,750,700,800,1\n");  // 1.25% of the step
  EXPECT_EQ(FindType(Analyze(tmp.path()), "host_op_compile"), nullptr);
}

TEST(HostApiFindingsTest, SeveralDeviceSynchronizationsPerStepAreNamed) {
  TempDir tmp;
  WriteRank(tmp, "acl,aclrtSynchronizeDevice,364.76,1,364.8,364.8,364.8,0\n"
                 "acl,aclrtSynchronizeStreamWithTimeout,97887.24,7,13983.9,6.3,91682.2,1e9\n");
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "host_sync");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kLow);
  EXPECT_NE(f->summary.find("8 device synchronizations"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("aclrtSynchronizeStreamWithTimeout 7"), std::string::npos) << f->summary;
  EXPECT_EQ(f->evidence.size(), 2u);
}

TEST(HostApiFindingsTest, OneSynchronizationPerStepIsTheUsualLossReadAndNoFinding) {
  TempDir tmp;
  WriteRank(tmp, "acl,aclrtSynchronizeStreamWithTimeout,900.0,1,900,900,900,0\n");
  EXPECT_EQ(FindType(Analyze(tmp.path()), "host_sync"), nullptr);
}

}  // namespace
}  // namespace optrace::analyze
