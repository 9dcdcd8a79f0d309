#include "analyze/report/html_report.h"

#include <gtest/gtest.h>

#include <sstream>

#include "analyze/report/report_fixture.h"
#include "analyze/report/report_view.h"
#include "analyze/report/summary_tables.h"

namespace optrace::analyze::report {
namespace {
using analyze::testing::MakeReportFixture;

nlohmann::json View(const AnalysisResult& r, size_t rows = 2000) {
  ReportContext ctx;
  ctx.generator = "optrace test";
  return BuildReportView(r, ComputeKpis(r), BuildSummaryTables(r, false), ctx, rows);
}

std::string Html(const nlohmann::json& view) {
  std::ostringstream out;
  RenderHtml(view, out);
  return out.str();
}

TEST(HtmlReportTest, TemplateHasExactlyOneDataMarker) {
  std::string_view tpl = ReportTemplateHtml();
  size_t at = tpl.find("__OPTRACE_REPORT_DATA__");
  ASSERT_NE(at, std::string_view::npos);
  EXPECT_EQ(tpl.find("__OPTRACE_REPORT_DATA__", at + 1), std::string_view::npos);
}

TEST(HtmlReportTest, PageIsSelfContained) {
  std::string html = Html(View(MakeReportFixture()));
  EXPECT_EQ(html.find("__OPTRACE_REPORT_DATA__"), std::string::npos);
  for (const char* remote : {"src=\"http", "href=\"http", "<link", "@import", "url(http", "fetch(", "XMLHttpRequest"})
    EXPECT_EQ(html.find(remote), std::string::npos) << remote;
}

TEST(HtmlReportTest, StreamedInspectorWritesTheSamePageAsAHeldOne) {
  AnalysisResult r = MakeReportFixture();
  r.findings[0].summary = "</script> & <!--";
  r.ranks[0].events[0].name = r.strings.Intern("</script>mm");
  const std::string held = Html(View(r));
  ReportContext ctx;
  ctx.generator = "optrace test";
  ctx.stream_inspector = true;
  const nlohmann::json view = BuildReportView(r, ComputeKpis(r), BuildSummaryTables(r, false), ctx, 2000);
  EXPECT_TRUE(view["inspector"].is_null());
  std::ostringstream out;
  RenderHtml(view, out, [&](const std::function<void(std::string_view)>& text) { WriteInspector(r, ctx, text); });
  EXPECT_EQ(out.str(), held);
}

TEST(HtmlReportTest, ScriptEndingTextInDataCannotCloseTheDataElement) {
  AnalysisResult r = MakeReportFixture();
  r.findings[0].summary = "</script><script>alert(1)</script> & <!--";
  std::string html = Html(View(r));
  size_t data = html.find("id=\"optrace-report-data\"");
  ASSERT_NE(data, std::string::npos);
  size_t end = html.find("</script>", data);
  std::string json_text = html.substr(html.find('>', data) + 1, end - html.find('>', data) - 1);
  auto parsed = nlohmann::json::parse(json_text);
  EXPECT_EQ(parsed["findings"][0]["summary"], "</script><script>alert(1)</script> & <!--");
}

TEST(HtmlReportTest, ViewHasFindingsTimelineAndOperatorTable) {
  AnalysisResult r = MakeReportFixture();
  nlohmann::json v = View(r);
  EXPECT_EQ(v["schema_version"], kReportViewSchemaVersion);
  ASSERT_EQ(v["findings"].size(), 3u);
  EXPECT_EQ(v["findings"][0]["evidence"][0]["kind"], "window");
  ASSERT_EQ(v["timeline"]["ranks"].size(), 2u);
  EXPECT_EQ(v["timeline"]["ranks"][0]["steps"].size(), 3u);
  // The origin is rank 0's first step; rank 1's base is 200 us later, so its first step starts at 200 us.
  EXPECT_DOUBLE_EQ(v["timeline"]["ranks"][0]["steps"][0]["start_us"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(v["timeline"]["ranks"][1]["steps"][0]["start_us"].get<double>(), 200.0);
  EXPECT_EQ(v["tables"][0]["id"], "operator_summary");
  EXPECT_EQ(v["tables"][0]["rows"].size(), 8u);
  EXPECT_EQ(v["tables"][0]["rows"][0][0], "aclnnMatmul_MatMulCommon_MatMulV2");  // sorted by total_us
}

TEST(HtmlReportTest, TablesAreCutToTheRowLimitButKeepTheirTotal) {
  nlohmann::json v = View(MakeReportFixture(), 3);
  EXPECT_EQ(v["tables"][0]["rows"].size(), 3u);
  EXPECT_EQ(v["tables"][0]["total_rows"], 8);
}

TEST(HtmlReportTest, EvidenceWindowsUseTheTimelineOrigin) {
  nlohmann::json v = View(MakeReportFixture());
  const auto& ev = v["findings"][0]["evidence"][0];
  EXPECT_EQ(ev["rank"], 1);
  // Origin = rank 0 step 1 start (base + 100 us); rank 1 step 2 starts at its base + 10100 us = origin + 10200 us.
  EXPECT_DOUBLE_EQ(ev["start_us"].get<double>(), 10200.0);
}

}  // namespace
}  // namespace optrace::analyze::report
