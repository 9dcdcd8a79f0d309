#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/lint/lint_test_util.h"

namespace optrace::source {
namespace {
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string Marks(const std::string& prefix, int n, const std::string& indent = "  ") {
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string label = prefix + " step" + std::to_string(i);
    out += indent + "MoeTracing(TRACE_POINT(\"" + label + "\", \"B\"));\n";
    out += indent + "MoeTracing(TRACE_POINT(\"" + label + "\", \"E\"));\n";
  }
  return out;
}

const char* kEntry =
    "#include \"op.h\"\n"
    "extern \"C\" __global__ __aicore__ void op(GM_ADDR x, GM_ADDR prof) { OPTRACE_KERNEL_BEGIN();\n"
    "  Op op;\n"
    "  op.Process();\n"
    "  OPTRACE_KERNEL_END(prof);\n"
    "}\n";

// A mixed kernel: Process() splits by ASCEND_IS_AIC into operator()<AIC> / operator()<AIV>.
std::string OpHeader(int aic, int aiv) {
  return "#include \"optrace/trace.h\"\n#include \"gemm/gemm.h\"\n"
         "class Op {\n public:\n"
         "  void Process() {\n"
         "    MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
         "    Gemm gemm;\n"
         "    if ASCEND_IS_AIC {\n      gemm.template operator()<AscendC::AIC>();\n"
         "    } else {\n      gemm.template operator()<AscendC::AIV>();\n    }\n"
         "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n  }\n};\n" +
         std::string(aic < 0 ? "" : "") + (aiv < 0 ? "" : "");
}

std::string GemmHeader(int aic, int aiv) {
  return "class Gemm {\n public:\n  template <int T> void operator()();\n};\n"
         "template <>\ninline void Gemm::operator()<AscendC::AIC>() {\n" +
         Marks("gemm aic", aic) + "}\n" +
         "template <>\ninline void Gemm::operator()<AscendC::AIV>() {\n"
         "  if (g_coreType == AscendC::AIV) {\n" +
         Marks("gemm aiv", aiv, "    ") + "  }\n}\n";
}

TEST(CoverageRulesTest, CountsLabelsPerCoreTypeAndAcceptsTenToThirty) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpHeader(12, 15)},
                         {"op_kernel/gemm/gemm.h", GemmHeader(12, 15)}},
                        false, &r, true),
              IsEmpty());
  ASSERT_TRUE(r.density.known);
  EXPECT_TRUE(r.density.split);
  EXPECT_EQ(r.density.aic_labels.size(), 13u);  // + processing
  EXPECT_EQ(r.density.aiv_labels.size(), 16u);
  EXPECT_EQ(r.entry, "op_kernel/op.cpp");
}

TEST(CoverageRulesTest, TooFewAicLabelsIsDensityAic) {
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpHeader(3, 15)},
                         {"op_kernel/gemm/gemm.h", GemmHeader(3, 15)}},
                        false, nullptr, true),
              ElementsAre("density-aic@op_kernel/op.cpp:2"));
}

TEST(CoverageRulesTest, TooManyAivLabelsIsDensityAiv) {
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpHeader(12, 31)},
                         {"op_kernel/gemm/gemm.h", GemmHeader(12, 31)}},
                        false, nullptr, true),
              ElementsAre("density-aiv@op_kernel/op.cpp:2"));
}

// An op whose Process also runs an epilogue class from its own header.
std::string OpWithEpilogue() {
  return "#include \"optrace/trace.h\"\n#include \"gemm/gemm.h\"\n#include \"epilogue/epi.h\"\n"
         "#include \"unreached/big.h\"\n#include \"common/util.h\"\n"
         "class Op {\n public:\n"
         "  void Process() {\n"
         "    MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
         "    Gemm gemm;\n"
         "    if ASCEND_IS_AIC {\n      gemm.template operator()<AscendC::AIC>();\n"
         "    } else {\n      gemm.template operator()<AscendC::AIV>();\n"
         "      Epi epi;\n      epi.Process(CeilDiv(4, 2));\n    }\n"
         "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n  }\n};\n";
}

const char* kEpilogue =
    "class Epi {\n public:\n"
    "  void Process(int n) {\n"
    "    for (int stage = 0; stage < n; ++stage) {\n"
    "      AscendC::CrossCoreWaitFlag(stage);\n"
    "      Row(stage);\n"
    "    }\n"
    "  }\n"
    "  void Row(int s) {\n    acc_ += s;\n  }\n  int acc_ = 0;\n};\n";

