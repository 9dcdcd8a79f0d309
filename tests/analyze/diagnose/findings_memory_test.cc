// memory_near_device_limit: the memory peaks of the summarize stage against the device's HBM.
#include <gtest/gtest.h>

#include <fstream>

#include "analyze/analyze_test_util.h"
#include "analyze/diagnose/diagnose.h"
#include "analyze/memory_fixture.h"
#include "analyze/report/analyze_run.h"

namespace optrace::analyze {
namespace {
using testing::TempDir;
using testing::WriteRank;

TEST(MemoryLimitFindingTest, APeakNearTheDeviceLimitIsAFinding) {
  TempDir tmp;
  WriteRank(tmp, true);
  AnalysisResult r = testing::Analyze(tmp.path());
  const size_t before = r.findings.size();
  HardwarePeaks hw;
  hw.name = "SmallPart";
  hw.hbm_gb = 2.6;  // 2662.4 MB: APP's 2500 MB peak is 93.9% of it
  AddMemoryLimitFinding(r, r.summaries.memory, hw, testing::BuiltinRules().thresholds);
  ASSERT_EQ(r.findings.size(), before + 1);
  const Finding& f = r.findings.front();  // high severity: first
  EXPECT_EQ(f.type, "memory_near_device_limit");
  EXPECT_EQ(f.id, "F001");
  EXPECT_EQ(f.rank, 0);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].row_first, 5u);  // APP's 2500 MB row of memory_record.csv
  EXPECT_NE(f.summary.find("the device's 2.6 GB (SmallPart)"), std::string::npos) << f.summary;
  EXPECT_NE(f.evidence[0].note.find("93.9%"), std::string::npos) << f.evidence[0].note;
}

TEST(MemoryLimitFindingTest, NoDeviceOrRoomToSpareIsNoFinding) {
  TempDir tmp;
  WriteRank(tmp, true);
  AnalysisResult r = testing::Analyze(tmp.path());
  const size_t before = r.findings.size();
  const Thresholds th = testing::BuiltinRules().thresholds;
  AddMemoryLimitFinding(r, r.summaries.memory, std::nullopt, th);
  HardwarePeaks big;
  big.name = "Ascend910B3";
  big.hbm_gb = 64;
  AddMemoryLimitFinding(r, r.summaries.memory, big, th);
  HardwarePeaks unknown;
  unknown.name = "NoHbmKnown";  // hbm_gb NaN: the table does not know it
  AddMemoryLimitFinding(r, r.summaries.memory, unknown, th);
  EXPECT_EQ(r.findings.size(), before);
}

TEST(MemoryLimitFindingTest, TheReportNamesAPeakNearTheLimitOfTheChosenDevice) {
  TempDir tmp;
  WriteRank(tmp, false);
  tmp.Write("r0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv",
            "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n"
            "APP,1000.000\t,,31000.0,,,NPU:0\n");
  report::AnalyzeRunOptions opt;
  opt.analyze.roots = {tmp.path()};
  opt.analyze.out_dir = tmp.path() / "out";
  opt.analyze.to = Stage::kReport;
  opt.hardware_model = "Ascend910B4";  // 32 GB in the bundled table: 31000 MB is 94.6% of it
  auto run = report::RunAnalyzeAndReport(opt);
  ASSERT_TRUE(run.ok()) << run.status().message();
  std::ifstream in(tmp.path() / "out" / "report.md");
  std::string md((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(md.find("memory_near_device_limit"), std::string::npos);
  EXPECT_NE(md.find("of the device's 32 GB (Ascend910B4)"), std::string::npos);
}

}  // namespace
}  // namespace optrace::analyze
