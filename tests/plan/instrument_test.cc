#include "source/plan/instrument.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "plan/plan_fixture.h"
#include "source/lint.h"
#include "testing/temp_tree.h"

namespace optrace::source {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Inserted lines end in `// optrace:auto:<tag>`; the expectations below are written without tags.
std::string WithoutTags(const std::string& text) {
  static const std::regex kTag(R"(optrace:auto:[0-9a-f]{6})");
  return std::regex_replace(text, kTag, "optrace:auto");
}

class InstrumentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [rel, text] : testing::PlanFixtureFiles()) tree_.Write(rel, text);
  }
  Plan MakePlan() {
    PlanOptions o;
    o.op_dir = tree_.path();
    Result<Plan> p = BuildPlan(o);
    EXPECT_TRUE(p.ok()) << p.status().message();
    return p.ok() ? std::move(*p) : Plan{};
  }
  // Instruments the fixture on disk; returns the new text of `rel`.
  std::string InstrumentAndRead(const std::string& rel) {
    Result<InstrumentResult> r = Instrument(MakePlan());
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (r.ok()) {
      EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
      for (const FileChange& c : r->changes) tree_.Write(c.rel, c.after);
    }
    return WithoutTags(tree_.Read(rel));
  }
  testing::TempTree tree_;
};

TEST_F(InstrumentTest, FunctionRangeOpensAfterTheBraceAndClosesBeforeIt) {
  std::string h = InstrumentAndRead("op_kernel/stage/stage.h");
  EXPECT_THAT(h, HasSubstr("  __aicore__ inline void CubeWork() {\n"
                           "    MoeTracing(TRACE_POINT(\"cube-work aic\", \"B\"));  // optrace:auto\n"));
  EXPECT_THAT(h, HasSubstr("    MoeTracing(TRACE_POINT(\"cube-work sync-all aic\", \"E\"));  // optrace:auto\n"
                           "    MoeTracing(TRACE_POINT(\"cube-work aic\", \"E\"));  // optrace:auto\n"
                           "  }\n"));
}

TEST_F(InstrumentTest, KernelEntryRangeSitsInsideTheProfilingSetup) {
  std::string cpp = InstrumentAndRead("op_kernel/kern.cpp");
  EXPECT_THAT(cpp, HasSubstr("  OPTRACE_KERNEL_BEGIN();\n"
                             "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));  // optrace:auto\n"));
  EXPECT_THAT(cpp, HasSubstr("  MoeTracing(TRACE_POINT(\"processing\", \"E\"));  // optrace:auto\n"
                             "  OPTRACE_KERNEL_END(prof);\n"));
}

TEST_F(InstrumentTest, BreakOutOfATracedLoopBodyGetsItsEndMark) {
  std::string h = InstrumentAndRead("op_kernel/stage/stage.h");
  EXPECT_THAT(h, HasSubstr("      if (groupIdx == 3) {\n"
                           "        MoeTracing(TRACE_POINT(\"cube-work group aic\", \"E\"), groupIdx);  // optrace:auto\n"
                           "        break;\n"));
}

TEST_F(InstrumentTest, UnbracedEarlyReturnIsWrappedAndMarkedWithTheOriginal) {
  std::string h = InstrumentAndRead("op_kernel/stage/stage.h");
  EXPECT_THAT(h, HasSubstr("    if (acc_ > 100) { MoeTracing(TRACE_POINT(\"cube-work group accumulate aic\", \"E\"), "
                           "groupIdx); return; }  // optrace:orig     if (acc_ > 100) return;\n"));
}

TEST_F(InstrumentTest, ContinueInsideAWholeLoopRangeNeedsNoMark) {
  std::string h = InstrumentAndRead("op_kernel/stage/stage.h");
  EXPECT_THAT(h, HasSubstr("      if (r == 5) {\n        continue;\n"));
}

TEST_F(InstrumentTest, LambdaBodyIsTraced) {
  std::string h = InstrumentAndRead("op_kernel/stage/stage.h");
  EXPECT_THAT(h, HasSubstr("    auto drain = [&](uint32_t count) {\n"
                           "      MoeTracing(TRACE_POINT(\"drain aiv\", \"B\"));  // optrace:auto\n"));
}

TEST_F(InstrumentTest, IncludeIsAddedWhereTheTracingHeaderIsNotReached) {
  std::string stage = InstrumentAndRead("op_kernel/stage/stage.h");
  EXPECT_THAT(stage, HasSubstr("#include \"kernel_operator.h\"\n#include \"optrace/trace.h\"  // optrace:auto\n"));
  EXPECT_THAT(tree_.Read("op_kernel/kern.h"), Not(HasSubstr("trace.h\"  // optrace:auto")));  // has it already
}

TEST_F(InstrumentTest, RevertRestoresEveryFileByteForByte) {
  std::map<std::string, std::string> before;
  for (const auto& [rel, text] : testing::PlanFixtureFiles()) before[rel] = text;
  InstrumentAndRead("op_kernel/kern.cpp");
  Result<InstrumentResult> r = RevertInstrumentation(tree_.path());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->changes.size(), 3u);
  for (const FileChange& c : r->changes) tree_.Write(c.rel, c.after);
  for (const auto& [rel, text] : before) EXPECT_EQ(tree_.Read(rel), text) << rel;
}