TEST(CoverageRulesTest, CalledMainFlowPhaseWithoutPointsIsCoverageFile) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpWithEpilogue()},
                         {"op_kernel/gemm/gemm.h", GemmHeader(12, 15)},
                         {"op_kernel/epilogue/epi.h", kEpilogue},
                         {"op_kernel/unreached/big.h", "class U {\n  void Process() {\n    for (;;) {}\n  }\n};\n"},
                         {"op_kernel/common/util.h", "inline int CeilDiv(int a, int b) {\n  return (a + b - 1) / b;\n}\n"}},
                        false, &r),
              ElementsAre("coverage-file@op_kernel/epilogue/epi.h:3"));
  // The message names the function and how the kernel reaches it.
  EXPECT_THAT(r.diagnostics[0].message, ::testing::HasSubstr("Epi::Process"));
  EXPECT_THAT(r.diagnostics[0].message, ::testing::HasSubstr("op -> Op::Process -> Epi::Process"));
}

// One B/E around the call in a shell that only forwards ("epilogue" around epi.Process()) does not
// choose the granularity below it: the epilogue's own file is still a gap. A hand range in a
// function that does work of its own (a loop) does.
std::string OpWithEpilogueShell(bool own_work) {
  std::string op = OpWithEpilogue();
  op.replace(op.find("      Epi epi;\n      epi.Process(CeilDiv(4, 2));\n"), std::string("      Epi epi;\n      epi.Process(CeilDiv(4, 2));\n").size(),
             "      RunEpi();\n");
  op.replace(op.find(" public:\n"), std::string(" public:\n").size(),
             std::string(" public:\n  void RunEpi() {\n    MoeTracing(TRACE_POINT(\"epilogue\", \"B\"));\n") +
                 (own_work ? "    for (int r = 0; r < rows_; ++r) {\n      acc_ += r;\n    }\n" : "") +
                 "    Epi epi;\n    epi.Process(CeilDiv(4, 2));\n"
                 "    MoeTracing(TRACE_POINT(\"epilogue\", \"E\"));\n  }\n  int rows_ = 4, acc_ = 0;\n");
  return op;
}

TEST(CoverageRulesTest, AHandRangeInAShellAroundTheCallDoesNotExemptTheImplementation) {
  auto lint = [](bool own_work) {
    return LintFiles({{"op_kernel/op.cpp", kEntry},
                      {"op_kernel/op.h", OpWithEpilogueShell(own_work)},
                      {"op_kernel/gemm/gemm.h", GemmHeader(12, 15)},
                      {"op_kernel/epilogue/epi.h", kEpilogue},
                      {"op_kernel/unreached/big.h", "class U {\n  void Process() {\n    for (;;) {}\n  }\n};\n"},
                      {"op_kernel/common/util.h", "inline int CeilDiv(int a, int b) {\n  return (a + b - 1) / b;\n}\n"}});
  };
  EXPECT_THAT(lint(false), ElementsAre("coverage-file@op_kernel/epilogue/epi.h:3"));
  EXPECT_THAT(lint(true), ::testing::Not(::testing::Contains(::testing::StartsWith("coverage-file"))));
}

TEST(CoverageRulesTest, IncludedButNeverCalledAndHelpersReturningValuesNeedNoPoints) {
  // big.h is included, never called; CeilDiv returns a value; Epi holds a mark.
  std::string epi = kEpilogue;
  epi.replace(epi.find("    for"), 0, "    MoeTracing(TRACE_POINT(\"epi\", \"B\"));\n");
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpWithEpilogue()},
                         {"op_kernel/gemm/gemm.h", GemmHeader(12, 15)},
                         {"op_kernel/epilogue/epi.h", epi},
                         {"op_kernel/unreached/big.h", "class U {\n  void Process() {\n    for (;;) {}\n  }\n};\n"},
                         {"op_kernel/common/util.h", "inline int CeilDiv(int a, int b) {\n  return (a + b - 1) / b;\n}\n"}}),
              ::testing::Not(::testing::Contains(::testing::StartsWith("coverage-file"))));
}

TEST(CoverageRulesTest, CodeBelowARangeTracedByHandNeedsNoPoints) {
  // Gemm's operator()s hold marks: what they call (the epilogue here) is their author's choice.
  std::string gemm = GemmHeader(12, 15);
  gemm.replace(gemm.rfind("  }\n}\n"), 0, "    Epi epi;\n    epi.Process(2);\n");
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpHeader(12, 15) + "#include \"epilogue/epi.h\"\n"},
                         {"op_kernel/gemm/gemm.h", "#include \"epilogue/epi.h\"\n" + gemm},
                         {"op_kernel/epilogue/epi.h", kEpilogue}}),
              IsEmpty());
}

