// Issue 11: db exports with NULL or backwards task times, or an emptied TASK table, exited 0
// with operators of 1.7e15 us or 0 us and "Data Issues: None".
#include <sqlite3.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "analyze/pipeline/pipeline.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {
namespace fs = std::filesystem;

// A copy of tests/data/analyze/tp_l0_db with `sql` run on its db.
fs::path DbRootWith(const std::string& tag, const std::string& sql) {
  fs::path root = fs::path(::testing::TempDir()) / ("optrace_db_" + tag);
  fs::remove_all(root);
  fs::copy(std::string(OPTRACE_TEST_DATA_DIR) + "/analyze/tp_l0_db", root, fs::copy_options::recursive);
  fs::path db = root / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db";
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
  return root;
}

const DataIssue* Issue(const AnalysisResult& r, const std::string& name) {
  for (const DataIssue& i : r.issues)
    if (i.name == name) return &i;
  return nullptr;
}

AnalysisResult Normalized(const fs::path& root) {
  AnalyzeOptions o;
  o.roots = {root};
  o.persist_stages = false;
  o.to = Stage::kNormalize;
  auto r = RunAnalysis(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(*r) : AnalysisResult{};
}

TEST(NormalizeDbRobust, NullStartTimeIsADataIssueNotAHugeOperator) {
  AnalysisResult r = Normalized(DbRootWith("null", "UPDATE TASK SET startNs = NULL WHERE globalTaskId = (SELECT MIN(globalTaskId) FROM COMPUTE_TASK_INFO)"));
  ASSERT_NE(Issue(r, "db_task_time_missing"), nullptr);
  for (const RankTable& rank : r.ranks)
    for (const Event& e : rank.events) EXPECT_LT(e.dur_ns, int64_t{3600} * 1000000000);
}

TEST(NormalizeDbRobust, EndBeforeStartIsADataIssue) {
  AnalysisResult r = Normalized(DbRootWith("back", "UPDATE TASK SET endNs = startNs - 5 WHERE globalTaskId = (SELECT MIN(globalTaskId) FROM COMPUTE_TASK_INFO)"));
  ASSERT_NE(Issue(r, "db_task_time_backwards"), nullptr);
}

// Issue 29.11: INT64_MAX or 9.9e300 gave a 237-year step, exit 0, no data issue.
TEST(NormalizeDbRobust, EndAtInt64MaxIsAnImpossibleTimeNotA237YearStep) {
  AnalysisResult r = Normalized(DbRootWith("max", "UPDATE TASK SET endNs = 9223372036854775807 WHERE globalTaskId = (SELECT MIN(globalTaskId) FROM COMPUTE_TASK_INFO)"));
  const DataIssue* i = Issue(r, "db_task_time_impossible");
  ASSERT_NE(i, nullptr);
  EXPECT_NE(i->example.find("endNs 9223372036854775807"), std::string::npos) << i->example;
  for (const RankTable& rank : r.ranks)
    for (const Event& e : rank.events) EXPECT_LT(e.dur_ns, int64_t{3600} * 1000000000);
}

TEST(NormalizeDbRobust, HugeRealTimeIsAnImpossibleTime) {
  AnalysisResult r = Normalized(DbRootWith("real", "UPDATE TASK SET endNs = 9.9e300 WHERE globalTaskId = (SELECT MIN(globalTaskId) FROM COMPUTE_TASK_INFO)"));
  ASSERT_NE(Issue(r, "db_task_time_impossible"), nullptr);
  for (const RankTable& rank : r.ranks)
    for (const Event& e : rank.events) EXPECT_LT(e.dur_ns, int64_t{3600} * 1000000000);
}

TEST(NormalizeDbRobust, IntegralRealTimeIsRead) {
  // A time stored as REAL but integral and in range is still a time (some writers use REAL).
  AnalysisResult before = Normalized(DbRootWith("int", "SELECT 1"));
  AnalysisResult r = Normalized(DbRootWith("intreal", "UPDATE TASK SET startNs = CAST(startNs AS REAL), endNs = CAST(endNs AS REAL)"));
  EXPECT_EQ(Issue(r, "db_task_time_impossible"), nullptr);
  ASSERT_EQ(r.ranks.size(), before.ranks.size());
  EXPECT_EQ(r.ranks[0].events.size(), before.ranks[0].events.size());
}

TEST(NormalizeDbRobust, EmptiedTaskTableIsNamedWithTheCounts) {
  AnalysisResult r = Normalized(DbRootWith("empty", "DELETE FROM TASK"));
  const DataIssue* i = Issue(r, "db_tasks_without_times");
  ASSERT_NE(i, nullptr);
  EXPECT_NE(i->example.find("0 of "), std::string::npos) << i->example;
}

// Issue 53.7: a db whose tables are recursive views never finished (SQLite's temp file grew
// ~85 MB/s). Only tables of the db's own are read.
constexpr const char* kEndless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)";

Result<AnalysisResult> RunTo(const fs::path& root, Stage to) {
  AnalyzeOptions o;
  o.roots = {root};
  o.persist_stages = false;
  o.to = to;
  return RunAnalysis(o);
}

