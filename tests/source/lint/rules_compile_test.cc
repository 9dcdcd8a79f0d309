#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/lint/lint_test_util.h"

namespace optrace::source {
namespace {
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CompileRulesTest, NonLiteralLabelIsTraceSyntax) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(name, \"B\"));\n")}}),
              ElementsAre("trace-syntax@k.cpp:4"));
}

TEST(CompileRulesTest, RewrittenIdThatDoesNotMatchItsCommentIsTraceSyntax) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(0x12 /* TRACE_POINT(\"a\", \"B\") */);\n"
                                          "  MoeTracing(TRACE_POINT(\"a\", \"E\"));\n")}}),
              ElementsAre("trace-syntax@k.cpp:4"));
}

// A mark between `#pragma unroll` and its loop does not compile with clang / bisheng.
TEST(CompileRulesTest, AMarkBetweenALoopPragmaAndItsLoopIsTraceSyntax) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("#pragma unroll\n  MoeTracing(TRACE_POINT(\"fill\", \"B\"));\n"
                                          "  for (int i = 0; i < 4; ++i) { x[i] = 0; }\n"
                                          "  MoeTracing(TRACE_POINT(\"fill\", \"E\"));\n")}}),
              ElementsAre("trace-syntax@k.cpp:5"));
}

TEST(CompileRulesTest, AMarkAboveTheLoopPragmaIsFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"fill\", \"B\"));\n#pragma unroll\n"
                                          "  for (int i = 0; i < 4; ++i) { x[i] = 0; }\n"
                                          "  MoeTracing(TRACE_POINT(\"fill\", \"E\"));\n")}}),
              IsEmpty());
}

TEST(CompileRulesTest, UnclosedBraceIsBraceBalanceAtTheOpening) {
  EXPECT_THAT(LintFiles({{"k.cpp", "void f() {\n  if (x) {\n    g();\n}\n"}}), ElementsAre("brace-balance@k.cpp:1"));
}

TEST(CompileRulesTest, MismatchedBracketIsBraceBalance) {
  EXPECT_THAT(LintFiles({{"k.cpp", "void f() {\n  g(a, b];\n}\n"}}), ElementsAre("brace-balance@k.cpp:2"));
}

// fused_patch_mlp: `#ifdef __CCE_KT_TEST__  if (true) {  #else  if ASCEND_IS_AIV {  #endif`: the
// arms are alternatives that open the same block.
TEST(CompileRulesTest, IfdefArmsThatEachOpenTheBlockAreBalanced) {
  EXPECT_THAT(LintFiles({{"k.cpp", "void f(int a) {\n#ifdef X\n  if (a) {\n#elif defined(Y)\n  if (a > 2) {\n#else\n"
                                   "  if (a > 1) {\n#endif\n    a--;\n  }\n}\n"}}),
              IsEmpty());
}

TEST(CompileRulesTest, AnIfZeroArmDoesNotHideTheOpeningOfTheActiveArm) {
  EXPECT_THAT(LintFiles({{"k.cpp", "void f(int a) {\n#if 0\n  if (a) {\n#else\n  if (!a) {\n#endif\n    a++;\n  }\n}\n"}}),
              IsEmpty());
}

TEST(CompileRulesTest, AnArmThatIsUnbalancedOnItsOwnIsStillFound) {
  EXPECT_THAT(LintFiles({{"k.cpp", "void f(int a) {\n#ifdef X\n  if (a) {\n    a++;\n#endif\n}\n"}}),
              ElementsAre("brace-balance@k.cpp:1"));
}

TEST(CompileRulesTest, BalancedCodeWithBracesInStringsIsFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", "void f() {\n  puts(\"{(\");  // }\n  char c = '}';\n}\n"}}), IsEmpty());
}

TEST(CompileRulesTest, IfWithoutEndifIsPpBalance) {
  EXPECT_THAT(LintFiles({{"k.h", "#ifndef K_H\n#define K_H\nint x;\n"}}), ElementsAre("pp-balance@k.h:1"));
}

TEST(CompileRulesTest, StrayEndifIsPpBalance) {
  EXPECT_THAT(LintFiles({{"k.h", "int x;\n#endif\n"}}), ElementsAre("pp-balance@k.h:2"));
}

TEST(CompileRulesTest, UnterminatedStringIsLiteralClosed) {
  EXPECT_THAT(LintFiles({{"k.h", "const char* s = \"abc;\nint y;\n"}}), ElementsAre("literal-closed@k.h:1"));
}