TEST(CoverageRulesTest, SingleCoreKernelIsCheckedOnItsOwnCoreTypeOnly) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"k.cu", "#include \"optrace/trace.h\"\n__global__ void k(GM_ADDR p) { OPTRACE_KERNEL_BEGIN();\n"
                                  "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                  "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n  OPTRACE_KERNEL_END(p);\n}\n"}},
                        false, &r, true),
              ElementsAre("density-aiv@k.cu:2"));  // no cube code: an AIV-only kernel
  EXPECT_TRUE(r.density.known);
  EXPECT_FALSE(r.density.split);
}

TEST(CoverageRulesTest, EntryThatNeverSetsUpTheBufferIsEntryBuffer) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"k.cu", "#include \"optrace/trace.h\"\n__global__ void k(GM_ADDR p) {\n"
                                  "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                  "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n"}},
                        false, &r),
              ElementsAre("entry-buffer@k.cu:2"));
  for (const Diagnostic& d : r.diagnostics)
    if (d.rule == "entry-buffer") {
      EXPECT_THAT(d.message, ::testing::HasSubstr("never sets up the per-core buffer"));
    }
}

TEST(CoverageRulesTest, EntryThatNeverWritesTheBufferBackIsEntryBuffer) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"k.cu", "#include \"optrace/trace.h\"\n__global__ void k(GM_ADDR p) {\n"
                                  "  OPTRACE_KERNEL_BEGIN();\n  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                  "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n"}},
                        false, &r),
              ElementsAre("entry-buffer@k.cu:2"));
  for (const Diagnostic& d : r.diagnostics)
    if (d.rule == "entry-buffer") {
      EXPECT_THAT(d.message, ::testing::HasSubstr("never writes it back"));
    }
}

TEST(CoverageRulesTest, ReturnWithoutWriteBackIsEntryBufferAtTheReturn) {
  // hc_pre's shape: one OPTRACE_KERNEL_END per exit; the early exit lost its own.
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\n"
                                   "extern \"C\" __global__ void k(GM_ADDR ws, GM_ADDR p) { OPTRACE_KERNEL_BEGIN();\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "  if (ws == nullptr) {\n"
                                   "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "    return;\n  }\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "  OPTRACE_KERNEL_END(p);\n}\n"}}),
              ElementsAre("entry-buffer@k.cpp:6"));
}

TEST(CoverageRulesTest, WriteBackOnlyInABranchIsEntryBufferAtTheEnd) {
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\n"
                                   "extern \"C\" __global__ void k(int n, GM_ADDR p) { OPTRACE_KERNEL_BEGIN();\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "  if (n > 0) {\n    OPTRACE_KERNEL_END(p);\n  }\n}\n"}}),
              ElementsAre("entry-buffer@k.cpp:8"));
}

TEST(CoverageRulesTest, EveryExitWritingBackIsFine) {
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\n"
                                   "extern \"C\" __global__ void k(GM_ADDR ws, GM_ADDR p) { OPTRACE_KERNEL_BEGIN();\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "  if (ws == nullptr) {\n"
                                   "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "    OPTRACE_KERNEL_END(p);\n    return;\n  }\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "  OPTRACE_KERNEL_END(p);\n  return;\n}\n"}}),
              IsEmpty());
}

TEST(CoverageRulesTest, WriteBackInAPlainBlockThatEndsTheBodyIsFine) {
  // What instrument writes for `return Run(x);` (swish): a plain block, not a branch.
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\n"
                                   "inline void Run(GM_ADDR x) {}\n"
                                   "extern \"C\" __global__ void k(GM_ADDR x, GM_ADDR p) { OPTRACE_KERNEL_BEGIN();\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "  { Run(x); MoeTracing(TRACE_POINT(\"processing\", \"E\")); "
                                   "OPTRACE_KERNEL_END(p); return; }\n}\n"}}),
              IsEmpty());
}

