#include "source/plan/instrument.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "source/plan/plan_fixture.h"
#include "source/lint/lint.h"
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

std::string FromBase64(const std::string& b64) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (char c : b64) {
    size_t at = kAlphabet.find(c);
    if (at == std::string::npos) break;  // '=' padding
    v = (v << 6) | static_cast<unsigned>(at);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xff);
    }
  }
  return out;
}

// Lines changed in place keep their original as `// optrace:orig-b64:<base64>:<tag>`; the
// expectations read it as `// optrace:orig <original>`.
std::string Readable(const std::string& text) {
  static const std::regex kOrig(R"(optrace:orig-b64:([A-Za-z0-9+/=]*):[0-9a-f]{6})");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), kOrig);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += text.substr(last, it->position() - last) + "optrace:orig " + FromBase64((*it)[1].str());
    last = it->position() + it->length();
  }
  return WithoutTags(out + text.substr(last));
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
    return Readable(tree_.Read(rel));
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
  // optrace's header placed beside the kernel entry, included relative to stage/stage.h.
  EXPECT_THAT(stage, HasSubstr("#include \"kernel_operator.h\"\n#include \"../optrace_trace.h\"  // optrace:auto"));
  EXPECT_EQ(tree_.Read("op_kernel/optrace_trace.h"), SingleHeaderText());
  EXPECT_THAT(tree_.Read("op_kernel/kern.h"), Not(HasSubstr("trace.h\"  // optrace:auto")));  // has it already
}

TEST_F(InstrumentTest, RevertRestoresEveryFileByteForByte) {
  std::map<std::string, std::string> before;
  for (const auto& [rel, text] : testing::PlanFixtureFiles()) before[rel] = text;
  InstrumentAndRead("op_kernel/kern.cpp");
  Result<InstrumentResult> r = RevertInstrumentation(tree_.path());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->changes.size(), 4u);  // three sources and the placed optrace_trace.h
  for (const FileChange& c : r->changes) {
    if (c.kind == FileChange::Kind::kRemove) {
      EXPECT_EQ(c.rel, "op_kernel/optrace_trace.h");
      std::filesystem::remove(c.path);
      continue;
    }
    tree_.Write(c.rel, c.after);
  }
  for (const auto& [rel, text] : before) EXPECT_EQ(tree_.Read(rel), text) << rel;
  EXPECT_FALSE(std::filesystem::exists(tree_.path("op_kernel/optrace_trace.h")));
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

// What clang-format does to instrumented code: re-indents, one space before a trailing comment,
// spaces inside parentheses, and a braced one-liner broken over several lines.
std::string Reformatted(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (size_t at = line.find("  // optrace:auto:"); at != std::string::npos) {
      line = "  " + line.substr(0, at) + " // optrace:auto:" + line.substr(at + 18);
      if (size_t m = line.find("MoeTracing(TRACE_POINT("); m != std::string::npos) line.insert(m + 11, " ");
    }
    size_t orig = line.find("  // optrace:orig-b64:");
    size_t brace = line.find(") { ");
    if (orig != std::string::npos && brace != std::string::npos && brace < orig) {
      std::string indent = line.substr(0, line.find_first_not_of(' '));
      std::string body = line.substr(brace + 4, line.rfind(" }", orig) - brace - 4);
      out += line.substr(0, brace + 3) + "\n";
      for (size_t b = 0; b < body.size();) {
        size_t semi = body.find("; ", b);
        size_t e = semi == std::string::npos ? body.size() : semi + 1;
        out += indent + "  " + body.substr(b, e - b) + "\n";
        b = semi == std::string::npos ? body.size() : semi + 2;
      }
      line = indent + "}" + line.substr(orig);
    }
    out += line + (nl == std::string::npos ? "" : "\n");
  }
  return out;
}

TEST_F(InstrumentTest, RevertUndoesATreeAFormatterRewrote) {
  // Issue 29.7: after clang-format, revert left the respaced marks in and instrument doubled them.
  std::map<std::string, std::string> before;
  for (const auto& [rel, text] : testing::PlanFixtureFiles()) before[rel] = text;
  InstrumentAndRead("op_kernel/kern.cpp");
  std::string stage = tree_.Read("op_kernel/stage/stage.h");
  ASSERT_NE(Reformatted(stage), stage);
  ASSERT_THAT(Reformatted(stage), HasSubstr("{\n      MoeTracing(TRACE_POINT("));  // a one-liner was broken
  for (const auto& [rel, text] : before) tree_.Write(rel, Reformatted(tree_.Read(rel)));
  Result<InstrumentResult> r = RevertInstrumentation(tree_.path());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
  for (const FileChange& c : r->changes) tree_.Write(c.rel, c.after);
  for (const auto& [rel, text] : before) EXPECT_EQ(tree_.Read(rel), text) << rel;
}

TEST_F(InstrumentTest, InstrumentingAFormattedTreeAgainDoesNotDoubleTheMarks) {
  InstrumentAndRead("op_kernel/kern.cpp");
  auto marks = [&] {
    size_t n = 0;
    for (const auto& [rel, text] : testing::PlanFixtureFiles()) {
      std::string now = tree_.Read(rel);
      for (size_t p = now.find("TRACE_POINT("); p != std::string::npos; p = now.find("TRACE_POINT(", p + 1)) ++n;
    }
    return n;
  };
  size_t once = marks();
  for (const auto& [rel, text] : testing::PlanFixtureFiles()) tree_.Write(rel, Reformatted(tree_.Read(rel)));
  Result<InstrumentResult> again = Instrument(MakePlan());
  ASSERT_TRUE(again.ok()) << again.status().message();
  for (const FileChange& c : again->changes) tree_.Write(c.rel, c.after);
  EXPECT_EQ(marks(), once);
}

