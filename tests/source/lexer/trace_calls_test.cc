#include "source/lexer/trace_calls.h"

#include <gtest/gtest.h>

namespace optrace::source {
namespace {

FileTraces Find(std::string_view text) {
  static std::vector<std::string> keep;  // LexedFile views into its text
  keep.emplace_back(text);
  LexedFile f = Lex(keep.back());
  TraceWrappers w;
  FindTraceWrappers(f, &w);
  return FindTraces(f, w);
}

TEST(TraceCallsTest, FindsPointInsideMoeTracingWithLocation) {
  FileTraces t = Find("void f() {\n  MoeTracing(TRACE_POINT(\"dispatch send\", \"B\"), idx);\n}");
  ASSERT_EQ(t.sites.size(), 1u);
  EXPECT_EQ(t.sites[0].label, "dispatch send");
  EXPECT_EQ(t.sites[0].event_type, 'B');
  EXPECT_EQ(t.sites[0].line, 2);
  EXPECT_EQ(t.sites[0].column, 14);
  ASSERT_EQ(t.calls.size(), 1u);
  EXPECT_EQ(t.calls[0].args.size(), 2u);
  EXPECT_EQ(t.calls[0].site, 0);
}

TEST(TraceCallsTest, IgnoresCommentsStringsAndDisabledRegions) {
  FileTraces t = Find(
      "// MoeTracing(TRACE_POINT(\"a\", \"B\"));\n"
      "/* TRACE_POINT(\"b\", \"B\") */\n"
      "const char* s = \"TRACE_POINT(\\\"c\\\", \\\"B\\\")\";\n"
      "#if 0\nMoeTracing(TRACE_POINT(\"d\", \"B\"));\n#endif\n");
  EXPECT_TRUE(t.sites.empty());
  EXPECT_TRUE(t.issues.empty());
  EXPECT_TRUE(t.calls.empty());
}

TEST(TraceCallsTest, SyncTemplateCallIsACall) {
  FileTraces t = Find("MoeTracing<true>(TRACE_POINT(\"x\", \"E\"), a, b);");
  ASSERT_EQ(t.calls.size(), 1u);
  EXPECT_EQ(t.calls[0].args.size(), 3u);
  EXPECT_EQ(t.sites[0].event_type, 'E');
}

TEST(TraceCallsTest, BadEventTypeIsAnEventTypeIssue) {
  FileTraces t = Find("MoeTracing(TRACE_POINT(\"x\", \"S\"));");
  ASSERT_EQ(t.issues.size(), 1u);
  EXPECT_TRUE(t.issues[0].event_type);
  EXPECT_EQ(t.issues[0].column, 29);
}

TEST(TraceCallsTest, NonLiteralLabelAndWrongArityAreSyntaxIssues) {
  FileTraces t = Find("MoeTracing(TRACE_POINT(name, \"B\"));\nMoeTracing(TRACE_POINT(\"x\"));");
  ASSERT_EQ(t.issues.size(), 2u);
  EXPECT_FALSE(t.issues[0].event_type);
  EXPECT_EQ(t.issues[1].line, 2);
  EXPECT_NE(t.issues[1].message.find("2 arguments"), std::string::npos);
}

TEST(TraceCallsTest, MacroThatWrapsAPointMakesItsUsesSites) {
  FileTraces t = Find("#define PROF_B(name) MoeTracing(TRACE_POINT(name, \"B\"))\n"
                      "#define PROF(name, t) MoeTracing(TRACE_POINT(name, t))\n"
                      "PROF_B(\"gemm\");\nPROF(\"gemm\", \"E\");\n");
  ASSERT_EQ(t.sites.size(), 2u);
  EXPECT_TRUE(t.sites[0].via_wrapper);
  EXPECT_EQ(t.sites[0].event_type, 'B');
  EXPECT_EQ(t.sites[1].event_type, 'E');
  EXPECT_EQ(t.sites[1].line, 4);
  EXPECT_TRUE(t.issues.empty());
}

TEST(TraceCallsTest, PointInsideADefineBodyWithLiteralsIsASite) {
  FileTraces t = Find("#define START MoeTracing(TRACE_POINT(\"start\", \"B\"))\n");
  ASSERT_EQ(t.sites.size(), 1u);
  EXPECT_TRUE(t.sites[0].in_define);
}

TEST(TraceCallsTest, RewrittenFormIsReadFromTheComment) {
  FileTraces t = Find("MoeTracing(0x84bb278c /* TRACE_POINT(\"processing\", \"B\") */);");
  ASSERT_EQ(t.sites.size(), 1u);
  EXPECT_TRUE(t.sites[0].rewritten);
  EXPECT_EQ(t.sites[0].literal_id, 0x84bb278cu);
  EXPECT_EQ(t.sites[0].label, "processing");
  EXPECT_EQ(t.sites[0].column, 12);
  EXPECT_EQ(t.calls[0].site, 0);
}

TEST(TraceCallsTest, CommentWithoutIntegerBeforeItIsNotASite) {
  FileTraces t = Find("MoeTracing(id /* TRACE_POINT(\"processing\", \"B\") */);");
  EXPECT_TRUE(t.sites.empty());
}

TEST(TraceCallsTest, MatchingCloseHandlesTemplatesAndNesting) {
  std::string text = "f<A<B>, C>(g(1), (2));";
  LexedFile f = Lex(text);
  EXPECT_EQ(MatchingClose(f.tokens, 1), 8u);
  EXPECT_EQ(f.tokens[MatchingClose(f.tokens, 9)].offset, text.size() - 2);
}

}  // namespace
}  // namespace optrace::source