TEST(CoverageRulesTest, CoreTypeLeavingAtOnceNeedsNoWriteBack) {
  // grouped_matmul's cube-only paths: a macro whose first act on AIV cores is to return. Those
  // cores have no work there, their slots rightly stay empty.
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\n"
                                   "#define CUBE_ONLY(f) do { if ASCEND_IS_AIV { return; } f(); } while (0)\n"
                                   "inline void Mm() {}\n"
                                   "extern \"C\" __global__ void k(GM_ADDR x, GM_ADDR p) { OPTRACE_KERNEL_BEGIN();\n"
                                   "  if (x == nullptr) {\n    if (g_coreType == AscendC::AIC) return;\n  }\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "  CUBE_ONLY(Mm);\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "  OPTRACE_KERNEL_END(p);\n}\n"}}),
              IsEmpty());
  // A return after work on that core is still one that loses the buffer.
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\n"
                                   "inline void Mm() {}\n"
                                   "extern \"C\" __global__ void k(GM_ADDR x, GM_ADDR p) { OPTRACE_KERNEL_BEGIN();\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "  if ASCEND_IS_AIV {\n    Mm();\n    return;\n  }\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "  OPTRACE_KERNEL_END(p);\n}\n"}}),
              ::testing::Contains("entry-buffer@k.cpp:7"));
}

TEST(CoverageRulesTest, ExitMarkOfARangeOpenedBeforeTheGroupLoopNeedsNoIndex) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  MoeTracing(TRACE_POINT(\"expert\", \"B\"));\n"
                                          "  for (uint32_t groupIdx = 0; groupIdx < n; ++groupIdx) {\n"
                                          "    if (groupIdx == 3) {\n"
                                          "      MoeTracing(TRACE_POINT(\"expert\", \"E\"));\n"
                                          "      MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                          "      OPTRACE_KERNEL_END(prof);\n      return;\n    }\n    Work();\n  }\n"
                                          "  MoeTracing(TRACE_POINT(\"expert\", \"E\"));\n")}}),
              IsEmpty());
}

TEST(CoverageRulesTest, ProcessingOpenedAgainInACalleeIsRootLabel) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"k.cpp", "#include \"optrace/trace.h\"\n"
                                   "inline void Inner() {\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "}\n"
                                   "extern \"C\" __global__ void k(GM_ADDR p) { OPTRACE_KERNEL_BEGIN();\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                   "  Inner();\n"
                                   "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                                   "  OPTRACE_KERNEL_END(p);\n}\n"}},
                        false, &r),
              ElementsAre("root-label@k.cpp:3"));
  EXPECT_THAT(r.diagnostics[0].message, ::testing::HasSubstr("opened again in Inner"));
}

TEST(CoverageRulesTest, GroupLoopRangeWithoutTheLoopIndexIsIndexGroupLoop) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  for (uint32_t groupIdx = 0; groupIdx < n; ++groupIdx) {\n"
                                          "    MoeTracing(TRACE_POINT(\"expert\", \"B\"));\n"
                                          "    MoeTracing(TRACE_POINT(\"expert\", \"E\"));\n  }\n")}}),
              ElementsAre("index-group-loop@k.cpp:5", "index-group-loop@k.cpp:6"));
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  for (uint32_t groupIdx = 0; groupIdx < n; ++groupIdx) {\n"
                                          "    MoeTracing(TRACE_POINT(\"expert\", \"B\"), groupIdx);\n"
                                          "    MoeTracing(TRACE_POINT(\"expert\", \"E\"), groupIdx);\n  }\n")}}),
              IsEmpty());
}

// The fused MoE operator: a B/E pair under `if (groupIdx + 1 == groupNum - k)` inside the group
// loop runs for one group only; it needs no index. `groupIdx == 0 || groupIdx == last` runs for two.
TEST(CoverageRulesTest, GroupLoopRangeThatRunsForOneGroupNeedsNoIndex) {
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  for (uint32_t groupIdx = 0; groupIdx < n; ++groupIdx) {\n"
                                          "    if (flag && groupIdx + 1 == n - 2) {\n"
                                          "      MoeTracing(TRACE_POINT(\"expert\", \"B\"));\n"
                                          "      MoeTracing(TRACE_POINT(\"expert\", \"E\"));\n    }\n  }\n")}}),
              IsEmpty());
  EXPECT_THAT(LintFiles({{"k.cpp", Kernel("  for (uint32_t groupIdx = 0; groupIdx < n; ++groupIdx) {\n"
                                          "    if (groupIdx == 0 || groupIdx == n - 1) {\n"
                                          "      MoeTracing(TRACE_POINT(\"expert\", \"B\"));\n"
                                          "      MoeTracing(TRACE_POINT(\"expert\", \"E\"));\n    }\n  }\n")}}),
              ElementsAre("index-group-loop@k.cpp:6", "index-group-loop@k.cpp:7"));
}