TEST_F(InstrumentTest, AnEditedMarkStopsInstrumentAndRevertKeepsIt) {
  InstrumentAndRead("op_kernel/kern.cpp");
  std::string stage = tree_.Read("op_kernel/stage/stage.h");
  size_t at = stage.find("\"cube-work aic\", \"B\"");
  ASSERT_NE(at, std::string::npos);
  stage.replace(at, 15, "\"cube-work-2 aic\"");
  tree_.Write("op_kernel/stage/stage.h", stage);
  Result<InstrumentResult> again = Instrument(MakePlan());
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("op_kernel/stage/stage.h:"));
  EXPECT_THAT(again.status().message(), HasSubstr("no longer matches its code"));
  Result<InstrumentResult> r = RevertInstrumentation(tree_.path());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_THAT(r->warnings.front(), HasSubstr("kept: its optrace:auto tag no longer matches"));
  for (const FileChange& c : r->changes) tree_.Write(c.rel, c.after);
  EXPECT_THAT(tree_.Read("op_kernel/stage/stage.h"), HasSubstr("\"cube-work-2 aic\""));
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
  EXPECT_THAT(Readable(after), HasSubstr("    if (i == 2) { x_ = 0; MoeTracing(TRACE_POINT(\"step\", \"E\")); continue; }"
                               "  // optrace:orig     if (i == 2) { x_ = 0; continue; }\n"));
  EXPECT_EQ(RevertText(after), kContinueInBraces);
}

TEST(InstrumentExitsTest, UnbracedContinueIsStillWrappedInBraces) {
  std::string after = InstrumentOne(kContinueInBraces, {Site(SiteKind::kLoopBody, 3, "for i", "step")});
  EXPECT_THAT(Readable(after), HasSubstr("    if (i == 3) { MoeTracing(TRACE_POINT(\"step\", \"E\")); continue; }"
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
  EXPECT_THAT(Readable(after), HasSubstr("  { auto optrace_ret = G(n) + 1; MoeTracing(TRACE_POINT(\"f\", \"E\")); "
                               "return optrace_ret; }  // optrace:orig   return G(n) + 1;\n"));
  EXPECT_THAT(Readable(after), HasSubstr("  if (n > 2) { V(n); MoeTracing(TRACE_POINT(\"h\", \"E\")); return; }"
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

TEST(RevertTextTest, MarkBrokenOverTwoLinesIsRemovedWhole) {
  std::string code = "MoeTracing(TRACE_POINT(\"a long label aiv\", \"E\"), groupIdx);";
  std::string tag = AutoMarkerFor(code, false);
  std::string broken = "  Work();\n  MoeTracing(TRACE_POINT(\"a long label aiv\", \"E\"),\n             groupIdx);" + tag + "\n}\n";
  EXPECT_EQ(RevertText(broken), "  Work();\n}\n");
}

TEST(RevertTextTest, UntaggedLineOfAnOlderVersionIsRemovedOnlyWhenItIsABareMark) {
  EXPECT_EQ(RevertText("  MoeTracing(TRACE_POINT(\"x\", \"E\"), i);  // optrace:auto\n"), "");
  const std::string user = "  MoeTracing(TRACE_POINT(\"x\", \"E\")); Flush();  // optrace:auto\n";
  EXPECT_EQ(RevertText(user), user);
}

TEST(RevertTextTest, OriginalSurvivesAnyCharactersThroughBase64) {
  const std::string original = "    if (p) return;  /* it's \"done\" */ // optrace:auto \\\n";
  std::string after = InstrumentOne("#include \"optrace/trace.h\"\nvoid F(int p) {\n  Prep();\n" + original + "  Work();\n}\n",
                                    {Site(SiteKind::kFunction, 2, "F", "f")});
  EXPECT_THAT(after, HasSubstr("optrace:orig-b64:"));
  EXPECT_EQ(RevertText(after), "#include \"optrace/trace.h\"\nvoid F(int p) {\n  Prep();\n" + original + "  Work();\n}\n");
}

TEST(RevertTextTest, EditedTaggedLineIsReportedByLine) {
  std::string tagged = "  MoeTracing(TRACE_POINT(\"x\", \"B\"));" + AutoMarkerFor("  MoeTracing(TRACE_POINT(\"x\", \"B\"));", false);
  tagged.replace(tagged.find("\"x\""), 3, "\"y\"");
  std::vector<int> stale;
  EXPECT_EQ(RevertText("a\n" + tagged + "\n", &stale), "a\n" + tagged + "\n");
  EXPECT_EQ(stale, std::vector<int>{2});
}

TEST(MarkCodeTest, IndexArgumentsFollowThePoint) {
  PlanSite s;
  s.label = "gemm group aic";
  s.index = {"stage", "g"};
  EXPECT_EQ(MarkCode(s, 'B'), "MoeTracing(TRACE_POINT(\"gemm group aic\", \"B\"), stage, g);");
}

}  // namespace
}  // namespace optrace::source
