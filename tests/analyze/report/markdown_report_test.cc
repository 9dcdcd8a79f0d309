#include "analyze/report/markdown_report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "analyze/efficiency/efficiency.h"
#include "analyze/report/golden.h"
#include "analyze/report/markdown_table.h"
#include "analyze/report/report_fixture.h"

namespace optrace::analyze::report {
namespace {
using analyze::testing::ExpectMatchesGolden;
using analyze::testing::MakeReportFixture;

std::string Render(const AnalysisResult& r) {
  ReportContext ctx;
  ctx.generator = "optrace test";
  ctx.artifacts = {{"report_md", "report.md", "the human report"}};
  Efficiency eff = ComputeEfficiency(r, {});
  ctx.efficiency = &eff;
  std::ostringstream out;
  WriteMarkdownReport(r, ComputeKpis(r), ctx, out);
  return out.str();
}

TEST(MarkdownReportTest, MatchesGolden) { ExpectMatchesGolden("report.md", Render(MakeReportFixture())); }

TEST(MarkdownReportTest, SectionsComeInTheSeedOrder) {
  std::string md = Render(MakeReportFixture());
  size_t at = 0;
  for (const char* title : {"## 1. Executive Summary", "## 2. Capture And Segmentation", "## 3. Macro Step Timeline",
                            "## 4. Pipeline Coverage And Bound Families", "## 5. Step Class View",
                            "## 6. Layer And Block View", "## 7. Operator View", "## 8. Step Inventory",
                            "## 9. Cross-Rank And Anomaly Findings",
                            "## 10. Model Fingerprint, Hardware Peaks And Roofline", "## 11. Finding Inventory",
                            "## 12. Evidence Chain", "## 13. Data Issues", "## 14. Limitations", "## 15. Artifacts"}) {
    size_t pos = md.find(title, at);
    ASSERT_NE(pos, std::string::npos) << title;
    at = pos;
  }
}

TEST(MarkdownReportTest, EvidenceChainNamesFileRowsAndWindows) {
  std::string md = Render(MakeReportFixture());
  EXPECT_NE(md.find(analyze::testing::FixtureKernelFile(1) + "` rows 6-9"), std::string::npos);
  EXPECT_NE(md.find("window 10.100-16.700 ms after the rank's first event"), std::string::npos);
}

TEST(MarkdownReportTest, SlowestLinksLeaveOutControlMessagesBelowTheByteFloor) {
  AnalysisResult r = MakeReportFixture();
  CommLinkSummary control{"tp", 0, 1, "HCCS", 0, 0, 1, 1, 24e-6, 0.01, 0.0024};
  CommLinkSummary bulk{"tp", 1, 0, "HCCS", 1, 1, 0, 1, 64.0, 4.0, 16.0};
  r.summaries.comm_links = {control, bulk};
  std::string md = Render(r);
  size_t at = md.find("Slowest links between devices that moved at least 1 MB");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_NE(md.find("1 smaller link(s) left out", at), std::string::npos);
  std::string table = md.substr(at, md.find("###", at) - at);
  EXPECT_NE(table.find("| 16 |"), std::string::npos) << table;
  EXPECT_EQ(table.find("0.0024"), std::string::npos) << table;
}

TEST(MarkdownReportTest, FusedCommunicationOperatorsGetTheirOwnTable) {
  AnalysisResult r = MakeReportFixture();
  uint32_t name = r.strings.Intern("DispatchFFNCombine");
  for (int rank = 0; rank < 2; ++rank) {
    OperatorSummary o;
    o.rank = rank;
    o.name = name;
    o.op_type = OpType::kMixCommAiv;
    o.stats.count = 48;
    o.stats.p50_us = rank == 1 ? 160 : 100;
    o.stats.total_us = 48 * o.stats.p50_us;
    o.pipe_sums.fill(kMissing);
    r.summaries.operators.push_back(o);
  }
  std::string md = Render(r);
  size_t at = md.find("Fused communication + compute operators");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(md.find("| DispatchFFNCombine | 2 | 96 |", at), std::string::npos) << md.substr(at, 800);
  EXPECT_NE(md.find("| 1.6 | 1 | - (no PMU fields) | - |", at), std::string::npos) << md.substr(at, 800);
}

TEST(MarkdownReportTest, AFusedKernelsTimeIsSplitByItsAivTime) {
  AnalysisResult r = MakeReportFixture();
  OperatorSummary o;
  o.rank = 0;
  o.name = r.strings.Intern("MatmulAllReduce");
  o.op_type = OpType::kMixCommAiv;
  o.stats.count = 10;
  o.stats.p50_us = 100;
  o.stats.total_us = 1000;
  o.pipe_event_count = 5;  // half the calls carry PMU fields: their wall is 500 us, 150 of it AIV
  o.pipe_sums.fill(kMissing);
  o.pipe_sums[static_cast<size_t>(StoredPipeIndex(Pipe::kAivTime))] = 150;
  r.summaries.operators.push_back(o);
  std::string md = Render(r);
  size_t at = md.find("| MatmulAllReduce |");
  ASSERT_NE(at, std::string::npos) << md;
  std::string row = md.substr(at, md.find('\n', at) - at);
  EXPECT_NE(row.find("| 30.0% | 70.0% |"), std::string::npos) << row;
}

TEST(MarkdownReportTest, NoCompleteStepGivesNoCompleteStepStatistics) {
  AnalysisResult r = MakeReportFixture();
  for (Step& s : r.steps) s.complete = false;
  for (RankSummary& s : r.summaries.ranks) s.complete_step_count = 0;
  std::string md = Render(r);
  EXPECT_NE(md.find("0 complete"), std::string::npos);
  EXPECT_EQ(md.find("Step wall (complete steps)"), std::string::npos);
  EXPECT_NE(md.find("none is complete"), std::string::npos);
  std::string timeline = md.substr(md.find("## 3. Macro Step Timeline"), 600);
  EXPECT_EQ(timeline.find("0.0%"), std::string::npos) << timeline;
}

TEST(MarkdownReportTest, PipesInNamesDoNotBreakTables) {
  AnalysisResult r = MakeReportFixture();
  r.findings[0].summary = "a|b";
  EXPECT_NE(Render(r).find("a\\|b"), std::string::npos);
}

TEST(MarkdownReportTest, HtmlInNamesIsEscapedOutsideCodeSpans) {
  // Issue 29.14: names come from the capture; a Markdown viewer that renders inline HTML ran them.
  AnalysisResult r = MakeReportFixture();
  r.findings[0].summary = "<script>alert(1)</script> & x > y";
  std::string md = Render(r);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; x &gt; y"), std::string::npos);
}

TEST(MarkdownEscapeTest, CodeSpansStayLiteralAndAnUnclosedBacktickDoesNotHideText) {
  using internal::EscapeMarkdownHtml;
  EXPECT_EQ(EscapeMarkdownHtml("`a<b>` <i>"), "`a<b>` &lt;i&gt;");
  EXPECT_EQ(EscapeMarkdownHtml("``x ` <y>`` &"), "``x ` <y>`` &amp;");
  EXPECT_EQ(EscapeMarkdownHtml("` <b>\n`"), "` &lt;b&gt;\n`");  // a span does not cross lines here
}

// Issue 53.11: "\`" is a literal backtick in CommonMark, not a span opener; taking it for one let
// an operator named x\`<img src=x onerror=alert(1)>` into report.md as live HTML.
TEST(MarkdownEscapeTest, ABackslashEscapedBacktickOpensNoCodeSpan) {
  using internal::EscapeMarkdownHtml;
  EXPECT_EQ(EscapeMarkdownHtml("x\\`<img src=x onerror=alert(1)>`"), "x\\`&lt;img src=x onerror=alert(1)&gt;`");
  EXPECT_EQ(EscapeMarkdownHtml("\\\\`<b>`"), "\\\\`<b>`");  // an escaped backslash: the backtick opens
  EXPECT_EQ(EscapeMarkdownHtml("\\<b>"), "\\<b&gt;");          // "\<" is a literal "<", opens no tag
}

TEST(MarkdownEscapeTest, ASpanIsNotKeptAcrossATableCellBoundary) {
  using internal::EscapeMarkdownHtml;
  EXPECT_EQ(EscapeMarkdownHtml("| `a | <img src=1> ` |"), "| `a | &lt;img src=1&gt; ` |");
}

// The judge is a CommonMark renderer that is not ours (cmark-gfm, tables on, raw HTML let
// through): escaped hostile names, in paragraphs and table cells, render no tag at all.
std::string RenderWithCmarkGfm(const std::string& md) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "optrace_cmark";
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "in.md", std::ios::binary) << md; }
  const std::string cmd = "cmark-gfm --unsafe --extension table " + (dir / "in.md").string() + " > " +
                          (dir / "out.html").string();
  if (std::system(cmd.c_str()) != 0) return "cmark-gfm failed";
  std::ifstream in(dir / "out.html", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(MarkdownEscapeTest, HostileNamesRenderAsTextInARealCommonMarkRenderer) {
  if (std::system("command -v cmark-gfm >/dev/null 2>&1") != 0) GTEST_SKIP() << "cmark-gfm not installed";
  std::vector<std::string> names = {"x\\`<img src=x onerror=alert(1)>`", "`` ` <img src=1> ``",
                                    "a|`b|<img src=2>`|", "\\\\<img src=3>", "<img src=4>", "x`<img src=5>\n`",
                                    "`\\`<img src=6>`", "<script>alert(1)</script>", "<http://e.x/<img src=7>>"};
  std::mt19937 rng(5311);
  const std::vector<std::string> pieces = {"`", "``", "\\", "<img src=r>", "|", "a", " ", "\n", "&", "<", ">", "\\`"};
  for (int i = 0; i < 300; ++i) {
    std::string n;
    for (int k = 0; k < 8; ++k) n += pieces[rng() % pieces.size()];
    names.push_back(n);
  }
  std::ostringstream md;  // the table first: a name may open a fenced block that runs to the end
  std::vector<internal::Row> rows;
  for (const std::string& n : names) rows.push_back({n, "1.0"});
  internal::MdTable(md, {"operator", "ms"}, rows);
  for (const std::string& n : names) md << "- operator " << n << " is slow\n\n";
  const std::string html = RenderWithCmarkGfm(internal::EscapeMarkdownHtml(md.str()));
  EXPECT_EQ(html.find("<img"), std::string::npos) << html.substr(0, 4000);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("<table>"), std::string::npos);  // the table was read as one
}

TEST(MarkdownReportTest, AFindingWithoutEvidenceIsMarkedLowConfidence) {
  AnalysisResult r = MakeReportFixture();
  EXPECT_NE(Render(r).find("(no evidence recorded: treat as low confidence)"), std::string::npos);  // F003
}

}  // namespace
}  // namespace optrace::analyze::report
