#include "analyze/read/discover.h"

#include <gtest/gtest.h>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::Sample;
using testing::TempDir;
namespace fs = std::filesystem;

TEST(DiscoverTest, FindsTextExportRanksWithIdsFromProfilerInfo) {
  std::vector<DataIssue> issues;
  auto d = Discover({Sample("tp_l1_text")}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->ranks.size(), 2u);
  EXPECT_EQ(d->ranks[0].rank, 0);
  EXPECT_EQ(d->ranks[0].rank_source, "profiler_info_0.json");
  EXPECT_EQ(d->ranks[1].rank, 1);
  EXPECT_EQ(d->ranks[1].kind, InputKind::kTorchText);
  EXPECT_EQ(d->ranks[1].kernel_details.filename(), "kernel_details.csv");
  EXPECT_EQ(d->ranks[1].communication.filename(), "communication.json");
  EXPECT_TRUE(issues.empty());
}

TEST(DiscoverTest, FindsDbExportAndMsprofOutput) {
  std::vector<DataIssue> issues;
  auto db = Discover({Sample("tp_l1_db")}, issues);
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_EQ(db->ranks.size(), 2u);
  EXPECT_EQ(db->ranks[1].kind, InputKind::kTorchDb);
  EXPECT_EQ(db->ranks[1].db.filename(), "ascend_pytorch_profiler_1.db");
  auto ms = Discover({Sample("msprof_minimal")}, issues);
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  ASSERT_EQ(ms->ranks.size(), 1u);
  EXPECT_EQ(ms->ranks[0].kind, InputKind::kMsprof);
  EXPECT_EQ(ms->ranks[0].rank, 0);
  EXPECT_EQ(ms->ranks[0].rank_source, "order");
}

TEST(DiscoverTest, RankWithoutKernelDataJoinsWithItsSummaries) {
  std::vector<DataIssue> issues;
  auto d = Discover({Sample("st_l2")}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->ranks.size(), 2u);
  EXPECT_FALSE(d->ranks[1].has_kernel_data());
  EXPECT_TRUE(d->ranks[1].has_partial_data());
  EXPECT_TRUE(d->ranks_without_kernels.empty());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].name, "rank_without_kernel_data");
  EXPECT_NE(issues[0].description.find("rank_1_ascend_pt (rank 1)"), std::string::npos);
  EXPECT_NE(issues[0].description.find("read instead: step_trace_time.csv, communication.json"), std::string::npos)
      << issues[0].description;
}

TEST(DiscoverTest, RankDirectoryItselfIsARoot) {
  std::vector<DataIssue> issues;
  auto d = Discover({Sample("tp_l1_text") / "rank1_ascend_pt"}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->ranks.size(), 1u);
  EXPECT_EQ(d->ranks[0].rank, 1);
}

TEST(DiscoverTest, EmptyDirectoryIsAnError) {
  TempDir tmp;
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kBadInput);
  EXPECT_NE(d.status().message().find("empty directory"), std::string::npos) << d.status().message();
  EXPECT_NE(d.status().message().find(tmp.path().string()), std::string::npos);
}

TEST(DiscoverTest, RootWithoutKernelDataListsWhatWasFound) {
  TempDir tmp;
  tmp.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", "Step,Computing\n1,2\n");
  tmp.Write("r_ascend_pt/profiler_info_3.json", "{}");
  tmp.Write("notes.txt", "x");
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  const std::string& m = d.status().message();
  EXPECT_NE(m.find("no kernel data found"), std::string::npos) << m;
  EXPECT_NE(m.find("step_trace_time.csv"), std::string::npos) << m;
  EXPECT_NE(m.find("notes.txt"), std::string::npos) << m;
}

TEST(DiscoverTest, APROFRootWithoutOpSummaryListsItsFiles) {
  TempDir tmp;
  tmp.Write("PROF_1/mindstudio_profiler_output/task_time_001.csv", "Device_id,task_time\n0,1\n");
  std::vector<DataIssue> issues;
  for (const fs::path& root : {tmp.path(), tmp.path() / "PROF_1"}) {
    auto d = Discover({root}, issues);
    ASSERT_FALSE(d.ok());
    const std::string& m = d.status().message();
    EXPECT_NE(m.find("mindstudio_profiler_output/task_time_001.csv"), std::string::npos) << m;
    EXPECT_EQ(m.find("(no files)"), std::string::npos) << m;
    EXPECT_EQ(m.find("task_time_001.csv"), m.rfind("task_time_001.csv")) << "listed once: " << m;
  }
}

