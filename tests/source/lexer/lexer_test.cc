#include "source/lexer/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace::source {
namespace {

std::vector<std::string> ActiveTexts(const LexedFile& f) {
  std::vector<std::string> out;
  for (const Token& t : f.tokens)
    if (t.active && !t.in_directive) out.emplace_back(t.text);
  return out;
}

TEST(LexerTest, TokensCarryLineAndColumn) {
  LexedFile f = Lex("int a;\n  foo(1);\n");
  ASSERT_EQ(f.tokens.size(), 8u);
  EXPECT_EQ(f.tokens[3].text, "foo");
  EXPECT_EQ(f.tokens[3].line, 2);
  EXPECT_EQ(f.tokens[3].column, 3);
  EXPECT_EQ(f.tokens[3].kind, TokenKind::kIdentifier);
  EXPECT_EQ(f.tokens[5].kind, TokenKind::kNumber);
}

TEST(LexerTest, ByteOrderMarkIsNotPartOfTheFirstLine) {
  // Issue 29.8: the BOM hid the header's first #include, and with it most of the tree.
  LexedFile f = Lex("\xEF\xBB\xBF#include \"a.h\"\nint x;\n");
  ASSERT_EQ(f.directives.size(), 1u);
  EXPECT_EQ(f.directives[0].kind, DirectiveKind::kInclude);
  LexedFile g = Lex("\xEF\xBB\xBFint x;\n");
  ASSERT_EQ(g.tokens.size(), 3u);
  EXPECT_EQ(g.tokens[0].text, "int");
  EXPECT_EQ(g.tokens[0].column, 1);
  EXPECT_EQ(g.tokens[0].offset, 3u);
}

TEST(LexerTest, CommentsAreNotTokens) {
  LexedFile f = Lex("a /* b\n c */ d // e\nf");
  EXPECT_EQ(ActiveTexts(f), (std::vector<std::string>{"a", "d", "f"}));
  ASSERT_EQ(f.comments.size(), 2u);
  EXPECT_EQ(f.tokens[2].line, 3);
}

TEST(LexerTest, StringAndCharLiteralsAreSingleTokens) {
  LexedFile f = Lex(R"(x = "a \"b\" // c"; y = 'q'; z = u8"w"; c = '\'';)");
  std::vector<std::string> t = ActiveTexts(f);
  EXPECT_EQ(t[2], R"("a \"b\" // c")");
  EXPECT_EQ(t[6], "'q'");
  EXPECT_EQ(t[10], "u8\"w\"");
  EXPECT_EQ(t[14], R"('\'')");
  EXPECT_TRUE(f.comments.empty());
}

TEST(LexerTest, RawStringSpansLinesAndHidesQuotes) {
  LexedFile f = Lex("s = R\"xy(a \" )\" b\nc)xy\"; t");
  std::vector<std::string> t = ActiveTexts(f);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[2], "R\"xy(a \" )\" b\nc)xy\"");
  EXPECT_EQ(f.tokens.back().line, 2);
  std::string v;
  ASSERT_TRUE(StringLiteralValue(f.tokens[2], &v));
  EXPECT_EQ(v, "a \" )\" b\nc");
}

TEST(LexerTest, LineContinuationJoinsDirectiveAndCountsLines) {
  LexedFile f = Lex("#define X(a) \\\n  foo(a)\nbar");
  ASSERT_EQ(f.directives.size(), 1u);
  EXPECT_EQ(f.directives[0].kind, DirectiveKind::kDefine);
  EXPECT_EQ(f.directives[0].argument, "X(a) foo(a)");
  EXPECT_EQ(f.tokens.back().text, "bar");
  EXPECT_EQ(f.tokens.back().line, 3);
  EXPECT_FALSE(f.tokens.back().in_directive);
  EXPECT_TRUE(f.tokens[0].in_directive);
}

TEST(LexerTest, IfZeroRegionIsInactiveAndElseIsActive) {
  LexedFile f = Lex("#if 0\na\n#else\nb\n#endif\nc\n");
  ASSERT_EQ(f.tokens.size(), 3u);
  EXPECT_FALSE(f.tokens[0].active);
  EXPECT_TRUE(f.tokens[1].active);
  EXPECT_TRUE(f.tokens[2].active);
  EXPECT_TRUE(f.issues.empty());
}

TEST(LexerTest, NestedConditionalInsideDisabledRegionStaysInactive) {
  LexedFile f = Lex("#if 0\n#ifdef X\na\n#else\nb\n#endif\n#endif\nc");
  EXPECT_EQ(ActiveTexts(f), (std::vector<std::string>{"c"}));
}

TEST(LexerTest, ProfilingGuardIsTrackedWithDepth) {
  LexedFile f = Lex("void f() {\n#if ENABLE_MOE_PROFILING\n  a();\n#else\n  b();\n#endif\n}\n");
  const Token* a = nullptr;
  const Token* b = nullptr;
  for (const Token& t : f.tokens) {
    if (t.Is("a")) a = &t;
    if (t.Is("b")) b = &t;
  }
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->active);
  EXPECT_TRUE(a->in_profiling_guard);
  EXPECT_FALSE(b->active);  // ENABLE_MOE_PROFILING defaults to 1
  ASSERT_EQ(f.guards.size(), 1u);
  EXPECT_EQ(f.guards[0].open_line, 2);
  EXPECT_EQ(f.guards[0].open_depth, 1);
  EXPECT_EQ(f.guards[0].close_line, 4);
}

