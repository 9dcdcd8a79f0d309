// Issue 52.1 / 52.3: each step carries the profiler's own step (host window or Preparing + device
// wall) beside the device wall, and every number the export's step trace states is checked.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {
namespace fs = std::filesystem;
using testing::Analyze;
using testing::Sample;
using testing::TempDir;

const Step* StepOf(const AnalysisResult& r, int rank, int64_t id) {
  for (const Step& s : r.steps)
    if (s.rank == rank && s.step_id == id) return &s;
  return nullptr;
}

const DataIssue* Issue(const AnalysisResult& r, const std::string& name) {
  for (const DataIssue& i : r.issues)
    if (i.name == name) return &i;
  return nullptr;
}

fs::path CopyOf(const TempDir& dir, const std::string& sample) {
  fs::path root = dir.path() / sample;
  fs::copy(Sample(sample), root, fs::copy_options::recursive);
  return root;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ProfilerStepTest, TextExportPreparingIsTheHostPartBeforeTheDeviceWall) {
  AnalysisResult r = Analyze(Sample("tp_l1_text"));
  const Step* s = StepOf(r, 0, 50);
  ASSERT_NE(s, nullptr);
  // step_trace_time.csv: Stage 136581.0 us (the device wall), Preparing 17902.5 us.
  EXPECT_NEAR(double(s->anatomy.wall_ns), 136581000.0, 1000.0);
  EXPECT_EQ(s->host_prepare_ns, 17902500);
  EXPECT_EQ(s->profiler_step_ns, s->anatomy.wall_ns + 17902500);
  EXPECT_EQ(s->profiler_step_source, "step_trace_time.csv");
  EXPECT_EQ(s->host_tail_ns, -1);  // the csv states no host time after the last task
  EXPECT_EQ(Issue(r, "step_trace_mismatch"), nullptr);
}

TEST(ProfilerStepTest, DbStepTimeWindowIsTheProfilerStepWithHostPartsOnBothSides) {
  AnalysisResult r = Analyze(Sample("tp_l1_db"));
  const Step* s = StepOf(r, 0, 50);
  ASSERT_NE(s, nullptr);
  // STEP_TIME 50: 1736410576386409710 .. 1736410576538298460.
  EXPECT_EQ(s->profiler_step_ns, 538298460 - 386409710);
  EXPECT_EQ(s->profiler_step_source, "STEP_TIME");
  EXPECT_GT(s->host_prepare_ns, 0);
  EXPECT_GE(s->host_tail_ns, 0);
  EXPECT_EQ(s->host_prepare_ns + s->anatomy.wall_ns + s->host_tail_ns, s->profiler_step_ns);
}

TEST(ProfilerStepTest, AStepTraceNumberThatDisagreesWithTheOperatorRowsIsADataIssue) {
  TempDir dir;
  fs::path root = CopyOf(dir, "tp_l1_text");
  fs::path csv = root / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv";
  std::string text = ReadAll(csv);
  const std::string comm = "105991.87800000001";  // the Communication column of step 50
  ASSERT_NE(text.find(comm), std::string::npos);
  text.replace(text.find(comm), comm.size(), "80000");
  std::ofstream(csv, std::ios::binary | std::ios::trunc) << text;
  AnalysisResult r = Analyze(root);
  const DataIssue* i = Issue(r, "step_trace_mismatch");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->severity, "mismatch");
  EXPECT_NE(i->description.find("rank 0"), std::string::npos) << i->description;
  EXPECT_NE(i->description.find("the export's Communication 80.000 ms"), std::string::npos) << i->description;
  EXPECT_EQ(i->description.find("Stage"), std::string::npos) << i->description;  // the wall agrees
}

TEST(ProfilerStepTest, ADbExportsStepTraceTableIsReadAndChecked) {
  TempDir dir;
  fs::path root = CopyOf(dir, "tp_l1_db");
  fs::path db = root / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  // A Stage 10 ms longer than the device wall; no Free / Communication given (NULL).
  const char* sql =
      "CREATE TABLE StepTraceTime (step TEXT, computing NUMERIC, communication_not_overlapped NUMERIC, overlapped "
      "NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, bubble NUMERIC, "
      "communication_not_overlapped_and_exclude_receive NUMERIC, preparing NUMERIC);";
  ASSERT_EQ(sqlite3_exec(h, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  AnalysisResult before = Analyze(root);
  const Step* s = StepOf(before, 0, 50);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Issue(before, "step_trace_mismatch"), nullptr);  // an empty table states nothing
  double stage_us = double(s->anatomy.wall_ns) / 1e3 + 10000.0;
  std::string insert = "INSERT INTO StepTraceTime (step, stage, preparing) VALUES ('50', " + std::to_string(stage_us) +
                       ", 1000.0);";
  ASSERT_EQ(sqlite3_exec(h, insert.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  AnalysisResult r = Analyze(root);
  const DataIssue* i = Issue(r, "step_trace_mismatch");
  ASSERT_NE(i, nullptr);
  EXPECT_NE(i->description.find("the export's Stage"), std::string::npos) << i->description;
  EXPECT_EQ(i->description.find("Communication"), std::string::npos) << i->description;  // NULL: not stated
  // The STEP_TIME window stays the profiler step; Preparing from the table is not used over it.
  EXPECT_EQ(StepOf(r, 0, 50)->profiler_step_source, "STEP_TIME");
}

}  // namespace
}  // namespace optrace::analyze
