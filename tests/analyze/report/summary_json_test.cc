#include "analyze/report/summary_json.h"

#include <gtest/gtest.h>

#include "analyze/report/golden.h"
#include "analyze/report/report_fixture.h"

namespace optrace::analyze::report {
namespace {
using analyze::testing::ExpectMatchesGolden;
using analyze::testing::MakeReportFixture;

ReportContext Context() {
  ReportContext ctx;
  ctx.generator = "optrace test";
  ctx.artifacts = {{"report_md", "report.md", ""}, {"operator_summary_csv", "operator_summary.csv", ""}};
  return ctx;
}

TEST(SummaryJsonTest, MatchesGolden) {
  AnalysisResult r = MakeReportFixture();
  ExpectMatchesGolden("analysis_summary.json", BuildAnalysisSummary(r, ComputeKpis(r), Context()).dump(2) + "\n");
}

TEST(SummaryJsonTest, CarriesSchemaVersionAndTheDocumentedSections) {
  AnalysisResult r = MakeReportFixture();
  auto s = BuildAnalysisSummary(r, ComputeKpis(r), Context());
  EXPECT_EQ(s["schema_version"], kAnalysisSummarySchemaVersion);
  for (const char* key : {"identity", "step_validation", "layer_validation", "kpis", "findings", "finding_counts",
                          "data_issues", "artifacts", "limitations"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_EQ(s["artifacts"]["operator_summary_csv"], "operator_summary.csv");
}

TEST(SummaryJsonTest, FindingsKeepTheirEvidence) {
  AnalysisResult r = MakeReportFixture();
  auto s = BuildAnalysisSummary(r, ComputeKpis(r), Context());
  const auto& f = s["findings"][0];
  EXPECT_EQ(f["id"], "F001");
  EXPECT_EQ(f["severity"], "high");
  EXPECT_EQ(f["numbers"]["votes"], 3);
  ASSERT_EQ(f["evidence"].size(), 2u);
  EXPECT_EQ(f["evidence"][0]["window_start_ns"], r.ranks[1].AbsNs(r.steps[4].start_ns));
  EXPECT_EQ(f["evidence"][1]["file"], analyze::testing::FixtureKernelFile(1));
  EXPECT_EQ(f["evidence"][1]["row_first"], 6);
  EXPECT_FALSE(f["evidence"][1].contains("window_start_ns"));  // not applicable: omitted
}

TEST(SummaryJsonTest, LayerValidationSaysNoLayersWhenNoneWereCut) {
  AnalysisResult r = MakeReportFixture();
  auto s = BuildAnalysisSummary(r, ComputeKpis(r), Context());
  EXPECT_EQ(s["layer_validation"]["status"], "no_layers");
  EXPECT_TRUE(s["layer_validation"]["expected_layers"].is_null());
}

TEST(SummaryJsonTest, StepValidationNoticesRanksWithDifferentSteps) {
  AnalysisResult r = MakeReportFixture();
  EXPECT_TRUE(BuildAnalysisSummary(r, ComputeKpis(r), Context())["step_validation"]["ranks_agree"]);
  r.steps.pop_back();  // rank 1 loses its last step
  EXPECT_FALSE(BuildAnalysisSummary(r, ComputeKpis(r), Context())["step_validation"]["ranks_agree"]);
}

TEST(KpisTest, SharesDivideByTheSummedStepWall) {
  AnalysisResult r = MakeReportFixture();
  Kpis k = ComputeKpis(r);
  EXPECT_EQ(k.step_count, 6);
  EXPECT_EQ(k.complete_step_count, 6);
  EXPECT_NEAR(k.hccl_total_ms, 9.6, 1e-9);
  EXPECT_NEAR(k.hccl_share_of_wall, 9.6 / k.wall_ms_sum, 1e-12);
  EXPECT_EQ(k.hccl_top_kind, "allreduce");
  EXPECT_EQ(k.top_step_class_id, "S1");
  EXPECT_EQ(k.finding_counts.at("high"), 1);
  EXPECT_EQ(k.finding_counts.at("low"), 0);
}

}  // namespace
}  // namespace optrace::analyze::report