// Seed 000's form where the entry copies the stack buffer to GM itself, element by element,
// inside `if (profiling_data != nullptr)` in a TILING_KEY_IS arm: the cache clean is optional.
TEST(CoverageRulesTest, StackBufferCopiedToGlobalMemoryIsAWriteBack) {
  auto entry = [](const std::string& copy) {
    return std::string("#include \"moe_base.h\"\n"
                       "extern \"C\" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR profiling_data) {\n"
                       "  if (TILING_KEY_IS(1)) {\n"
                       "    int64_t buf[PROF_SIZE_PER_CORE] = {0};\n"
                       "    SetMoeProfilePtr(buf);\n"
                       "    MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                       "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
                       "    if (profiling_data != nullptr) {\n"
                       "      AscendC::GlobalTensor<int64_t> coreGlobal;\n"
                       "      coreGlobal.SetGlobalBuffer((__gm__ int64_t*)profiling_data + GetBlockIdx() * PROF_SIZE_PER_CORE);\n"
                       "      for (int i = 0; i < PROF_SIZE_PER_CORE; ++i) {\n") +
           copy +
           "      }\n"
           "    }\n"
           "  }\n"
           "}\n";
  };
  const char* base =
      "#define PROF_SIZE_PER_CORE 1024\n"
      "inline void SetMoeProfilePtr(int64_t* p) {}\n"
      "#define TRACE_POINT(l, t) 0\n"
      "inline void MoeTracing(int id) {}\n";
  EXPECT_THAT(LintFiles({{"moe_base.h", base}, {"k.cpp", entry("        coreGlobal(i) = buf[i];\n")}}), IsEmpty());
  EXPECT_THAT(LintFiles({{"moe_base.h", base}, {"k.cpp", entry("        coreGlobal.SetValue(i, buf[i]);\n")}}),
              IsEmpty());
  // Filling the buffer is not writing it back.
  EXPECT_THAT(LintFiles({{"moe_base.h", base}, {"k.cpp", entry("        buf[i] = 0;\n")}}),
              ElementsAre("entry-buffer@k.cpp:2"));
}

// Two kernels in one tree; the second's root, in the header its class lives in, was renamed.
// "processing" still appears in the tree (the first kernel's), so only a per-kernel check sees it.
TEST(CoverageRulesTest, AKernelWhoseRootInAHeaderWasRenamedIsRootLabel) {
  auto header = [](const std::string& cls, const std::string& root) {
    return "#include \"optrace/trace.h\"\n"
           "class " + cls + " {\n public:\n  __aicore__ inline void Process() {\n"
           "    MoeTracing(TRACE_POINT(\"" + root + "\", \"B\"));\n"
           "    MoeTracing(TRACE_POINT(\"" + root + " work\", \"B\"));\n"
           "    MoeTracing(TRACE_POINT(\"" + root + " work\", \"E\"));\n"
           "    MoeTracing(TRACE_POINT(\"" + root + "\", \"E\"));\n  }\n};\n";
  };
  auto entry = [](const std::string& name, const std::string& cls) {
    return "#include \"" + name + ".h\"\n"
           "extern \"C\" __global__ __aicore__ void " + name + "(GM_ADDR x, GM_ADDR prof) {\n"
           "  OPTRACE_KERNEL_BEGIN();\n  " + cls + " op;\n  op.Process();\n  OPTRACE_KERNEL_END(prof);\n}\n";
  };
  EXPECT_THAT(LintFiles({{"a.h", header("A", "processing")}, {"a.cpp", entry("a", "A")},
                         {"b.h", header("B", "processing")}, {"b.cpp", entry("b", "B")}}),
              IsEmpty());
  LintReport r;
  EXPECT_THAT(LintFiles({{"a.h", header("A", "processing")}, {"a.cpp", entry("a", "A")},
                         {"b.h", header("B", "process")}, {"b.cpp", entry("b", "B")}},
                        false, &r),
              ElementsAre("root-label@b.cpp:2"));
  std::string message;
  for (const auto& d : r.diagnostics)
    if (d.rule == "root-label") message = d.message;
  EXPECT_THAT(message, ::testing::HasSubstr("kernel b records marks (\"process\" at b.h:5)"));
}

}  // namespace
}  // namespace optrace::source