TEST(DiscoverTest, ABareOpSummaryIsToldTheMsprofLayout) {
  TempDir tmp;
  tmp.Write("op_summary_20260605161737.csv", "Op Name,OP Type\n");
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("PROF_<id>/mindstudio_profiler_output/op_summary_20260605161737.csv"),
            std::string::npos)
      << d.status().message();
}

TEST(DiscoverTest, AnMsprofOpProfileIsNamedForWhatItIs) {
  TempDir tmp;
  tmp.Write("OPPROF_001/L2Cache.csv", "block_id,hit\n");
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("`msprof op` profiles of single kernels"), std::string::npos)
      << d.status().message();
}

TEST(DiscoverTest, AnIgnoredPROFFolderIsSaidToBeIgnored) {
  TempDir tmp;
  fs::copy(Sample("msprof_minimal"), tmp.path() / "used", fs::copy_options::recursive);
  tmp.Write("PROF_2/mindstudio_profiler_output/task_time_002.csv", "Device_id,task_time\n0,1\n");
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  bool said = false;
  for (const DataIssue& i : issues)
    said = said || (i.name == "prof_folder_ignored" && i.description.find("PROF_2 is ignored") != std::string::npos &&
                    i.description.find("task_time_002.csv") != std::string::npos);
  EXPECT_TRUE(said);
}

TEST(DiscoverTest, MissingRootIsNotFound) {
  std::vector<DataIssue> issues;
  auto d = Discover({"/nonexistent/optrace/root"}, issues);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
  EXPECT_NE(d.status().message().find("/nonexistent/optrace/root"), std::string::npos);
}

}  // namespace
}  // namespace optrace::analyze

namespace optrace::analyze {
namespace {

TEST(DiscoverTest, RawProfDataInsideARankDirectoryIsNotASecondRank) {
  testing::TempDir tmp;
  tmp.Write("r_ascend_pt/profiler_info_2.json", "{}");
  tmp.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "Name,Start Time(us),Duration(us)\na,1,1\n");
  tmp.Write("r_ascend_pt/PROF_000001_x/mindstudio_profiler_output/op_summary_1.csv", "Op Name\n");
  for (const auto& root : {tmp.path(), tmp.path() / "r_ascend_pt"}) {
    std::vector<DataIssue> issues;
    auto d = Discover({root}, issues);
    ASSERT_TRUE(d.ok()) << d.status().message();
    ASSERT_EQ(d->ranks.size(), 1u) << root;
    EXPECT_EQ(d->ranks[0].rank, 2);
    EXPECT_EQ(d->ranks[0].kind, InputKind::kTorchText);
  }
}

}  // namespace
}  // namespace optrace::analyze

namespace optrace::analyze {
namespace {

TEST(DiscoverTest, AnExportFolderGivenOnItsOwnIsARank) {
  std::vector<DataIssue> issues;
  // The ASCEND_PROFILER_OUTPUT folder itself: its profiler_info is in the parent.
  auto d = Discover({testing::Sample("tp_l1_text") / "rank1_ascend_pt" / "ASCEND_PROFILER_OUTPUT"}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->ranks.size(), 1u);
  EXPECT_EQ(d->ranks[0].rank, 1);
  EXPECT_EQ(d->ranks[0].kernel_details.filename(), "kernel_details.csv");
  EXPECT_EQ(d->ranks[0].communication.filename(), "communication.json");
  // A copy of kernel_details.csv alone in a folder of another name.
  testing::TempDir tmp;
  std::filesystem::copy_file(
      testing::Sample("tp_l1_text") / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv",
      tmp.path() / "kernel_details.csv");
  auto bare = Discover({tmp.path()}, issues);
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  ASSERT_EQ(bare->ranks.size(), 1u);
  EXPECT_EQ(bare->ranks[0].rank_source, "order");
}

}  // namespace
}  // namespace optrace::analyze