TEST(LexerTest, UnknownConditionsKeepBothBranchesActive) {
  LexedFile f = Lex("#ifdef __CCE_KT_TEST__\na\n#elif defined(X)\nb\n#else\nc\n#endif\n");
  EXPECT_EQ(ActiveTexts(f), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(LexerTest, UnbalancedConditionalsAreIssues) {
  LexedFile f = Lex("#endif\n#if X\na\n#else\n#else\n");
  ASSERT_EQ(f.issues.size(), 3u);
  EXPECT_EQ(f.issues[0].kind, LexIssue::Kind::kUnmatchedEndif);
  EXPECT_EQ(f.issues[1].kind, LexIssue::Kind::kElseAfterElse);
  EXPECT_EQ(f.issues[2].kind, LexIssue::Kind::kUnclosedIf);
  EXPECT_EQ(f.issues[2].line, 2);
}

TEST(LexerTest, IncludePathsQuotedAndAngled) {
  LexedFile f = Lex("#include \"gemm/block.h\" // x\n#  include <optrace/trace.h>\n");
  ASSERT_EQ(f.directives.size(), 2u);
  EXPECT_EQ(f.directives[0].include_path, "gemm/block.h");
  EXPECT_FALSE(f.directives[0].include_angled);
  EXPECT_EQ(f.directives[1].include_path, "optrace/trace.h");
  EXPECT_TRUE(f.directives[1].include_angled);
}

TEST(LexerTest, TemplateClosersStaySeparate) {
  LexedFile f = Lex("operator()<AscendC::AIV>(); A<B<C>> x;");
  std::vector<std::string> t = ActiveTexts(f);
  EXPECT_EQ(t[4], "AscendC");
  EXPECT_EQ(t[5], "::");
  EXPECT_EQ(t[16], ">");
  EXPECT_EQ(t[17], ">");
}

// ops-transformer allto_all_all_gather_batch_mat_mul: a macro whose lines end in a backslash and
// then spaces. GCC and clang splice them (with a warning), so the braces inside stay in the
// #define and the kernel's braces balance.
TEST(LexerTest, SpacesAfterTheBackslashStillContinueTheLine) {
  LexedFile f = Lex("#define M(x) do { \\   \n  int y = x; \\\t\n} while (0)\nvoid k() { M(1); }\n");
  ASSERT_EQ(f.directives.size(), 1u);
  EXPECT_EQ(f.directives[0].argument, "M(x) do { int y = x; } while (0)");
  EXPECT_EQ(f.tokens.back().text, "}");
  EXPECT_EQ(f.tokens.back().line, 4);
  EXPECT_FALSE(f.tokens.back().in_directive);
}

// A lone quote in a directive line (`#include <gtest/gtest.h>"` in an ops-transformer test) or in a
// skipped region is a compiler warning, not an error: no issue.
TEST(LexerTest, ALoneQuoteInADirectiveOrASkippedRegionIsNoIssue) {
  EXPECT_TRUE(Lex("#include <vector>\"\nint a;\n").issues.empty());
  EXPECT_TRUE(Lex("#if 0\ndon't\n#endif\n").issues.empty());
  LexedFile code = Lex("const char* s = \"abc;\nint b;\n");
  ASSERT_EQ(code.issues.size(), 1u);
  EXPECT_EQ(code.issues[0].kind, LexIssue::Kind::kUnterminatedString);
}

TEST(LexerTest, UnterminatedCommentIsReported) {
  LexedFile f = Lex("a /* b\n");
  ASSERT_EQ(f.issues.size(), 1u);
  EXPECT_EQ(f.issues[0].kind, LexIssue::Kind::kUnterminatedComment);
}

TEST(LexerTest, EvaluatesProfilingConditions) {
  bool guard = false;
  EXPECT_EQ(EvaluateCondition("ENABLE_MOE_PROFILING", &guard), Condition::kTrue);
  EXPECT_TRUE(guard);
  EXPECT_EQ(EvaluateCondition("!ENABLE_MOE_PROFILING", &guard), Condition::kFalse);
  EXPECT_EQ(EvaluateCondition(" ( 0 ) ", &guard), Condition::kFalse);
  EXPECT_FALSE(guard);
  EXPECT_EQ(EvaluateCondition("defined(FOO)", &guard), Condition::kUnknown);
}

TEST(LexerTest, NumbersWithExponentsAndSeparators) {
  LexedFile f = Lex("x = 1'000 + 1e-3 + 0x1fU;");
  std::vector<std::string> t = ActiveTexts(f);
  EXPECT_EQ(t[2], "1'000");
  EXPECT_EQ(t[4], "1e-3");
  EXPECT_EQ(t[6], "0x1fU");
}

}  // namespace
}  // namespace optrace::source