TEST_F(InstrumentTest, InstrumentingTwiceEqualsOnce) {
  InstrumentAndRead("op_kernel/kern.cpp");
  Result<InstrumentResult> again = Instrument(MakePlan());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->changes.empty());
}

TEST_F(InstrumentTest, CrlfFilesKeepTheirLineEndingsThroughARoundTrip) {
  std::string crlf;
  for (char c : tree_.Read("op_kernel/kern.cpp")) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  tree_.Write("op_kernel/kern.cpp", crlf);
  std::string after = InstrumentAndRead("op_kernel/kern.cpp");
  EXPECT_THAT(after, HasSubstr("\"processing\", \"B\"));  // optrace:auto\r\n"));
  Result<InstrumentResult> r = RevertInstrumentation(tree_.path());
  ASSERT_TRUE(r.ok());
  for (const FileChange& c : r->changes) tree_.Write(c.rel, c.after);
  EXPECT_EQ(tree_.Read("op_kernel/kern.cpp"), crlf);
}

TEST_F(InstrumentTest, InstrumentedFixturePassesLint) {
  InstrumentAndRead("op_kernel/kern.cpp");
  LintOptions o;
  o.paths = {tree_.path("op_kernel")};
  Result<LintReport> r = RunLint(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->Count(Severity::kError), 0u) << FormatLintText(*r);
}

TEST_F(InstrumentTest, StaleSiteIsReportedAndSkipped) {
  Plan plan = MakePlan();
  for (PlanSite& s : plan.sites)
    if (s.name == "Stage::CubeWork") s.line += 1;
  Result<InstrumentResult> r = Instrument(plan);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->warnings.empty());
  EXPECT_THAT(r->warnings.front(), HasSubstr("op_kernel/stage/stage.h:26: no function Stage::CubeWork here"));
}

// Instruments one hand-written file with hand-made sites; returns its new text.
std::string InstrumentOne(const std::string& text, std::vector<PlanSite> sites) {
  testing::TempTree tree({{"a.h", text}});
  Plan plan;
  plan.op_dir = tree.path();
  for (PlanSite& s : sites) {
    s.file = "a.h";
    s.decision = Decision::kPhase;
    plan.sites.push_back(s);
  }
  Result<InstrumentResult> r = Instrument(plan);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok() || r->changes.empty()) return text;
  EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
  return r->changes[0].after;
}

PlanSite Site(SiteKind kind, int line, const std::string& name, const std::string& label) {
  PlanSite s;
  s.kind = kind;
  s.line = line;
  s.name = name;
  s.label = label;
  return s;
}

const char* kContinueInBraces =
    "#include \"optrace/trace.h\"\n"
    "void F(int n) {\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    if (i == 2) { x_ = 0; continue; }\n"
    "    if (i == 3) continue;\n"
    "    Work(i);\n"
    "  }\n"
    "}\n";

TEST(InstrumentExitsTest, ContinueInsideExistingBracesGetsItsEndMarkInsideThem) {
  std::string after = InstrumentOne(kContinueInBraces, {Site(SiteKind::kLoopBody, 3, "for i", "step")});
  EXPECT_THAT(after, HasSubstr("    if (i == 2) { x_ = 0; MoeTracing(TRACE_POINT(\"step\", \"E\")); continue; }"
                               "  // optrace:orig     if (i == 2) { x_ = 0; continue; }\n"));
  EXPECT_EQ(RevertText(after), kContinueInBraces);
}

TEST(InstrumentExitsTest, UnbracedContinueIsStillWrappedInBraces) {
  std::string after = InstrumentOne(kContinueInBraces, {Site(SiteKind::kLoopBody, 3, "for i", "step")});
  EXPECT_THAT(after, HasSubstr("    if (i == 3) { MoeTracing(TRACE_POINT(\"step\", \"E\")); continue; }"
                               "  // optrace:orig     if (i == 3) continue;\n"));
}

TEST(InstrumentExitsTest, ContinueInsideExistingBracesPassesLintPairing) {
  std::string after = InstrumentOne(kContinueInBraces, {Site(SiteKind::kLoopBody, 3, "for i", "step")});
  testing::TempTree tree({{"a.cpp", after}});
  LintOptions o;
  o.paths = {tree.path()};
  Result<LintReport> r = RunLint(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const Diagnostic& d : r->diagnostics) {
    EXPECT_NE(d.rule, "pairing") << FormatDiagnostic(d);
    EXPECT_NE(d.rule, "early-return") << FormatDiagnostic(d);
  }
}

