#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/lint/lint_test_util.h"

namespace optrace::source {
namespace {
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Kernel() puts the body at line 4.

TEST(LabelRulesTest, CleanKernelHasNoFindings) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"dispatch send-token\", \"B\"), n);\n"
                                          "  MoeTracing(TRACE_POINT(\"dispatch send-token\", \"E\"), n);\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, DeeplyNestedKernelIsLintedInLinearTime) {
  // Issue 29.10: finding each mark's function walked every enclosing block: 80,000 nested braces
  // took > 20 s (then overflowed the stack in the body parser).
  std::string text = "#include \"optrace/trace.h\"\nextern \"C\" __global__ __aicore__ void k(GM_ADDR x) {\n";
  for (int i = 0; i < 80000; ++i) text += "{\n";
  text += "MoeTracing(TRACE_POINT(\"inner\", \"B\"));\nWork();\nMoeTracing(TRACE_POINT(\"inner\", \"E\"));\n";
  for (int i = 0; i < 80000; ++i) text += "}\n";
  text += "}\n";
  std::vector<std::string> f = LintFiles({{"op_kernel/k.cpp", text}});
  for (const std::string& x : f) EXPECT_EQ(x.find("pairing"), std::string::npos) << x;
}

TEST(LabelRulesTest, EInAPlainBlockClosesTheRangeAroundIt) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"step\", \"B\"));\n"
                                          "  { Work(); MoeTracing(TRACE_POINT(\"step\", \"E\")); }\n")}}),
              IsEmpty());
  // A case's block is a branch: closing there closes on one path only.
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"step\", \"B\"));\n"
                                          "  switch (n) {\n    case 1: { MoeTracing(TRACE_POINT(\"step\", \"E\")); break; }\n"
                                          "    default: break;\n  }\n")}}),
              ::testing::Not(IsEmpty()));
}

TEST(LabelRulesTest, UppercaseOrUnderscoreLabelIsLabelStyle) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"Dispatch_Send\", \"B\"));\n"
                                          "  MoeTracing(TRACE_POINT(\"Dispatch_Send\", \"E\"));\n")}}),
              ElementsAre("label-style@k.cpp:4", "label-style@k.cpp:5"));
}

TEST(LabelRulesTest, DoubleSpaceIsLabelStyle) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"a  b\", \"B\");\n  TRACE_POINT(\"a  b\", \"E\");\n")}}),
              ElementsAre("label-style@k.cpp:4", "label-style@k.cpp:5"));
}

TEST(LabelRulesTest, EventTypeOtherThanBOrEIsEventType) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"x\", \"begin\"));\n")}}),
              ElementsAre("event-type@k.cpp:4"));
}

TEST(LabelRulesTest, MissingProcessingIsRootLabel) {
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\nvoid f() {\n  TRACE_POINT(\"x\", \"B\");\n"
                                   "  TRACE_POINT(\"x\", \"E\");\n}\n"}}),
              ElementsAre("root-label@k.cpp:3"));
}

TEST(LabelRulesTest, NestedProcessingIsRootLabel) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"processing\", \"B\");\n  TRACE_POINT(\"processing\", \"E\");\n")}}),
              ElementsAre("root-label@k.cpp:4"));
}

TEST(LabelRulesTest, LabelWithMoreThanSevenLevelsIsDepth) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"a b c d e f g\", \"B\");\n  TRACE_POINT(\"a b c d e f g\", \"E\");\n")}}),
              ElementsAre("depth@k.cpp:4", "depth@k.cpp:5"));
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"a b c d e f\", \"B\");\n  TRACE_POINT(\"a b c d e f\", \"E\");\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, NestingDeeperThanSevenIsDepth) {
  std::string body;
  for (char c = 'a'; c <= 'g'; ++c) body += std::string("  TRACE_POINT(\"") + c + "\", \"B\");\n";
  for (char c = 'g'; c >= 'a'; --c) body += std::string("  TRACE_POINT(\"") + c + "\", \"E\");\n";
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel(body)}}), ElementsAre("depth@k.cpp:10"));
}

TEST(LabelRulesTest, BWithoutEIsPairing) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"gemm\", \"B\"));\n")}}),
              ElementsAre("pairing@k.cpp:4"));
}

