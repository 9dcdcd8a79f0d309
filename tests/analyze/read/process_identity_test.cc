// Seed 003: hostname and PID per rank, from the files that state them (process_identity.h).
#include "analyze/read/process_identity.h"

#include <gtest/gtest.h>

#include <fstream>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {
namespace fs = std::filesystem;
using testing::TempDir;

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(AscendPtFolderName, TheDefaultWorkerNameGivesHostAndPid) {
  auto w = ParseAscendPtFolderName("node-a_12345_20250101123456789_ascend_pt");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->hostname, "node-a");
  EXPECT_EQ(w->pid, 12345);
}

TEST(AscendPtFolderName, AHostNameWithUnderscoresAndOlderStampsParse) {
  auto seconds = ParseAscendPtFolderName("my_host_7_20250101123456_ascend_pt");
  ASSERT_TRUE(seconds);
  EXPECT_EQ(seconds->hostname, "my_host");
  EXPECT_EQ(seconds->pid, 7);
  auto dotted = ParseAscendPtFolderName("h_8_20250101123456.789_ascend_pt");
  ASSERT_TRUE(dotted);
  EXPECT_EQ(dotted->pid, 8);
}

TEST(AscendPtFolderName, RenamedFoldersSayNothing) {
  EXPECT_FALSE(ParseAscendPtFolderName("rank0_ascend_pt"));
  EXPECT_FALSE(ParseAscendPtFolderName("rank_0_ascend_pt"));
  EXPECT_FALSE(ParseAscendPtFolderName("h_0_20250101123456789_ascend_pt"));  // pid 0 is no process
  EXPECT_FALSE(ParseAscendPtFolderName("_5_20250101123456789_ascend_pt"));   // no host part
  EXPECT_FALSE(ParseAscendPtFolderName("h_5_2025010112345_ascend_pt"));      // 13-digit stamp
  EXPECT_FALSE(ParseAscendPtFolderName("PROF_000001_20250101123456789_ABC"));
}

TEST(ProcessIdentity, MsprofInfoJsonIsStatedAndOutranksTheFolderName) {
  TempDir tmp;
  fs::path rank = tmp.path() / "folder-host_1_20250101123456789_ascend_pt";
  Write(rank / "PROF_000001_20250101_ABC/host/info.json", R"({"hostname": "node7", "pid": 4242, "rank_id": 3})");
  ProcessIdentity id;
  ReadProcessIdentity(rank, {}, id);
  EXPECT_EQ(id.hostname, "node7");
  EXPECT_EQ(id.pid, 4242);
  EXPECT_EQ(id.pid_from, rank.filename().string() + "/PROF_000001_20250101_ABC/host/info.json");
  EXPECT_FALSE(id.inferred);
  EXPECT_EQ(id.conflict, "");
}

TEST(ProcessIdentity, TheFolderNameFillsOnlyWhatNoFileStatesAndIsMarkedInferred) {
  TempDir tmp;
  fs::path rank = tmp.path() / "node-b_31337_20250101123456789_ascend_pt";
  fs::create_directories(rank);
  ProcessIdentity id;
  ReadProcessIdentity(rank, {}, id);
  EXPECT_EQ(id.hostname, "node-b");
  EXPECT_EQ(id.pid, 31337);
  EXPECT_TRUE(id.inferred);
  EXPECT_NE(id.pid_from.find("folder name"), std::string::npos);
}

TEST(ProcessIdentity, TraceViewsPythonProcessGivesThePidWhateverTheKeyOrder) {
  TempDir tmp;
  fs::path rank = tmp.path() / "rank0_ascend_pt";
  fs::path tv = rank / "ASCEND_PROFILER_OUTPUT/trace_view.json";
  Write(tv, R"([{"args": {"name": "Ascend Hardware"}, "name": "process_name", "pid": 3089232288, "tid": 0, "ph": "M"},
{"args": {"name": "Python"}, "ph": "M", "name": "process_name", "pid": 3016828, "tid": 0},
{"ph": "X", "name": "aten::mm", "pid": 3016828, "tid": 1, "ts": "1.0", "dur": 2.0}])");
  ProcessIdentity id;
  ReadProcessIdentity(rank, tv, id);
  EXPECT_EQ(id.pid, 3016828);
  EXPECT_EQ(id.hostname, "");
  EXPECT_FALSE(id.inferred);
}

TEST(ProcessIdentity, StatedValuesThatDisagreeAreAConflictNamingBoth) {
  TempDir tmp;
  fs::path rank = tmp.path() / "rank0_ascend_pt";
  Write(rank / "PROF_1/host/info.json", R"({"hostname": "n1", "pid": "10"})");
  fs::path tv = rank / "ASCEND_PROFILER_OUTPUT/trace_view.json";
  Write(tv, R"([{"ph": "M", "name": "process_name", "pid": 11, "tid": 0, "args": {"name": "Python"}}])");
  ProcessIdentity id;
  ReadProcessIdentity(rank, tv, id);
  EXPECT_EQ(id.pid, 10);  // the first read is kept
  EXPECT_NE(id.conflict.find("pid 11"), std::string::npos) << id.conflict;
  EXPECT_NE(id.conflict.find("against 10"), std::string::npos) << id.conflict;
}

TEST(ProcessIdentity, ANodesDevicesAreEachTheirOwnProcess) {
  TempDir tmp;
  fs::path prof = tmp.path() / "PROF_000001_X";
  Write(prof / "device_0/info.json.0", R"({"hostname": "n2", "pid": 100})");
  Write(prof / "device_1/info.json.1", R"({"hostname": "n2", "pid": 101})");
  ProcessIdentity node;
  ReadProcessIdentity(prof, {}, node);
  EXPECT_EQ(node.pid, -1);  // two devices and no host file: no one pid speaks for the node
  EXPECT_EQ(node.conflict, "");
  ProcessIdentity one;
  ReadProcessIdentity(prof, {}, one, 1);
  EXPECT_EQ(one.pid, 101);
  EXPECT_EQ(one.hostname, "n2");
}

TEST(ProcessIdentity, MalformedFilesAreBlanksNotErrors) {
  TempDir tmp;
  fs::path rank = tmp.path() / "rank0_ascend_pt";
  Write(rank / "PROF_1/host/info.json", R"({"hostname": 5, "pid": -3)");
  fs::path tv = rank / "trace_view.json";
  Write(tv, R"([{"ph": "M", "name": "process_name", "pid": "x", "args": {"name": "Python"}}, {"process_name")");
  ProcessIdentity id;
  ReadProcessIdentity(rank, tv, id);
  EXPECT_EQ(id.hostname, "");
  EXPECT_EQ(id.pid, -1);
}

}  // namespace
}  // namespace optrace::analyze
