// Device memory from torch_npu's memory_record.csv / operator_memory.csv (their real columns).
#include "analyze/summarize/memory.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>

#include "analyze/report/analyze_run.h"
#include "analyze/analyze_test_util.h"
#include "analyze/memory_fixture.h"

namespace optrace::analyze {
namespace {
using testing::TempDir;
using testing::WriteRank;

TEST(MemoryTest, PeaksPerComponentAndTheAllocationsLiveAtThePeak) {
  TempDir tmp;
  WriteRank(tmp, true);
  AnalysisResult r = testing::Analyze(tmp.path());
  const std::vector<RankMemory>& m = r.summaries.memory;
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(m[0].components.size(), 2u);
  EXPECT_EQ(m[0].components[0].component, "APP");
  EXPECT_DOUBLE_EQ(m[0].components[0].peak_reserved_mb, 2500.0);
  EXPECT_EQ(m[0].components[0].peak_row, 5u);
  EXPECT_EQ(m[0].components[1].component, "PTA");
  EXPECT_DOUBLE_EQ(m[0].components[1].peak_allocated_mb, 1300.0);
  EXPECT_EQ(m[0].components[1].peak_step_id, 2);  // 2050 us lies in step 2 (2000-2100 us)
  // At PTA's peak, 2050 us: empty_strided (allocated 2010 us, never released) and add (released at
  // 2100 us); mm was released before.
  ASSERT_EQ(m[0].live_at_peak.size(), 2u);
  EXPECT_EQ(m[0].live_at_peak[0].name, "aten::empty_strided");
  EXPECT_DOUBLE_EQ(m[0].live_at_peak[0].size_mb, 400.0);
  EXPECT_EQ(m[0].live_at_peak[1].name, "aten::add");
  EXPECT_EQ(m[0].live_component, "PTA");
}

TEST(MemoryTest, ARankWithoutMemoryRecordHasNoEntry) {
  TempDir tmp;
  WriteRank(tmp, false);
  EXPECT_TRUE(SummarizeMemory(testing::Analyze(tmp.path())).empty());
}

// The db layout: MEMORY_RECORD / OP_MEMORY as torch_npu writes them (bytes, ns, STRING_IDS names),
// added to a copy of the tp_l0_db fixture.
TEST(MemoryTest, TheDbLayoutsMemoryTablesGiveTheSamePeaks) {
  namespace fs = std::filesystem;
  TempDir tmp;
  fs::copy(testing::Sample("tp_l0_db"), tmp.path(), fs::copy_options::recursive);
  fs::path db = tmp.path() / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  const char* sql =
      "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER,"
      " totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);"
      "CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER,"
      " activeReleaseTime INTEGER, duration INTEGER, activeDuration INTEGER, allocationTotalAllocated INTEGER,"
      " allocationTotalReserved INTEGER, allocationTotalActive INTEGER, releaseTotalAllocated INTEGER,"
      " releaseTotalReserved INTEGER, releaseTotalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);"
      "INSERT INTO STRING_IDS (id, value) VALUES (990001, 'PTA'), (990002, 'aten::empty_strided'), (990003, 'aten::mm');"
      "INSERT INTO MEMORY_RECORD SELECT 990001, MIN(startNs) + 1000, 1048576 * 900, 1048576 * 1400, 0, 1, 0 FROM TASK;"
      "INSERT INTO MEMORY_RECORD SELECT 990001, MIN(startNs) + 5000, 1048576 * 1300, 1048576 * 1800, 0, 1, 0 FROM TASK;"
      "INSERT INTO OP_MEMORY (name, size, allocationTime, releaseTime) SELECT 990002, 1048576 * 400, MIN(startNs) + 2000,"
      " NULL FROM TASK;"
      "INSERT INTO OP_MEMORY (name, size, allocationTime, releaseTime) SELECT 990003, 1048576 * 100, MIN(startNs) + 2000,"
      " MIN(startNs) + 3000 FROM TASK;";
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
  std::vector<RankMemory> m = SummarizeMemory(testing::Analyze(tmp.path()));
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(m[0].components.size(), 1u);
  EXPECT_EQ(m[0].components[0].component, "PTA");
  EXPECT_DOUBLE_EQ(m[0].components[0].peak_reserved_mb, 1800.0);
  EXPECT_DOUBLE_EQ(m[0].components[0].peak_allocated_mb, 1300.0);
  EXPECT_EQ(m[0].components[0].peak_row, 2u);  // the rowid
  EXPECT_EQ(m[0].memory_record, db.string() + "#MEMORY_RECORD");
  ASSERT_EQ(m[0].live_at_peak.size(), 1u);  // aten::mm was released before the peak
  EXPECT_EQ(m[0].live_at_peak[0].name, "aten::empty_strided");
  EXPECT_DOUBLE_EQ(m[0].live_at_peak[0].size_mb, 400.0);
}

TEST(MemoryTest, TheTimelineIsCutToItsPointBudgetAndKeepsThePeak) {
  TempDir tmp;
  WriteRank(tmp, false);
  std::string csv = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n";
  for (int i = 0; i < 1000; ++i)
    csv += fmt::format("PTA,{}.000\t,{},{},0,1,NPU:0\n", 1000 + i, 100 + i % 7, i == 613 ? 9000 : 200 + i % 11);
  tmp.Write("r0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv", csv);
  AnalysisResult r = testing::Analyze(tmp.path());
  ASSERT_EQ(r.summaries.memory.size(), 1u);  // read once, at the summarize stage
  const RankMemory& m = r.summaries.memory[0];
  EXPECT_EQ(m.timeline_component, "PTA");
  EXPECT_LE(m.timeline.size(), kMemoryTimelinePoints);
  EXPECT_GE(m.timeline.size(), kMemoryTimelinePoints * 9 / 10);
  auto peak_of = [](const std::vector<MemoryPoint>& points) {
    double peak = 0;
    for (const MemoryPoint& p : points) peak = std::max(peak, p.reserved_mb);
    return peak;
  };
  EXPECT_DOUBLE_EQ(peak_of(m.timeline), 9000.0);
  std::vector<MemoryPoint> cut = DecimateMemory(m.timeline, 50);
  EXPECT_LE(cut.size(), 50u);
  EXPECT_GE(cut.size(), 45u);
  EXPECT_DOUBLE_EQ(peak_of(cut), 9000.0);
  EXPECT_TRUE(std::is_sorted(cut.begin(), cut.end(),
                             [](const MemoryPoint& a, const MemoryPoint& b) { return a.rel_ns < b.rel_ns; }));
}

}  // namespace
}  // namespace optrace::analyze
