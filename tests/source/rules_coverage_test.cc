#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lint_test_util.h"

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
    "extern \"C\" __global__ __aicore__ void op(GM_ADDR x) {\n"
    "  Op op;\n"
    "  op.Process();\n"
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
                        false, &r),
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
                         {"op_kernel/gemm/gemm.h", GemmHeader(3, 15)}}),
              ElementsAre("density-aic@op_kernel/op.cpp:2"));
}

TEST(CoverageRulesTest, TooManyAivLabelsIsDensityAiv) {
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpHeader(12, 31)},
                         {"op_kernel/gemm/gemm.h", GemmHeader(12, 31)}}),
              ElementsAre("density-aiv@op_kernel/op.cpp:2"));
}

TEST(CoverageRulesTest, ReachablePhaseHeaderWithoutPointsIsCoverageFile) {
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpHeader(12, 15) + "#include \"epilogue/epi.h\"\n"},
                         {"op_kernel/gemm/gemm.h", GemmHeader(12, 15)},
                         {"op_kernel/epilogue/epi.h",
                          "class Epi {\n public:\n  void Process() {\n    Run();\n  }\n};\n"},
                         {"op_kernel/unreached/big.h", "class U {\n  void Process() {}\n};\n"}}),
              ElementsAre("coverage-file@op_kernel/epilogue/epi.h:3"));
}

TEST(CoverageRulesTest, SmallHelpersInSubdirectoriesNeedNoPoints) {
  EXPECT_THAT(LintFiles({{"op_kernel/op.cpp", kEntry},
                         {"op_kernel/op.h", OpHeader(12, 15) + "#include \"common/util.h\"\n"},
                         {"op_kernel/gemm/gemm.h", GemmHeader(12, 15)},
                         {"op_kernel/common/util.h", "inline int CeilDiv(int a, int b) {\n  return (a + b - 1) / b;\n}\n"}}),
              IsEmpty());
}

TEST(CoverageRulesTest, WithoutCoreSplitDensityIsNotChecked) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"k.cu", "#include \"optrace/trace.h\"\n__global__ void k() {\n"
                                  "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                  "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n"}},
                        false, &r),
              IsEmpty());
  EXPECT_TRUE(r.density.known);
  EXPECT_FALSE(r.density.split);
}

}  // namespace
}  // namespace optrace::source
