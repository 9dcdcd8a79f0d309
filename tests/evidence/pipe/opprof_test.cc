#include "evidence/pipe/opprof.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace optrace::evidence {
namespace {
using format::CoreKind;

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/opprof/" + name; }

TEST(OpprofTest, LoadsRealOpprofDirectoryInCanonicalOrder) {
  auto run = LoadOpprof({Data("minimal")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->tables.size(), 6u);
  EXPECT_EQ(run->tables[0].name, "PipeUtilization");
  EXPECT_EQ(run->tables[1].name, "ArithmeticUtilization");
  ASSERT_TRUE(run->op_info.has_value());
  EXPECT_EQ(run->op_info->Get("Op Name"), "sanitized_operator_kernel");
  EXPECT_EQ(run->op_info->Get("Current Freq"), "1800");
}

TEST(OpprofTest, TrailingCommaGivesNoEmptyMetricAndNaStaysMissing) {
  auto run = LoadOpprof({Data("minimal/PipeUtilization.csv")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  const MetricTable& t = run->tables[0];
  EXPECT_EQ(t.columns.size(), 32u);
  EXPECT_EQ(t.columns.back(), "aic_mte2_active_bw(GB/s)");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1].kind, CoreKind::kAiv);
  auto miss = t.Column("aiv_icache_miss_rate");
  ASSERT_TRUE(miss.has_value());
  EXPECT_FALSE(t.rows[0].values[*miss].has_value());  // NA on the cube row
  EXPECT_DOUBLE_EQ(*t.rows[1].values[*miss], 0.153226);
}

TEST(OpprofTest, VectorIndexUsesVectorsPerBlock) {
  auto run = LoadOpprof({Data("synthetic_a")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->vectors_per_block, 2u);
  const MetricTable& t = run->tables[0];
  EXPECT_EQ(t.rows[4].sub_block, "vector0");
  EXPECT_EQ(run->CoreIndex(t.rows[4]), 2u);  // block 1 vector0
  EXPECT_EQ(run->CoreIndex(t.rows[5]), 3u);
  EXPECT_EQ(run->CoreIndex(t.rows[3]), 1u);  // block 1 cube0
}

TEST(OpprofTest, TimestampedFileNamesMapToTheirTable) {
  EXPECT_EQ(CanonicalTableName("PipeUtilization_20250101120000"), "PipeUtilization");
  EXPECT_EQ(CanonicalTableName("MemoryL0"), "MemoryL0");
  EXPECT_EQ(CanonicalTableName("MemoryX"), "");
}

TEST(OpprofTest, MetricKindFollowsThePrefix) {
  EXPECT_EQ(MetricKind("aiv_time(us)"), CoreKind::kAiv);
  EXPECT_EQ(MetricKind("aic_icache_miss_rate"), CoreKind::kAic);
  EXPECT_EQ(MetricKind("GM_to_UB_datas(KB)"), CoreKind::kUnknown);
}

TEST(OpprofTest, NonNumericCellNamesFileLineAndColumn) {
  auto t = ParseMetricTableText("block_id,sub_block_id,aiv_time(us),\n0,vector0,1.5,\n1,vector0,fast,\n", "p.csv",
                                "PipeUtilization");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "p.csv:3: aiv_time(us) 'fast' is not a number (NA marks a missing value)");
}

TEST(OpprofTest, MissingBlockIdColumnIsRejected) {
  auto t = ParseMetricTableText("core,aiv_time(us)\n0,1\n", "p.csv", "PipeUtilization");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("p.csv:1: no block_id column"), std::string::npos);
}

TEST(OpprofTest, UnknownSubBlockIsRejected) {
  auto t = ParseMetricTableText("block_id,sub_block_id,aiv_time(us)\n0,scalar0,1\n", "p.csv", "PipeUtilization");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("p.csv:2: sub_block_id 'scalar0' is not cube<k> or vector<k>"), std::string::npos);
}

TEST(OpprofTest, EmptyAndHeaderOnlyFilesAreRejected) {
  auto empty = ParseMetricTableText("", "e.csv", "PipeUtilization");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("e.csv: empty file"), std::string::npos);
  auto header = ParseMetricTableText("block_id,sub_block_id,aiv_time(us),\n", "h.csv", "PipeUtilization");
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.status().message().find("h.csv: no data rows"), std::string::npos);
}

TEST(OpprofTest, SameTableTwiceAsksForCompare) {
  auto run = LoadOpprof({Data("synthetic_a/PipeUtilization.csv"), Data("synthetic_b/PipeUtilization.csv")});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("--compare"), std::string::npos);
}

