#include "analyze/read/capture.h"

#include <gtest/gtest.h>

#include "analyze/read/discover.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::Sample;
using testing::TempDir;
namespace fs = std::filesystem;

const fs::path kAscend = fs::path(OPTRACE_SOURCE_DIR).parent_path() / "shared" / "data" / "ascend";

std::string ProfilerInfo(int rank, const std::string& level, int64_t end_ns) {
  return fmt::format(R"({{"config": {{"common_config": {{"schedule": {{"wait": 0, "active": 1}}}},
    "experimental_config": {{"_profiler_level": "{}", "_aic_metrics": "ACL_AICORE_NONE", "_export_type": "text"}}}},
    "end_info": {{"collectionTimeEnd": {}}}, "rank_id": {}}})",
                     level, end_ns, rank);
}

// A text-export rank directory with one kernel row.
void WriteRank(const TempDir& tmp, const std::string& dir, int rank, const std::string& level, int64_t end_ns) {
  tmp.Write(dir + "/profiler_info_" + std::to_string(rank) + ".json", ProfilerInfo(rank, level, end_ns));
  tmp.Write(dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us)\n"
            "1,MatMul,MatMul,AI_CORE,1736405444000000.000\t,10.0,0\n");
}

constexpr int64_t kT0 = 1736405444130566220;  // a real collectionTimeEnd
constexpr int64_t kSecond = 1000000000;

TEST(CaptureTest, RanksEndingSecondsApartAreOneCapture) {
  TempDir tmp;
  WriteRank(tmp, "job/r0_ascend_pt", 0, "Level1", kT0);
  WriteRank(tmp, "job/r1_ascend_pt", 1, "Level1", kT0 + 4 * kSecond);
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->ranks.size(), 2u);
  EXPECT_EQ(d->capture_count, 1);
}

TEST(CaptureTest, TwoRunsOfOneJobHoursApartAreRefusedWithBoth) {
  TempDir tmp;
  WriteRank(tmp, "monday/r0_ascend_pt", 0, "Level1", kT0);
  WriteRank(tmp, "monday/r1_ascend_pt", 1, "Level1", kT0 + 2 * kSecond);
  WriteRank(tmp, "tuesday/r0_ascend_pt", 0, "Level1", kT0 + 86400 * kSecond);
  WriteRank(tmp, "tuesday/r1_ascend_pt", 1, "Level1", kT0 + 86401 * kSecond);
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kBadInput);
  const std::string& m = d.status().message();
  EXPECT_NE(m.find("holds 2 separate captures"), std::string::npos) << m;
  EXPECT_NE(m.find("--run 1: monday: 2 rank dir(s) (rank 0,1)"), std::string::npos) << m;
  EXPECT_NE(m.find("--run 2: tuesday: 2 rank dir(s) (rank 0,1)"), std::string::npos) << m;
  EXPECT_NE(m.find("optrace sweep"), std::string::npos) << m;
}

TEST(CaptureTest, RunPicksOneCaptureAndSaysSo) {
  TempDir tmp;
  WriteRank(tmp, "monday/r0_ascend_pt", 0, "Level1", kT0);
  WriteRank(tmp, "tuesday/r0_ascend_pt", 0, "Level1", kT0 + 86400 * kSecond);
  WriteRank(tmp, "tuesday/r1_ascend_pt", 1, "Level1", kT0 + 86400 * kSecond);
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues, 2);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->ranks.size(), 2u);
  EXPECT_NE(d->ranks[0].dir.string().find("tuesday"), std::string::npos);
  EXPECT_EQ(d->run, 2);
  EXPECT_EQ(d->capture_count, 2);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].name, "capture_selected");
  auto past = Discover({tmp.path()}, issues, 3);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), StatusCode::kUsage);
}

TEST(CaptureTest, TwoConcurrentJobsWithTheSameRankIdsAreSplitByFolder) {
  TempDir tmp;
  WriteRank(tmp, "job_a/r0_ascend_pt", 0, "Level1", kT0);
  WriteRank(tmp, "job_a/r1_ascend_pt", 1, "Level1", kT0 + kSecond);
  WriteRank(tmp, "job_b/r0_ascend_pt", 0, "Level1", kT0 + 2 * kSecond);
  WriteRank(tmp, "job_b/r1_ascend_pt", 1, "Level1", kT0 + 3 * kSecond);
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("--run 1: job_a: 2 rank dir(s) (rank 0,1)"), std::string::npos)
      << d.status().message();
  EXPECT_NE(d.status().message().find("--run 2: job_b"), std::string::npos);
}

TEST(CaptureTest, DifferentProfilerLevelsAreDifferentCaptures) {
  TempDir tmp;
  WriteRank(tmp, "a/r0_ascend_pt", 0, "Level0", kT0);
  WriteRank(tmp, "b/r1_ascend_pt", 1, "Level2", kT0);
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("Level0"), std::string::npos) << d.status().message();
}