const char* kReturnsCall =
    "#include \"optrace/trace.h\"\n"
    "int G(int n) {\n"
    "  Work(n);\n"
    "  return n;\n"
    "}\n"
    "int F(int n) {\n"
    "  Prep(n);\n"
    "  return G(n) + 1;\n"
    "}\n"
    "void KernImpl::H(int n) {\n"
    "  Prep(n);\n"
    "  if (n > 2) return V(n);\n"
    "  Other(n);\n"
    "}\n"
    "void V(int n) {\n"
    "  Work(n);\n"
    "}\n";

std::vector<PlanSite> ReturnSites() {
  return {Site(SiteKind::kFunction, 2, "G", "g"), Site(SiteKind::kFunction, 6, "F", "f"),
          Site(SiteKind::kFunction, 10, "KernImpl::H", "h"), Site(SiteKind::kFunction, 15, "V", "v")};
}

TEST(InstrumentExitsTest, ReturnOfATracedCallClosesTheParentAfterTheCall) {
  std::string after = InstrumentOne(kReturnsCall, ReturnSites());
  EXPECT_THAT(after, HasSubstr("  { auto optrace_ret = G(n) + 1; MoeTracing(TRACE_POINT(\"f\", \"E\")); "
                               "return optrace_ret; }  // optrace:orig   return G(n) + 1;\n"));
  EXPECT_THAT(after, HasSubstr("  if (n > 2) { V(n); MoeTracing(TRACE_POINT(\"h\", \"E\")); return; }"
                               "  // optrace:orig   if (n > 2) return V(n);\n"));
  EXPECT_EQ(RevertText(after), kReturnsCall);
}

TEST(InstrumentExitsTest, ReturnOfAPlainValueKeepsItsEndMarkBeforeIt) {
  std::string after = InstrumentOne(kReturnsCall, ReturnSites());
  EXPECT_THAT(WithoutTags(after), HasSubstr("  MoeTracing(TRACE_POINT(\"g\", \"E\"));  // optrace:auto\n  return n;\n"));
  EXPECT_THAT(after, Not(HasSubstr("optrace_ret = n")));
}

Result<SiteMarks> MarksFor(const std::string& text, SiteKind kind, int line) {
  SourceSet set("/op");
  const SourceFile* f = set.AddText("a.h", text);
  CodeStructure cs = AnalyzeStructure(f->lex);
  PlanSite site;
  site.kind = kind;
  site.line = line;
  site.name = "F";
  site.label = "f";
  return ComputeSiteMarks(*f, cs, site);
}

TEST(ComputeSiteMarksTest, OneLineBodyIsRefusedWithTheReason) {
  Result<SiteMarks> m = MarksFor("void F() { G(); }\n", SiteKind::kFunction, 1);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("a.h:1: the body of F starts on the line of its '{'"));
}

TEST(ComputeSiteMarksTest, EmptyBodyIsRefused) {
  Result<SiteMarks> m = MarksFor("void F() {\n}\n", SiteKind::kFunction, 1);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("is empty"));
}

TEST(ComputeSiteMarksTest, StatementSharingItsLineIsRefused) {
  Result<SiteMarks> m = MarksFor("void F() {\n  a(); SyncAll();\n}\n", SiteKind::kStatement, 2);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("a.h:2: the statement shares a line with other code"));
}

TEST(RevertTextTest, DropsAutoLinesAndRestoresOriginals) {
  EXPECT_EQ(RevertText("a\n  X;" + AutoMarkerFor("  X;", false) + "\nb\n"), "a\nb\n");
  EXPECT_EQ(RevertText("if (x) { E; return; }  // optrace:orig if (x) return;\n"), "if (x) return;\n");
  EXPECT_EQ(RevertText("no newline at end"), "no newline at end");
}

TEST(RevertTextTest, UserCodeEndingInTheMarkerIsKept) {
  // Issue 11: revert deleted any whole line ending in `// optrace:auto`, user code included.
  EXPECT_EQ(RevertText("a\n  x = 1;  // optrace:auto\nb\n"), "a\n  x = 1;  // optrace:auto\nb\n");
  // An inserted line the user edited since no longer matches its tag: it is theirs now.
  std::string tagged = "  MoeTracing(TRACE_POINT(\"x\", \"B\"));" + AutoMarkerFor("  MoeTracing(TRACE_POINT(\"x\", \"B\"));", false);
  std::string edited = tagged;
  edited.replace(edited.find("\"x\""), 3, "\"y\"");
  EXPECT_EQ(RevertText(tagged + "\n"), "");
  EXPECT_EQ(RevertText(edited + "\n"), edited + "\n");
  // Lines of earlier versions (untagged) are removed when the code is optrace's own.
  EXPECT_EQ(RevertText("  MoeTracing(TRACE_POINT(\"x\", \"B\"));  // optrace:auto\n"), "");
}

TEST(MarkCodeTest, IndexArgumentsFollowThePoint) {
  PlanSite s;
  s.label = "gemm group aic";
  s.index = {"stage", "g"};
  EXPECT_EQ(MarkCode(s, 'B'), "MoeTracing(TRACE_POINT(\"gemm group aic\", \"B\"), stage, g);");
}

}  // namespace
}  // namespace optrace::source