TEST(OpprofTest, DirectoryWithoutOpprofCsvsIsRejected) {
  auto run = LoadOpprof({std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/latency"});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("no msprof op CSVs"), std::string::npos);
}

TEST(OpprofTest, RenamedExportIsRecognisedByItsColumns) {
  auto run = LoadOpprof({Data("renamed/run1_pipe.csv")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->tables.size(), 1u);
  EXPECT_EQ(run->tables[0].name, "PipeUtilization");
  EXPECT_NE(run->tables[0].path.find("run1_pipe.csv"), std::string::npos);
}

TEST(OpprofTest, TableKindFromColumnsIgnoresColumnsEveryTableHas) {
  EXPECT_EQ(TableKindFromColumns({"block_id", "sub_block_id", "aic_time(us)", "aiv_time(us)"}), "");
  EXPECT_EQ(TableKindFromColumns({"block_id", "sub_block_id", "aiv_time(us)", "aiv_vec_bankgroup_cflt_ratio"}),
            "ResourceConflictRatio");
  EXPECT_EQ(TableKindFromColumns({"block_id", "sub_block_id", "aiv_vec_ratio", "aiv_icache_miss_rate"}),
            "PipeUtilization");
  EXPECT_EQ(TableKindFromColumns({"Op Name", "Op Type", "Block Dim"}), "OpBasicInfo");
  EXPECT_EQ(TableKindFromColumns({"rank", "iteration"}), "");
}

TEST(OpprofTest, MetricCsvWithoutMetricColumnsIsRejected) {
  auto t = ParseMetricTableText("block_id,sub_block_id,\n0,vector0,\n", "p.csv", "PipeUtilization");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("p.csv:1: no metric column after block_id and sub_block_id"),
            std::string::npos)
      << t.status().message();
}

TEST(OpprofTest, RowShorterThanTheHeaderIsRejected) {
  auto t = ParseMetricTableText("block_id,sub_block_id,aiv_time(us),aiv_vec_ratio,\n0,vector0,1,0.5,\n1,vector0,2\n",
                                "p.csv", "PipeUtilization");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("p.csv:3: 3 fields but the header has 4"), std::string::npos)
      << t.status().message();
}

// Two msprof op runs of one kernel, one metric group each (PipeUtilization from the first, Memory
// from the second), both with their OpBasicInfo.csv: a replay of the same launch reads as one run.
std::filesystem::path ReplayDirs(const std::string& name, const std::string& second_block_dim,
                                 const std::string& second_freq = "1800") {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("optrace_replay_" + name);
  fs::remove_all(root);
  fs::create_directories(root / "pipe");
  fs::create_directories(root / "memory");
  fs::copy_file(Data("workload128/PipeUtilization.csv"), root / "pipe/PipeUtilization.csv");
  fs::copy_file(Data("workload128/OpBasicInfo.csv"), root / "pipe/OpBasicInfo.csv");
  fs::copy_file(Data("workload128/Memory.csv"), root / "memory/Memory.csv");
  std::ofstream(root / "memory/OpBasicInfo.csv")
      << "Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq,\n"
      << "main_kernel_mix_aic,mix,8.120000," << second_block_dim << ",2,0,NA," << second_freq << ",1800,\n";
  return root;
}

TEST(OpprofTest, MetricGroupsOfSeparateReplaysOfOneLaunchAreOneRun) {
  auto root = ReplayDirs("same", "1", "1650");
  auto run = LoadOpprof({root / "pipe", root / "memory"});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->tables.size(), 2u);
  EXPECT_EQ(run->replay.exports, 2u);
  EXPECT_EQ(run->replay.agreeing.size(), 5u);  // Op Name, Op Type, Block Dim, Mix Block Dim, Device Id
  ASSERT_EQ(run->replay.notes.size(), 1u);
  EXPECT_NE(run->replay.notes[0].find("Current Freq differs between replays"), std::string::npos);
}

TEST(OpprofTest, ExportsOfAnotherLaunchAreRefusedNamingTheField) {
  auto root = ReplayDirs("other", "4");
  auto run = LoadOpprof({root / "pipe", root / "memory"});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("Block Dim is '1' in one and '4' in the other"), std::string::npos)
      << run.status().message();
  EXPECT_NE(run.status().message().find("not replays of the same kernel launch"), std::string::npos);
}

}  // namespace
}  // namespace optrace::evidence
