#include "analyze/report/summary_tables.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "analyze/report/golden.h"
#include "analyze/report/report_fixture.h"

namespace optrace::analyze::report {
namespace {
using analyze::testing::ExpectMatchesGolden;
using analyze::testing::MakeReportFixture;

std::string Csv(const Table& t) {
  std::ostringstream out;
  WriteCsv(t, out);
  return out.str();
}

TEST(SummaryTablesTest, OperatorSummaryHasOneRowPerNameAndRankWithRequiredColumns) {
  AnalysisResult r = MakeReportFixture();
  Table t = OperatorSummaryTable(r);
  ASSERT_EQ(t.columns[0], "name");
  ASSERT_EQ(t.columns[1], "rank");
  ASSERT_TRUE(t.Column("count") && t.Column("total_us"));
  std::set<std::pair<std::string, int64_t>> keys;
  for (const auto& row : t.rows) keys.insert({std::get<std::string>(row[0]), std::get<int64_t>(row[1])});
  EXPECT_EQ(keys.size(), t.rows.size());
  EXPECT_EQ(t.rows.size(), 8u);  // 4 operators x 2 ranks
}

TEST(SummaryTablesTest, OperatorSummaryMatchesGolden) {
  ExpectMatchesGolden("operator_summary.csv", Csv(OperatorSummaryTable(MakeReportFixture())));
}

TEST(SummaryTablesTest, HcclOpSummaryMatchesGolden) {
  ExpectMatchesGolden("hccl_op_summary.csv", Csv(HcclOpSummaryTable(MakeReportFixture())));
}

TEST(SummaryTablesTest, StepSummaryMatchesGolden) {
  ExpectMatchesGolden("step_summary.csv", Csv(StepSummaryTable(MakeReportFixture())));
}

TEST(SummaryTablesTest, StepAnatomyMatchesGolden) {
  ExpectMatchesGolden("step_anatomy.csv", Csv(StepAnatomyTable(MakeReportFixture())));
}

TEST(SummaryTablesTest, RankSummaryMatchesGolden) {
  ExpectMatchesGolden("rank_summary.csv", Csv(RankSummaryTable(MakeReportFixture())));
}

TEST(SummaryTablesTest, StepRowsPointAtTheSourceRowsOfTheirEvents) {
  AnalysisResult r = MakeReportFixture();
  Table t = StepSummaryTable(r);
  auto file = *t.Column("source_file"), first = *t.Column("first_row"), last = *t.Column("last_row");
  // Rank 1, step 2 holds events 4..7, written on rows 6..9 of rank 1's kernel_details.csv.
  const auto& row = t.rows[4];
  EXPECT_EQ(std::get<std::string>(row[file]), analyze::testing::FixtureKernelFile(1));
  EXPECT_EQ(std::get<int64_t>(row[first]), 6);
  EXPECT_EQ(std::get<int64_t>(row[last]), 9);
}

TEST(SummaryTablesTest, UnknownGapsAreEmptyNotZero) {
  AnalysisResult r = MakeReportFixture();
  Table t = StepSummaryTable(r);
  auto pre = *t.Column("prelaunch_gap_ms");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[0][pre]));  // first step: capture edge
  EXPECT_TRUE(std::holds_alternative<double>(t.rows[1][pre]));
}

TEST(SummaryTablesTest, FullModeAddsTheFullSizeTables) {
  AnalysisResult r = MakeReportFixture();
  std::vector<Table> fast = BuildSummaryTables(r, false), full = BuildSummaryTables(r, true);
  EXPECT_EQ(FindTable(fast, "collective_alignment"), nullptr);
  ASSERT_NE(FindTable(full, "collective_alignment"), nullptr);
  EXPECT_EQ(FindTable(full, "collective_alignment")->rows.size(), 3u);
  for (const char* name : {"operator_summary", "hccl_op_summary", "step_summary", "rank_summary", "step_anatomy"})
    EXPECT_NE(FindTable(fast, name), nullptr) << name;
}

TEST(SummaryTablesTest, EventIndexHasOneRowPerEventWithProvenance) {
  AnalysisResult r = MakeReportFixture();
  std::ostringstream out;
  WriteEventIndexCsv(r, out);
  std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 24);
  EXPECT_NE(text.find(analyze::testing::FixtureKernelFile(1) + ",13,hcom_allReduce__586_0_1"), std::string::npos);
}

}  // namespace
}  // namespace optrace::analyze::report