TEST(LabelRulesTest, EWithoutBIsPairing) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"gemm\", \"E\"));\n")}}),
              ElementsAre("pairing@k.cpp:4"));
}

TEST(LabelRulesTest, CrossedRangesArePairing) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"a\", \"B\");\n  TRACE_POINT(\"b\", \"B\");\n"
                                          "  TRACE_POINT(\"a\", \"E\");\n  TRACE_POINT(\"b\", \"E\");\n")}}),
              ElementsAre("pairing@k.cpp:6", "pairing@k.cpp:7"));
}

TEST(LabelRulesTest, BOpenedInsideLoopBodyAndClosedOutsideIsPairing) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  for (int g = 0; g < n; ++g) {\n    TRACE_POINT(\"group\", \"B\");\n  }\n"
                                          "  TRACE_POINT(\"group\", \"E\");\n")}}),
              ElementsAre("pairing@k.cpp:5", "pairing@k.cpp:7"));
}

TEST(LabelRulesTest, SameConditionBranchesMayOpenAndCloseLater) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  if (n == 1) {\n    TRACE_POINT(\"up\", \"B\");\n  } else {\n"
                                          "    TRACE_POINT(\"down\", \"B\");\n  }\n  work();\n"
                                          "  if (n == 1) {\n    TRACE_POINT(\"up\", \"E\");\n  } else {\n"
                                          "    TRACE_POINT(\"down\", \"E\");\n  }\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, InvalidEventTypeIsReportedOnceNotAsAnUnpairedPartner) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"wait\", \"S\"));\n"
                                          "  MoeTracing(TRACE_POINT(\"wait\", \"E\"));\n")}}),
              ElementsAre("event-type@k.cpp:4"));
}

TEST(LabelRulesTest, BranchOpenNeverClosedIsPairing) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  if (n == 1) {\n    TRACE_POINT(\"up\", \"B\");\n  }\n")}}),
              ElementsAre("pairing@k.cpp:5"));
}

TEST(LabelRulesTest, ReturnWithOpenRangeIsEarlyReturn) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"wait\", \"B\");\n  if (n == 0) return;\n"
                                          "  TRACE_POINT(\"wait\", \"E\");\n")}}),
              ElementsAre("early-return@k.cpp:5", "entry-buffer@k.cpp:5"));  // the return also skips the write-back
}

TEST(LabelRulesTest, ReturnAfterClosingItsRangesIsFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"wait\", \"B\");\n  if (n == 0) {\n"
                                          "    TRACE_POINT(\"wait\", \"E\");\n"
                                          "    TRACE_POINT(\"processing\", \"E\");\n    OPTRACE_KERNEL_END(prof);\n    return;\n  }\n"
                                          "  TRACE_POINT(\"wait\", \"E\");\n")}}),
              IsEmpty());
}

// A helper function after the kernel, with no processing range: a return there leaves nothing else open.
std::string Helper(const std::string& body) { return Kernel("") + "void h(int x) {\n" + body + "}\n"; }

TEST(LabelRulesTest, RangeClosedInIfThatReturnsAndInElseIsFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", Helper("  TRACE_POINT(\"a\", \"B\");\n  if (x) {\n    TRACE_POINT(\"a\", \"E\");\n"
                                          "    return;\n  } else {\n    TRACE_POINT(\"a\", \"E\");\n  }\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, RangeClosedInBothIfAndElseBranchesIsFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"a\", \"B\");\n  if (n) {\n    work();\n"
                                          "    TRACE_POINT(\"a\", \"E\");\n  } else {\n    other();\n"
                                          "    TRACE_POINT(\"a\", \"E\");\n  }\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, RangeClosedInIfButNotInElseIsPairing) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"a\", \"B\");\n  if (n) {\n"
                                          "    TRACE_POINT(\"a\", \"E\");\n  } else {\n    other();\n  }\n")}}),
              ElementsAre("pairing@k.cpp:4", "pairing@k.cpp:6"));
}

