#include "source/index/token_stream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/index/index_test_util.h"

namespace optrace::source::index {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::IsSupersetOf;
using ::testing::Not;

using Strings = std::vector<std::string>;

TEST(TokenStreamTest, ObjectLikeMacroNamingATemplateArgumentListIsExpanded) {
  // dispatch_normal_a2 writes the class's parameter list through a macro in every out-of-class definition.
  SingleFile f(
      "#define TemplateMC2TypeA2layeredFunc XType, ExpandXOutType, StaticQuant\n"
      "void CamMoeDistributeDispatchA2Layered<TemplateMC2TypeA2layeredFunc>::Process() {}\n");
  EXPECT_THAT(Texts(f.stream()), ElementsAre("void", "CamMoeDistributeDispatchA2Layered", "<", "XType", ",",
                                             "ExpandXOutType", ",", "StaticQuant", ">", "::", "Process", "(", ")",
                                             "{", "}"));
}

TEST(TokenStreamTest, MacroThatIsOneLiteralIsLeftAlone) {
  // Tiling keys (`#define TILING_KEY_FLOAT16 20`) never change the structure: they stay names.
  SingleFile f(
      "#define TILING_KEY_FLOAT16 20\n"
      "#define KERNEL_USE_WORKSPACE (1 * 1024 * 1024)\n"
      "int a = TILING_KEY_FLOAT16 + KERNEL_USE_WORKSPACE;\n");
  EXPECT_THAT(Texts(f.stream()), ElementsAre("int", "a", "=", "TILING_KEY_FLOAT16", "+", "(", "1", "*", "1024", "*",
                                             "1024", ")", ";"));
  EXPECT_EQ(f.files.index().macros().Find("TILING_KEY_FLOAT16"), nullptr);
  ASSERT_NE(f.files.index().macros().Find("KERNEL_USE_WORKSPACE"), nullptr);
}

TEST(TokenStreamTest, VariadicMacroInDoWhileWrapperExpandsItsArguments) {
  // add_rms_norm_bias.cpp: GENERAL_OP_IMPL(templateClass, ...) builds `templateClass<__VA_ARGS__> op(&pipe)`.
  SingleFile f(
      "#define GENERAL_OP_IMPL(templateClass, ...)   \\\n"
      "    do {                                      \\\n"
      "        templateClass<__VA_ARGS__> op(&pipe); \\\n"
      "        op.Process();                         \\\n"
      "    } while (0)\n"
      "void k() {\n"
      "  GENERAL_OP_IMPL(KernelAddRmsNormBias, half);\n"
      "}\n");
  const TokenStream& s = f.stream();
  size_t b = Find(s, "do");
  ASSERT_LT(b, s.size());
  EXPECT_THAT(Texts(s, b, Find(s, ";", 2) + 1),
              ElementsAre("do", "{", "KernelAddRmsNormBias", "<", "half", ">", "op", "(", "&", "pipe", ")", ";", "op",
                          ".", "Process", "(", ")", ";", "}", "while", "(", "0", ")", ";"));
}

TEST(TokenStreamTest, ExtraVariadicArgumentsKeepTheirCommas) {
  SingleFile f(
      "#define GENERAL_OP_IMPL(templateClass, ...) templateClass<__VA_ARGS__> op(&pipe);\n"
      "void k() { GENERAL_OP_IMPL(KernelAddRmsNormBiasMergeN, half, float, 3); }\n");
  const TokenStream& s = f.stream();
  size_t b = Find(s, "KernelAddRmsNormBiasMergeN");
  EXPECT_THAT(Texts(s, b, Find(s, "op")),
              ElementsAre("KernelAddRmsNormBiasMergeN", "<", "half", ",", "float", ",", "3", ">"));
}

TEST(TokenStreamTest, TokenPastingMakesOneIdentifier) {
  // vllm_lora_kernels: `bgmv_shrink_##TYPE` names one kernel entry per dtype.
  SingleFile f(
      "#define BGMV_SHRINK_TYPE_DECLARE(TYPE) \\\n"
      "    extern \"C\" __global__ __aicore__ void bgmv_shrink_##TYPE(__gm__ void* x) \\\n"
      "    { BGMVShrink<TYPE> op(&pipe); op.Process(); }\n"
      "\n"
      "BGMV_SHRINK_TYPE_DECLARE(half)\n");
  const TokenStream& s = f.stream();
  size_t k = Find(s, "bgmv_shrink_half");
  ASSERT_LT(k, s.size());
  EXPECT_TRUE(s.IsIdent(k));
  EXPECT_EQ(s[k].source, nullptr);  // made by the stream, not in any file
  EXPECT_EQ(s[k].line, 5);          // reported at the invocation
  EXPECT_EQ(Find(s, "bgmv_shrink_"), s.size());
  EXPECT_EQ(Find(s, "##"), s.size());
}

TEST(TokenStreamTest, StringizingQuotesTheArgument) {
  SingleFile f(
      "#define STAGE_NAME(x) #x\n"
      "const char* n = STAGE_NAME(dispatch gmm1);\n");
  const TokenStream& s = f.stream();
  size_t k = Find(s, "=") + 1;
  EXPECT_EQ(s.Text(k), "\"dispatch gmm1\"");
  EXPECT_EQ(s[k].tok->kind, TokenKind::kString);
}

TEST(TokenStreamTest, ExpandedTokensAreReportedAtTheInvocationAndKeepTheirDefine) {
  SingleFile f(
      "#define RUN_STAGE(obj) \\\n"
      "  obj.Execute()\n"
      "void k() {\n"
      "  Tail tail;\n"
      "  RUN_STAGE(tail);\n"
      "}\n");
  const TokenStream& s = f.stream();
  size_t k = Find(s, "Execute");
  ASSERT_LT(k, s.size());
  EXPECT_EQ(s[k].line, 5);
  EXPECT_EQ(s[k].macro_depth, 1);
  ASSERT_NE(s[k].macro, nullptr);
  EXPECT_EQ(s[k].macro->name, "RUN_STAGE");
  EXPECT_EQ(s[k].macro->line, 1);
  EXPECT_EQ(s[k].tok->line, 2);  // the body token itself sits on the #define's second line
  // The argument keeps its own position: it was written at the invocation.
  size_t obj = Find(s, "tail", 1);
  EXPECT_EQ(s[obj].macro_depth, 0);
  EXPECT_EQ(s[obj].column, 13);
}

TEST(TokenStreamTest, ArgumentWithCommasInParenthesesIsOneArgument) {
  SingleFile f(
      "#define CHECK_RUN(expr) if (!(expr)) { return; }\n"
      "void k() { CHECK_RUN(Init(a, b)); }\n");
  const TokenStream& s = f.stream();
  size_t b = Find(s, "if");
  EXPECT_THAT(Texts(s, b, Find(s, "{", 1)),
              ElementsAre("if", "(", "!", "(", "Init", "(", "a", ",", "b", ")", ")", ")"));
}

TEST(TokenStreamTest, MacroDoesNotExpandItselfAgain) {
  SingleFile f(
      "#define CopyIn(x) CopyIn(x, 0)\n"
      "void k() { CopyIn(progress); }\n");
  const TokenStream& s = f.stream();
  size_t b = Find(s, "CopyIn");
  EXPECT_THAT(Texts(s, b, Find(s, ";")), ElementsAre("CopyIn", "(", "progress", ",", "0", ")"));
}

TEST(TokenStreamTest, FunctionLikeMacroNameWithoutArgumentsIsJustAName) {
  SingleFile f(
      "#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))\n"
      "auto fn = CEIL_DIV;\n");
  EXPECT_THAT(Texts(f.stream()), ElementsAre("auto", "fn", "=", "CEIL_DIV", ";"));
}

TEST(TokenStreamTest, InactiveRegionsAndDefineBodiesAreNotCode) {
  // `#if 0` and the `#else` of a profiling guard are dropped; the guard's own branch is kept.
  SingleFile f(
      "#if 0\n"
      "void Old() {}\n"
      "#endif\n"
      "#if ENABLE_MOE_PROFILING\n"
      "void Prof() {}\n"
      "#else\n"
      "void NoProf() {}\n"
      "#endif\n"
      "#define HELPER(x) x\n"
      "void New() {}\n");
  Strings t = Texts(f.stream());
  EXPECT_THAT(t, Not(Contains("Old")));
  EXPECT_THAT(t, Not(Contains("NoProf")));
  EXPECT_THAT(t, Not(Contains("HELPER")));
  EXPECT_THAT(t, IsSupersetOf({"Prof", "New"}));
}

TEST(TokenStreamTest, MacroDefinedInAnInactiveBranchIsNotUsed) {
  SingleFile f(
      "#if 0\n"
      "#define RUN(op) op.Legacy()\n"
      "#else\n"
      "#define RUN(op) op.Process()\n"
      "#endif\n"
      "void k() { RUN(kernel); }\n");
  const TokenStream& s = f.stream();
  EXPECT_LT(Find(s, "Process"), s.size());
  EXPECT_EQ(Find(s, "Legacy"), s.size());
}

TEST(TokenStreamTest, ReservedAttributeMacrosStayIdentifiers) {
  // `#define __aicore__ [aicore]` would turn every declaration head into brackets.
  SingleFile f(
      "#define __aicore__ [aicore]\n"
      "__aicore__ inline void Process() {}\n");
  EXPECT_THAT(Texts(f.stream()), ElementsAre("__aicore__", "inline", "void", "Process", "(", ")", "{", "}"));
}

TEST(TokenStreamTest, MacrosOfEveryIndexedFileAreExpandedInTheOthers) {
  IndexedFiles ix({{"op_kernel/add_rms_norm_bias.cpp",
                    "#include \"helpers.h\"\n"
                    "void k() { GENERAL_OP_IMPL(KernelAddRmsNormBias, half); }\n"},
                   {"op_kernel/helpers.h", "#define GENERAL_OP_IMPL(cls, ...) cls<__VA_ARGS__> op(&pipe)\n"}});
  const TokenStream& s = ix.Stream("op_kernel/add_rms_norm_bias.cpp");
  EXPECT_LT(Find(s, "KernelAddRmsNormBias"), s.size());
  EXPECT_EQ(Find(s, "GENERAL_OP_IMPL"), s.size());
}

// Each level doubles its argument twice: A6 alone would be 2^64 tokens. Arguments are expanded
// before substitution, so the budget has to cover that work too, not only the stream's length.
constexpr const char* kDoublyExponentialMacros =
    "#define A0(x) x x\n"
    "#define A1(x) A0(A0(x))\n"
    "#define A2(x) A1(A1(x))\n"
    "#define A3(x) A2(A2(x))\n"
    "#define A4(x) A3(A3(x))\n"
    "#define A5(x) A4(A4(x))\n"
    "#define A6(x) A5(A5(x))\n";

TEST(TokenStreamTest, DoublyExponentialMacroStopsAtTheBudgetAndSaysSo) {
  SingleFile f(std::string(kDoublyExponentialMacros) + "void k() { A6(a++;) }\nvoid after() {}\n");
  const TokenStream& s = f.stream();
  EXPECT_TRUE(s.expansion_capped());
  EXPECT_LT(s.size(), 20'000'000u);
  EXPECT_LT(Find(s, "after"), s.size());  // code past the invocation is still read
}

TEST(TokenStreamTest, UnclosedInvocationsInARescannedBodyAreChargedToTheBudget) {
  // Found by fuzz_macro: each `F(` without its ')' scanned to the end of the body, for every
  // use: 3,000 uses of a body of 3,000 unclosed calls was 1e10 steps (minutes), now capped.
  std::string text = "#define F(x) x\n#define G";
  for (int i = 0; i < 3000; ++i) text += " F(";
  text += "\nvoid k() {";
  for (int i = 0; i < 3000; ++i) text += " G";
  text += " }\nvoid after() {}\n";
  SingleFile f(text);
  EXPECT_TRUE(f.stream().expansion_capped());
  EXPECT_LT(Find(f.stream(), "after"), f.stream().size());
}

TEST(TokenStreamTest, OrdinaryExpansionIsNotCapped) {
  SingleFile f(std::string(kDoublyExponentialMacros) + "void k() { A2(a++;) }\n");
  EXPECT_FALSE(f.stream().expansion_capped());
  size_t n = 0;
  for (size_t i = 0; i < f.stream().size(); ++i) n += f.stream().Is(i, "a");
  EXPECT_EQ(n, 16u);
}

TEST(TokenStreamTest, MatchPairsBracketsMadeByAnExpansion) {
  SingleFile f(
      "#define FOR_EACH_CORE(i) for (uint32_t i = 0; i < coreNum; ++i)\n"
      "void k() { FOR_EACH_CORE(c) { f(a[c]); } }\n");
  const TokenStream& s = f.stream();
  size_t head = Find(s, "(", 1);
  ASSERT_EQ(s.Text(head - 1), "for");
  EXPECT_EQ(s.Match(head), Find(s, ")", 1));
  EXPECT_EQ(s.Match(Find(s, "{", 1)), Find(s, "}"));
  EXPECT_EQ(s.Match(Find(s, "}", 1)), Find(s, "{"));
  EXPECT_EQ(s.Match(Find(s, "[")), Find(s, "]"));
}

TEST(TokenStreamTest, MatchAngleSkipsNestedArgumentsAndRejectsComparisons) {
  SingleFile f(
      "using BlockMmad = BlockMmad<DispatchPolicy, GemmShape<128, 256, 64>, (a > b)>;\n"
      "bool c = x < y && y > z;\n");
  const TokenStream& s = f.stream();
  size_t lt = Find(s, "<");
  EXPECT_EQ(s.MatchAngle(lt), Find(s, ";") - 1);
  size_t cmp = Find(s, "<", 2);
  EXPECT_EQ(s.Text(cmp - 1), "x");
  EXPECT_EQ(s.MatchAngle(cmp), s.size());
}

TEST(TokenStreamTest, JoinKeepsTheSourceSpacing) {
  SingleFile f("using L1TileShape = GemmShape<128,256, 1024>;\n");
  const TokenStream& s = f.stream();
  EXPECT_EQ(s.Join(Find(s, "GemmShape"), Find(s, ";")), "GemmShape<128,256, 1024>");
  EXPECT_EQ(s.Join(0, 2), "using L1TileShape");
}

TEST(TokenStreamTest, IncludeInsideAClassBodyIsSplicedIn) {
  // An `.inc` fragment of methods pulled into a class: its tokens join the class's stream.
  IndexedFiles ix({{"op_kernel/kernel.h",
                    "class KernelMoe {\n"
                    " public:\n"
                    "#include \"kernel_methods.inc\"\n"
                    "};\n"},
                   {"op_kernel/kernel_methods.inc", "__aicore__ inline void Step() { Compute(); }\n"}});
  const TokenStream& s = ix.Stream("op_kernel/kernel.h");
  size_t step = Find(s, "Step");
  ASSERT_LT(step, s.size());
  EXPECT_EQ(s[step].file, ix.File("op_kernel/kernel_methods.inc"));
  EXPECT_LT(step, Find(s, "}", 1));
  // Its declarations are read once, as members of the class.
  ASSERT_EQ(ix.Functions("KernelMoe::Step").size(), 1u);
  EXPECT_THAT(ix.Functions("Step"), IsEmpty());
}

}  // namespace
}  // namespace optrace::source::index