TEST(CaptureTest, DirectoryNameTimestampSeparatesCapturesWithoutProfilerInfo) {
  TempDir tmp;
  const std::string kRow = "Name,Type,Task Start Time(us),Task Duration(us)\nA,A,1.0,2.0\n";
  tmp.Write("PROF_000001_20260605161708478_AAAA/mindstudio_profiler_output/op_summary_1.csv", kRow);
  tmp.Write("PROF_000001_20260607101010000_BBBB/mindstudio_profiler_output/op_summary_1.csv", kRow);
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("started 2026-06-05 16:17:08"), std::string::npos) << d.status().message();
}

TEST(CaptureTest, SampleRootsAreOneCaptureEach) {
  for (const char* root : {"tp_l1_text", "tp_l1_db", "tp_l0_text", "st_l2", "msprof_minimal", "synthetic_8rank"}) {
    std::vector<DataIssue> issues;
    auto d = Discover({Sample(root)}, issues);
    ASSERT_TRUE(d.ok()) << root << ": " << d.status().message();
    EXPECT_EQ(d->capture_count, 1) << root;
  }
}

// Real exports of four different runs side by side (msinsight test data: text and db exports at
// Level0 and Level1): four captures, never one 2-rank run.
TEST(CaptureTest, RealFolderOfFourExportsIsFourCaptures) {
  fs::path root = kAscend / "msinsight/test/data/pytorch";
  if (!fs::exists(root)) GTEST_SKIP() << "no ../shared";
  std::vector<DataIssue> issues;
  auto d = Discover({root}, issues);
  ASSERT_FALSE(d.ok());
  const std::string& m = d.status().message();
  EXPECT_NE(m.find("holds 4 separate captures"), std::string::npos) << m;
  EXPECT_NE(m.find("text/level1: 2 rank dir(s) (rank 0,1), torch_npu Level1 ACL_AICORE_PIPE_UTILIZATION text"),
            std::string::npos)
      << m;
  for (int run = 1; run <= 4; ++run) {
    std::vector<DataIssue> picked;
    auto one = Discover({root}, picked, run);
    ASSERT_TRUE(one.ok()) << one.status().message();
    EXPECT_FALSE(one->ranks.empty());
  }
}

// An msprof PROF_* export of one kernel run: `calls` tasks of 40 ms from `start_us` on device 0.
void WriteMsprofRun(const TempDir& tmp, const std::string& dir, double start_us, int calls) {
  std::string csv =
      "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
      "Task Duration(us),Task Wait Time(us),Block Dim,Input Shapes\n";
  for (int i = 0; i < calls; ++i)
    csv += fmt::format("0,4294967295,{},1716,add_kernel,add_kernel,dynamic,AI_VECTOR_CORE,{:.3f}\t,40000.000,0,48,"
                       "\"8,1024\"\n",
                       i, start_us + i * 42000.0);
  tmp.Write(dir + "/mindstudio_profiler_output/op_summary_20260605161708.csv", csv);
}

TEST(CaptureTest, MsprofRunsOneAfterAnotherAreSeparateCapturesNotRanks) {
  // Three runs of one kernel, seconds apart (within the collection-time tolerance), no rank id.
  TempDir tmp;
  WriteMsprofRun(tmp, "PROF_000001_a", 1.0e12, 5);
  WriteMsprofRun(tmp, "PROF_000002_b", 1.0e12 + 3.0e6, 5);
  WriteMsprofRun(tmp, "PROF_000003_c", 1.0e12 + 6.0e6, 5);
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  const std::string& m = d.status().message();
  EXPECT_NE(m.find("holds 3 separate captures"), std::string::npos) << m;
  EXPECT_NE(m.find("--run 2: PROF_000002_b: 1 rank dir(s)"), std::string::npos) << m;
  EXPECT_NE(m.find("device time 0.208 s"), std::string::npos) << m;
  auto two = Discover({tmp.path()}, issues, 2);
  ASSERT_TRUE(two.ok()) << two.status().message();
  ASSERT_EQ(two->ranks.size(), 1u);
  EXPECT_NE(two->ranks[0].dir.string().find("PROF_000002_b"), std::string::npos);
}

TEST(CaptureTest, MsprofExportsRecordedAtTheSameTimeStayOneCapture) {
  // Two processes of one job, each with its own export, overlapping in device time.
  TempDir tmp;
  WriteMsprofRun(tmp, "PROF_000001_a", 1.0e12, 5);
  WriteMsprofRun(tmp, "PROF_000002_b", 1.0e12 + 10000.0, 5);
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->ranks.size(), 2u);
  EXPECT_EQ(d->capture_count, 1);
}

}  // namespace
}  // namespace optrace::analyze