TEST(LabelRulesTest, RangeClosedAgainAfterBothBranchesClosedItIsPairing) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"a\", \"B\");\n  if (n) {\n    TRACE_POINT(\"a\", \"E\");\n"
                                          "  } else {\n    TRACE_POINT(\"a\", \"E\");\n  }\n"
                                          "  TRACE_POINT(\"a\", \"E\");\n")}}),
              ElementsAre("pairing@k.cpp:10"));
}

TEST(LabelRulesTest, PreprocessorAlternativesEachOpeningTheRangeAreFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("#ifdef FAST\n  TRACE_POINT(\"a\", \"B\");\n#else\n"
                                          "  TRACE_POINT(\"a\", \"B\");\n#endif\n  TRACE_POINT(\"a\", \"E\");\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, PreprocessorAlternativesOpeningDifferentRangesArePairing) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("#ifdef FAST\n  TRACE_POINT(\"a\", \"B\");\n#else\n"
                                          "  TRACE_POINT(\"b\", \"B\");\n#endif\n  TRACE_POINT(\"a\", \"E\");\n")}}),
              ElementsAre("pairing@k.cpp:7", "pairing@k.cpp:9"));
}

TEST(LabelRulesTest, BreakLeavingARangeOfTheLoopBodyOpenIsEarlyReturn) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  for (int i = 0; i < n; ++i) {\n    TRACE_POINT(\"step\", \"B\");\n"
                                          "    if (i == 3) break;\n    TRACE_POINT(\"step\", \"E\");\n  }\n")}},
                        false, &r),
              ElementsAre("early-return@k.cpp:6"));
  ASSERT_EQ(r.Count(Severity::kError), 1u);
  for (const Diagnostic& d : r.diagnostics)
    if (d.rule == "early-return") {
      EXPECT_NE(d.message.find("break leaves \"step\""), std::string::npos) << d.message;
    }
}

TEST(LabelRulesTest, ContinueLeavingARangeOfTheLoopBodyOpenIsEarlyReturn) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  for (int i = 0; i < n; ++i) {\n    TRACE_POINT(\"step\", \"B\");\n"
                                          "    if (i == 3) {\n      continue;\n    }\n"
                                          "    TRACE_POINT(\"step\", \"E\");\n  }\n")}}),
              ElementsAre("early-return@k.cpp:7"));
}

TEST(LabelRulesTest, BreakAfterClosingTheLoopBodyRangesIsFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"loop\", \"B\");\n  for (int i = 0; i < n; ++i) {\n"
                                          "    TRACE_POINT(\"step\", \"B\");\n    switch (i) {\n      case 1: break;\n    }\n"
                                          "    if (i == 3) {\n      TRACE_POINT(\"step\", \"E\");\n      break;\n    }\n"
                                          "    TRACE_POINT(\"step\", \"E\");\n  }\n  TRACE_POINT(\"loop\", \"E\");\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, LambdaBodiesArePairedOnTheirOwn) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  auto f = [&](int i) {\n    TRACE_POINT(\"step\", \"B\");\n"
                                          "    TRACE_POINT(\"step\", \"E\");\n  };\n  f(1);\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, CollidingLabelsAreLabelCollision) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  TRACE_POINT(\"phase 36123\", \"B\");\n  TRACE_POINT(\"phase 36123\", \"E\");\n"
                                          "  TRACE_POINT(\"phase 411380\", \"B\");\n  TRACE_POINT(\"phase 411380\", \"E\");\n")}}),
              ElementsAre("label-collision@k.cpp:6", "label-collision@k.cpp:7"));
}

TEST(LabelRulesTest, MarksInCommentsStringsAndDisabledCodeDoNotCount) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  // TRACE_POINT(\"x\", \"B\");\n  const char* s = \"TRACE_POINT(\\\"y\\\", \\\"B\\\")\";\n"
                                          "#if 0\n  TRACE_POINT(\"z\", \"B\");\n#endif\n")}}),
              IsEmpty());
}

TEST(LabelRulesTest, SuppressionCommentSilencesARule) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  // optrace-lint: disable-line=pairing\n"
                                          "  MoeTracing(TRACE_POINT(\"gemm\", \"B\"));\n")}}),
              IsEmpty());
}

}  // namespace
}  // namespace optrace::source
