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

// Issue 52.7: the SDMA copies msprof-analyze's advisor checks for 512-byte alignment, read from
// COMMUNICATION_TASK_INFO through the db's own enum and string tables.
constexpr const char* kHcclTasks =
    "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, "
    "groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, srcRank INTEGER, dstRank INTEGER, transportType INTEGER, "
    "size INTEGER, dataType INTEGER, linkType INTEGER, opId INTEGER); "
    "CREATE TABLE ENUM_HCCL_TRANSPORT_TYPE (id INTEGER PRIMARY KEY, name TEXT); "
    "INSERT INTO ENUM_HCCL_TRANSPORT_TYPE VALUES (0, 'SDMA'), (1, 'RDMA'), (2, 'LOCAL'); "
    "CREATE TABLE ENUM_HCCL_LINK_TYPE (id INTEGER PRIMARY KEY, name TEXT); "
    "INSERT INTO ENUM_HCCL_LINK_TYPE VALUES (0, 'ON_CHIP'), (1, 'HCCS'), (2, 'PCIE'); "
    "INSERT INTO STRING_IDS VALUES (990001, 'Memcpy'), (990002, 'Reduce_Inline'), (990003, 'Notify_Wait'); "
    // op 1: one unaligned HCCS Memcpy (1162496 = 2270.5 x 512, 30 us), one aligned Reduce_Inline (10 us);
    // op 2: aligned only. Not checked: an ON_CHIP copy, a copy of 512 bytes or less, RDMA, a notify.
    "INSERT INTO TASK (startNs, endNs, globalTaskId) VALUES (1000, 31000, 900001), (40000, 50000, 900002), "
    "(60000, 70000, 900003), (80000, 81000, 900004), (90000, 91000, 900005), (92000, 93000, 900006), "
    "(94000, 99000, 900007); "
    "INSERT INTO COMMUNICATION_TASK_INFO (globalTaskId, taskType, transportType, linkType, size, opId) VALUES "
    "(900001, 990001, 0, 1, 1162496, 1), (900002, 990002, 0, 1, 2097152, 1), (900003, 990001, 0, 1, 1048576, 2), "
    "(900004, 990001, 0, 0, 1000, 1), (900005, 990001, 0, 1, 300, 1), (900006, 990001, 1, 3, 1001, 2), "
    "(900007, 990003, 0, 1, 777, 2);";

TEST(NormalizeDbRobust, SdmaCopiesAreSummedPerCommunicationOperatorWithTheirUnalignedPart) {
  AnalysisResult r = Normalized(DbRootWith("sdma", kHcclTasks));
  ASSERT_FALSE(r.ranks.empty());
  const std::vector<SdmaOpAlignment>& a = r.ranks[0].sdma_alignment;
  uint32_t calls = 0, unaligned_calls = 0, tasks = 0, unaligned_tasks = 0;
  int64_t dur = 0, unaligned_dur = 0, example = 0;
  for (const SdmaOpAlignment& op : a) {
    calls += op.calls, unaligned_calls += op.unaligned_calls, tasks += op.tasks, unaligned_tasks += op.unaligned_tasks;
    dur += op.dur_ns, unaligned_dur += op.unaligned_dur_ns;
    if (op.unaligned_example_bytes) example = op.unaligned_example_bytes;
  }
  EXPECT_EQ(calls, 2u);
  EXPECT_EQ(unaligned_calls, 1u);
  EXPECT_EQ(tasks, 3u);  // the ON_CHIP, small, RDMA and notify rows are not checked
  EXPECT_EQ(unaligned_tasks, 1u);
  EXPECT_EQ(dur, 30000 + 10000 + 10000);
  EXPECT_EQ(unaligned_dur, 30000);
  EXPECT_EQ(example, 1162496);
}

TEST(NormalizeDbRobust, ADbWithoutHcclTaskTablesHasNoSdmaCopies) {
  AnalysisResult r = Normalized(DbRootWith("nosdma", "SELECT 1"));
  ASSERT_FALSE(r.ranks.empty());
  EXPECT_TRUE(r.ranks[0].sdma_alignment.empty());
}

TEST(NormalizeDbRobust, UnalignedSdmaCopiesAreAFindingWhoseSeverityIsTheirShareOfTheCopyTime) {
  AnalyzeOptions o;
  o.roots = {DbRootWith("sdma_finding", kHcclTasks)};
  o.persist_stages = false;
  auto r = RunAnalysis(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Finding* f = nullptr;
  for (const Finding& x : r->findings)
    if (x.type == "unaligned_sdma_copies") f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kMedium);  // 30 of 50 us: 60%, between 20% and 70%
  double share = -1;
  for (const auto& [name, v] : f->numbers)
    if (name == "unaligned_share") share = v;
  EXPECT_DOUBLE_EQ(share, 0.6);
  EXPECT_NE(f->summary.find("1 of 2 communication call(s)"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("e.g. 1162496 bytes"), std::string::npos) << f->summary;
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_NE(f->evidence[0].file.find("#COMMUNICATION_TASK_INFO"), std::string::npos);
}

}  // namespace
}  // namespace optrace::analyze