namespace optrace::analyze {
namespace {

TEST(DiscoverTest, EverySliceOfASlicedOpSummaryIsRead) {
  testing::TempDir tmp;
  const std::string kHead = "Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)\n";
  for (int i : {1, 2, 10})
    tmp.Write("PROF_000001_20260605161708478_AAAA/mindstudio_profiler_output/op_summary_20260605_" +
                  std::to_string(i) + ".csv",
              kHead + "A" + std::to_string(i) + ",A,AI_CORE,1780676228" + std::to_string(100 + i) + ".0,2.0\n");
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->ranks.size(), 1u);
  EXPECT_EQ(d->ranks[0].kernel_details.filename(), "op_summary_20260605_1.csv");
  ASSERT_EQ(d->ranks[0].kernel_slices.size(), 2u);
  EXPECT_EQ(d->ranks[0].kernel_slices[0].filename(), "op_summary_20260605_2.csv");
  EXPECT_EQ(d->ranks[0].kernel_slices[1].filename(), "op_summary_20260605_10.csv");
  AnalyzeOptions opt;
  opt.roots = {tmp.path()};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ranks[0].events.size(), 3u);
  // Two unsliced exports (re-exported at another time) are not slices of one another.
  testing::TempDir two;
  for (const char* stamp : {"20260605161737", "20260606090000"})
    two.Write(std::string("PROF_000001_20260605161708478_AAAA/mindstudio_profiler_output/op_summary_") + stamp + ".csv",
              kHead + "A,A,AI_CORE,1780676228100.0,2.0\n");
  auto d2 = Discover({two.path()}, issues);
  ASSERT_TRUE(d2.ok()) << d2.status().message();
  EXPECT_EQ(d2->ranks[0].kernel_details.filename(), "op_summary_20260605161737.csv");
  EXPECT_TRUE(d2->ranks[0].kernel_slices.empty());
}

TEST(DiscoverTest, ARankFolderNamedRankNIsThatRankWhenNothingElseNumbersIt) {
  TempDir tmp;
  tmp.Write("rank1_ascend_pt/profiler_info.json", "{}");  // no number, no rank_id
  tmp.Write("rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,Add,Add,AI_VECTOR_CORE,1000.000,10\n");
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->ranks.size(), 1u);
  EXPECT_EQ(d->ranks[0].rank, 1);
  EXPECT_EQ(d->ranks[0].rank_source, "directory name");
}

std::string RefusalOf(const TempDir& tmp) {
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  EXPECT_FALSE(d.ok());
  return d.ok() ? "" : d.status().message();
}

TEST(DiscoverTest, AnOldMsprofTimelineLayoutIsNamedWithWhatToRun) {
  TempDir tmp;
  tmp.Write("PROF_000001_20230101/device_0/timeline/task_time_0_1_1.json", "[]");
  tmp.Write("PROF_000001_20230101/device_0/data/aicore.data.0.slice_0", "x");
  std::string m = RefusalOf(tmp);
  EXPECT_NE(m.find("PROF_000001_20230101 is an msprof capture in the old layout"), std::string::npos) << m;
  EXPECT_NE(m.find("msprof --export=on --output=PROF_000001_20230101"), std::string::npos) << m;
}

TEST(DiscoverTest, MindSporeProfilerOutputIsNamedForWhatItIs) {
  TempDir tmp;
  tmp.Write("profiler/ascend_timeline_display_0.json", "[]");
  tmp.Write("profiler/aicore_intermediate_0_detail.csv", "op_name,op_type\n");
  std::string m = RefusalOf(tmp);
  EXPECT_NE(m.find("profiler is MindSpore profiler output from before MindSpore 2.3"), std::string::npos) << m;
}

TEST(DiscoverTest, MsprofAnalyzeClusterOutputIsSentBackToTheCapture) {
  TempDir tmp;
  tmp.Write("cluster_analysis_output/cluster_step_trace_time.csv", "Step,Type,Index\n");
  tmp.Write("cluster_analysis_output/cluster_communication.json", "{}");
  std::string m = RefusalOf(tmp);
  EXPECT_NE(m.find("cluster_analysis_output is msprof-analyze's cluster output"), std::string::npos) << m;
  EXPECT_NE(m.find("analyze the folder msprof-analyze read"), std::string::npos) << m;
}

}  // namespace
}  // namespace optrace::analyze