TEST(NormalizeDbRobust, ATaskTableThatIsAViewIsRefusedNotRead) {
  auto r = RunTo(DbRootWith("task_view", std::string("ALTER TABLE TASK RENAME TO TASK_REAL; CREATE VIEW TASK AS ") +
                                             kEndless + " SELECT t.* FROM TASK_REAL t, c"),
                 Stage::kNormalize);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("TASK is a view or a virtual table, not a table"), std::string::npos)
      << r.status().message();
}

TEST(NormalizeDbRobust, MemoryRecordAndCannApiViewsAreNotReadAndTheAnalysisEnds) {
  auto r = RunTo(DbRootWith("side_views", std::string("UPDATE TASK SET connectionId = globalTaskId % 7; "
                                                      "CREATE VIEW MEMORY_RECORD AS ") +
                                              kEndless +
                                              " SELECT x AS component, x AS timestamp, x AS totalAllocated, "
                                              "x AS totalReserved FROM c ORDER BY x DESC; "
                                              "CREATE VIEW CANN_API AS " +
                                              kEndless + " SELECT x % 7 AS connectionId, x AS startNs FROM c"),
                 Stage::kCrossRank);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->summaries.memory.empty());
}

// Issue 53.8: 20,000 TASK and COMPUTE_TASK_INFO rows sharing one globalTaskId joined into 4e8
// events: std::bad_alloc, exit 134. A repeated id is a malformed db, said at once.
TEST(NormalizeDbRobust, AGlobalTaskIdRepeatedInTaskIsAnErrorNotAProductOfRows) {
  auto r = RunTo(DbRootWith("same_id", "CREATE TABLE C2 AS SELECT * FROM COMPUTE_TASK_INFO; DROP TABLE COMPUTE_TASK_INFO; "
                                     "ALTER TABLE C2 RENAME TO COMPUTE_TASK_INFO; "
                                     "UPDATE TASK SET globalTaskId = 7; UPDATE COMPUTE_TASK_INFO SET globalTaskId = 7"),
                 Stage::kNormalize);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("globalTaskId 7 (at least) repeats in TASK"), std::string::npos)
      << r.status().message();
}

TEST(NormalizeDbRobust, ATaskBetweenTwoHostStepWindowsBelongsToTheStepBefore) {
  // The device runs behind the host: work launched in step 50 may start after step 50's host
  // window closed and before step 51's opened. It is step 50's, not an island outside every step.
  auto r = RunTo(DbRootWith("gap", "DELETE FROM STEP_TIME; "
                                   "INSERT INTO STEP_TIME SELECT 50, MIN(startNs) - 1, MIN(startNs) + 1000 FROM TASK; "
                                   "INSERT INTO STEP_TIME SELECT 51, MAX(startNs), MAX(endNs) + 1 FROM TASK;"),
                 Stage::kSegment);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankTable& t = r->ranks[0];
  int orphans = 0, in50 = 0;
  for (const Event& e : t.events) {
    orphans += e.step_id < 0;
    in50 += e.step_id == 50;
  }
  EXPECT_EQ(orphans, 0);
  EXPECT_EQ(in50, static_cast<int>(t.events.size()) - 1);  // all but the last task, which opens step 51
}

// Seed 003's mapping: the db states the host (HOST_INFO) and the process (globalTid's high 32 bits),
// and the device (RANK_DEVICE_MAP), whatever the tasks carry.
TEST(NormalizeDbRobust, HostInfoAndTheApiThreadsGlobalTidNameTheHostAndProcess) {
  AnalysisResult r = Normalized(DbRootWith(
      "host", "CREATE TABLE HOST_INFO (hostUid TEXT, hostName TEXT); INSERT INTO HOST_INFO VALUES ('1', 'node-9'); "
              "CREATE TABLE PYTORCH_API (startNs INTEGER, endNs INTEGER, globalTid INTEGER); "
              "INSERT INTO PYTORCH_API VALUES (1, 2, (3136493 << 32) | 3136600); "
              "DELETE FROM RANK_DEVICE_MAP; INSERT INTO RANK_DEVICE_MAP VALUES (0, 5);"));
  ASSERT_FALSE(r.ranks.empty());
  const ProcessIdentity& p = r.ranks[0].identity.process;
  EXPECT_EQ(p.hostname, "node-9");
  EXPECT_EQ(p.hostname_from, "ascend_pytorch_profiler_0.db HOST_INFO");
  EXPECT_EQ(p.pid, 3136493);
  EXPECT_EQ(p.pid_from, "ascend_pytorch_profiler_0.db PYTORCH_API globalTid");
  EXPECT_EQ(r.ranks[0].device_id, 5);
}

TEST(NormalizeDbRobust, ADbWithoutHostTablesLeavesTheIdentityBlank) {
  AnalysisResult r = Normalized(DbRootWith("nohost", "SELECT 1"));
  ASSERT_FALSE(r.ranks.empty());
  EXPECT_EQ(r.ranks[0].identity.process.hostname, "");
  EXPECT_EQ(r.ranks[0].identity.process.pid, -1);
}

}  // namespace
}  // namespace optrace::analyze