TEST(CompileRulesTest, UnclosedProfilingGuardIsGuardClosed) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("#if ENABLE_MOE_PROFILING\n  TRACE_POINT(\"a\", \"B\");\n  TRACE_POINT(\"a\", \"E\");\n")}}),
              ElementsAre("guard-closed@k.cpp:4"));
}

TEST(CompileRulesTest, GuardClosedInAnotherBlockIsGuardClosed) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("#if ENABLE_MOE_PROFILING\n  if (n) {\n#endif\n    work();\n  }\n")}}),
              ElementsAre("guard-closed@k.cpp:6"));
}

TEST(CompileRulesTest, GuardClosedInItsBlockIsFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("#if ENABLE_MOE_PROFILING\n  TRACE_POINT(\"a\", \"B\");\n"
                                          "  TRACE_POINT(\"a\", \"E\");\n#endif\n")}}),
              IsEmpty());
}

TEST(CompileRulesTest, HeaderWithoutReachableDefinitionIsHeaderReachable) {
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"sub/phase.h\"\n"},
                         {"sub/phase.h", "inline void Phase() {\n  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                         "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n"}}),
              ElementsAre("header-reachable@sub/phase.h:2"));
}

TEST(CompileRulesTest, HeaderIncludedAfterBaseByTheTranslationUnitReaches) {
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"k_base.h\"\n#include \"sub/phase.h\"\n"},
                         {"k_base.h", "#include \"optrace/trace.h\"\n"},
                         {"sub/phase.h", "inline void Phase() {\n  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                         "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n"}}),
              IsEmpty());
}

TEST(CompileRulesTest, MacroExpandingPastTheBudgetIsAWarningNotACrash) {
  // issue 29.6: seven lines of doubly exponential macros took lint to 10-19 GB and a crash.
  std::string bomb =
      "#define A0(x) x x\n#define A1(x) A0(A0(x))\n#define A2(x) A1(A1(x))\n#define A3(x) A2(A2(x))\n"
      "#define A4(x) A3(A3(x))\n#define A5(x) A4(A4(x))\n#define A6(x) A5(A5(x))\n";
  EXPECT_THAT(LintFiles({{"op_kernel/bomb.h", bomb},
                         {"op_kernel/k.cpp", "#include \"bomb.h\"\n" + Kernel("  A6(n++;)\n")}},
                        /*op=*/true),
              ::testing::Contains("macro-budget@op_kernel/k.cpp:1"));
}

TEST(CompileRulesTest, UndeclaredIndexIsIndexScope) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  for (int g = 0; g < n; ++g) {\n  }\n"
                                          "  MoeTracing(TRACE_POINT(\"x\", \"B\"), groupIdx);\n"
                                          "  MoeTracing(TRACE_POINT(\"x\", \"E\"), g);\n")}}),
              ElementsAre("index-scope@k.cpp:6", "index-scope@k.cpp:7"));
}

TEST(CompileRulesTest, StructuredBindingNamesAreInScope) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  auto [g, e] = Split(n);\n  const auto& [r, c] = Pos(n);\n"
                                          "  MoeTracing(TRACE_POINT(\"x\", \"B\"), g, e);\n"
                                          "  MoeTracing(TRACE_POINT(\"x\", \"E\"), r, c);\n")}}),
              IsEmpty());
}

TEST(CompileRulesTest, NameUsedOnlyInsideASubscriptIsNotDeclared) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  int v = table[g, e];\n"
                                          "  MoeTracing(TRACE_POINT(\"x\", \"B\"), g);\n"
                                          "  MoeTracing(TRACE_POINT(\"x\", \"E\"), v);\n")}}),
              ElementsAre("index-scope@k.cpp:5"));
}

TEST(CompileRulesTest, LoopIndexParameterAndMemberAreInScope) {
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\nclass Op {\n public:\n"
                                   "  void Run(int stage) {\n"
                                   "    MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "    for (uint32_t g = 0; g < groups_; ++g) {\n"
                                   "      MoeTracing(TRACE_POINT(\"g\", \"B\"), stage, g);\n"
                                   "      MoeTracing(TRACE_POINT(\"g\", \"E\"), stage, ctx_.idx);\n"
                                   "    }\n"
                                   "    MoeTracing(TRACE_POINT(\"m\", \"B\"), groups_);\n"
                                   "    MoeTracing(TRACE_POINT(\"m\", \"E\"), static_cast<uint32_t>(stage));\n"
                                   "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n  }\n"
                                   "  int groups_;\n  Ctx ctx_;\n};\n"}}),
              IsEmpty());
}

}  // namespace
}  // namespace optrace::source
