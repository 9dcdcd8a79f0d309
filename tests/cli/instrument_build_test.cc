// Into the team's own build (issue 49): an operator written the way CANN's samples are (op_host
// OpDef + op_kernel entry), instrumented by optrace, compiles with exactly the flags it compiled
// with before (the AscendC emulator's headers and the operator's own folders, never optrace's
// include/), for AIC and AIV, with profiling on and off; revert gives the tree back; a tree with
// its own MoeTracing keeps it; `optrace headers` writes the same single header.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "core/subprocess.h"
#include "source/compile/compile_check.h"
#include "source/plan/single_header.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunCli;
using testing::TempTree;

constexpr char kOpHost[] = R"(#include "register/op_def_registry.h"
#include "add_custom_tiling.h"

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
  const gert::Shape* x1_shape = context->GetInputShape(0);
  gert::Shape* y_shape = context->GetOutputShape(0);
  *y_shape = *x1_shape;
  return GRAPH_SUCCESS;
}
static graphStatus InferDataType(gert::InferDataTypeContext* context) {
  const auto inputDataType = context->GetInputDataType(0);
  context->SetOutputDataType(0, inputDataType);
  return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddCustom : public OpDef {
 public:
  explicit AddCustom(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(AddCustom);
}  // namespace ops
)";

constexpr char kTiling[] = R"(#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include <stdint.h>
constexpr uint32_t kTotalLength = 8 * 2048;
constexpr uint32_t kTileNum = 8;
#endif
)";

constexpr char kKernel[] = R"(#include "kernel_operator.h"
#include "add_custom_tiling.h"
using namespace AscendC;

class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength) {
    blockLength_ = totalLength / GetBlockNum();
    xGm_.SetGlobalBuffer((__gm__ float*)x + blockLength_ * GetBlockIdx(), blockLength_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + blockLength_ * GetBlockIdx(), blockLength_);
    zGm_.SetGlobalBuffer((__gm__ float*)z + blockLength_ * GetBlockIdx(), blockLength_);
  }
  __aicore__ inline void Process() {
    LoadScale();
    for (uint32_t i = 0; i < blockLength_; ++i) {
      zGm_.SetValue(i, (xGm_.GetValue(i) + yGm_.GetValue(i)) * scale_);
    }
    PipeBarrier<PIPE_ALL>();
  }

 private:
  __aicore__ inline void LoadScale() {
    scale_ = 1.0f;
    for (uint32_t i = 0; i < kTileNum; ++i) {
      scale_ = scale_ * 1.0f;
    }
  }

  AscendC::GlobalTensor<float> xGm_, yGm_, zGm_;
  uint32_t blockLength_ = 0;
  float scale_ = 1.0f;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
  KernelAdd op;
  op.Init(x, y, z, kTotalLength);
  op.Process();
}
)";

void WriteSampleOperator(const TempTree& t) {
  t.Write("op_host/add_custom.cpp", kOpHost);
  t.Write("op_host/add_custom_tiling.h", kTiling);
  t.Write("op_kernel/add_custom_tiling.h", kTiling);
  t.Write("op_kernel/add_custom.cpp", kKernel);
}

// The operator's own build of its kernel, CPU-debug style against the emulator: the emulator's
// headers and op_kernel/ only. Returns the compiler's output, "" on success.
std::string CompileKernel(const TempTree& t, bool aic, bool profiling) {
  Result<std::string> cxx = source::FindHostCompiler("");
  if (!cxx.ok()) return "no host compiler: " + cxx.status().message();
  std::vector<std::string> args{"-x", "c++", "-std=c++17", "-c", "-o", t.path(aic ? "aic.o" : "aiv.o"),
                                aic ? "-D__DAV_C220_CUBE__" : "-D__DAV_C220_VEC__",
                                std::string("-DENABLE_MOE_PROFILING=") + (profiling ? "1" : "0"),
                                "-I" + std::string(OPTRACE_SOURCE_DIR) + "/emu/include", "-I" + t.path("op_kernel"),
                                t.path("op_kernel/add_custom.cpp")};
  ProcessRun r = RunProcess(*cxx, args, std::chrono::seconds(120), true);
  if (r.exit_code == 0) return "";
  return "exit " + std::to_string(r.exit_code) + ": " + r.output;
}

TEST(InstrumentIntoTheTeamsBuild, ASampleOperatorCompilesWithItsOwnFlagsBeforeAndAfter) {
  TempTree t;
  WriteSampleOperator(t);
  for (bool aic : {true, false})
    ASSERT_EQ(CompileKernel(t, aic, true), "") << "the sample must compile before instrument";
  auto r = RunCli({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string kernel = t.Read("op_kernel/add_custom.cpp");
  EXPECT_THAT(kernel, HasSubstr("#include \"optrace_trace.h\""));
  EXPECT_THAT(kernel, HasSubstr("MoeTracing(TRACE_POINT("));
  EXPECT_THAT(kernel, Not(HasSubstr("optrace/trace.h")));
  EXPECT_EQ(t.Read("op_kernel/optrace_trace.h"), source::SingleHeaderText());
  EXPECT_THAT(r.out, HasSubstr("op_kernel/optrace_trace.h holds optrace's device API"));
  for (bool aic : {true, false})
    for (bool profiling : {true, false})
      EXPECT_EQ(CompileKernel(t, aic, profiling), "") << (aic ? "AIC" : "AIV") << (profiling ? " profiling on" : " off");
}

TEST(InstrumentIntoTheTeamsBuild, AFileInASubfolderIncludesTheHeaderByARelativePath) {
  TempTree t;
  WriteSampleOperator(t);
  // The class moves to a header one folder down, included by the entry.
  std::string kernel = kKernel;
  size_t cls = kernel.find("class KernelAdd");
  size_t entry = kernel.find("extern \"C\"");
  t.Write("op_kernel/impl/kernel_add.h", "#pragma once\n#include \"kernel_operator.h\"\n#include \"../add_custom_tiling.h\"\nusing namespace AscendC;\n\n" +
                                             kernel.substr(cls, entry - cls));
  t.Write("op_kernel/add_custom.cpp", "#include \"kernel_operator.h\"\n#include \"add_custom_tiling.h\"\n#include "
                                      "\"impl/kernel_add.h\"\n\n" + kernel.substr(entry));
  ASSERT_EQ(CompileKernel(t, false, true), "");
  auto r = RunCli({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(t.Read("op_kernel/impl/kernel_add.h"), HasSubstr("#include \"../optrace_trace.h\""));
  EXPECT_TRUE(fs::exists(t.path("op_kernel/optrace_trace.h")));
  EXPECT_FALSE(fs::exists(t.path("op_kernel/impl/optrace_trace.h")));
  for (bool aic : {true, false}) EXPECT_EQ(CompileKernel(t, aic, true), "");
}

TEST(InstrumentIntoTheTeamsBuild, RevertRemovesThePlacedHeaderAndAgainUpdatesIt) {
  TempTree t;
  WriteSampleOperator(t);
  ASSERT_EQ(RunCli({"instrument", "--op", t.path()}).exit_code, 0);
  // An older optrace's copy is updated in place by the next instrument.
  std::string old = t.Read("op_kernel/optrace_trace.h");
  old.replace(old.find("optrace "), 13, "optrace 0.0.1");
  t.Write("op_kernel/optrace_trace.h", old);
  auto again = RunCli({"instrument", "--op", t.path()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(t.Read("op_kernel/optrace_trace.h"), source::SingleHeaderText());
  auto revert = RunCli({"instrument", "--op", t.path(), "--revert"});
  ASSERT_EQ(revert.exit_code, 0) << revert.err;
  EXPECT_FALSE(fs::exists(t.path("op_kernel/optrace_trace.h")));
  EXPECT_EQ(t.Read("op_kernel/add_custom.cpp"), kKernel);
}

TEST(InstrumentIntoTheTeamsBuild, AHeaderOfThatNameThatIsNotOptracesIsNeverOverwritten) {
  TempTree t;
  WriteSampleOperator(t);
  t.Write("op_kernel/optrace_trace.h", "// mine\n");
  auto r = RunCli({"instrument", "--op", t.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is not optrace's generated header"));
  EXPECT_EQ(t.Read("op_kernel/optrace_trace.h"), "// mine\n");
  EXPECT_EQ(t.Read("op_kernel/add_custom.cpp"), kKernel);
}

TEST(InstrumentIntoTheTeamsBuild, ATreeWithItsOwnMoeTracingKeepsItAndGetsNoOptraceInclude) {
  TempTree t;
  WriteSampleOperator(t);
  t.Write("op_kernel/add_custom_base.h",
          "#pragma once\n#include \"kernel_operator.h\"\n#define TRACE_POINT(label, event) 0\n"
          "__aicore__ inline void MoeTracing(int64_t data) { (void)data; }\n"
          "__aicore__ inline void MoeTracing(int64_t data, uint32_t index) { (void)data; (void)index; }\n");
  auto r = RunCli({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_FALSE(fs::exists(t.path("op_kernel/optrace_trace.h")));
  const std::string kernel = t.Read("op_kernel/add_custom.cpp");
  EXPECT_THAT(kernel, HasSubstr("#include \"add_custom_base.h\""));
  EXPECT_THAT(kernel, Not(HasSubstr("optrace_trace.h")));
  EXPECT_THAT(r.out, HasSubstr("MoeTracing comes from the tree's own op_kernel/add_custom_base.h"));
}

TEST(HeadersCommand, WritesTheSingleHeaderAndRefusesAForeignFile) {
  TempTree t;
  auto r = RunCli({"headers", "-o", t.path("op_kernel")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(t.Read("op_kernel/optrace_trace.h"), source::SingleHeaderText());
  EXPECT_THAT(r.out, HasSubstr("#include \"optrace_trace.h\""));
  auto again = RunCli({"headers", "-o", t.path("op_kernel")});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_THAT(again.out, HasSubstr("nothing changed"));
  t.Write("mine/optrace_trace.h", "// mine\n");
  auto foreign = RunCli({"headers", "-o", t.path("mine")});
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_THAT(foreign.err, HasSubstr("not optrace's generated header"));
  EXPECT_EQ(t.Read("mine/optrace_trace.h"), "// mine\n");
}

TEST(HeadersCommand, TheHeaderStatesItsVersionAndBufferFormat) {
  std::optional<source::SingleHeaderInfo> info = source::ReadSingleHeaderInfo(source::SingleHeaderText());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->format, 1);
  EXPECT_FALSE(info->version.empty());
  EXPECT_THAT(std::string(source::SingleHeaderText()), Not(HasSubstr("\n#include \"optrace/")))
      << "every optrace header is inlined";
}

TEST(LintTraceHeader, WithGatesAnIncludeOfOptraceTheTreeCannotResolveIsANoteWithTheFix) {
  TempTree t;
  WriteSampleOperator(t);
  std::string kernel = kKernel;
  kernel.insert(kernel.find("#include \"add_custom_tiling.h\""), "#include \"optrace/trace.h\"\n");
  t.Write("op_kernel/add_custom.cpp", kernel);
  auto r = RunCli({"lint", "--op", t.path(), "--gates"});
  EXPECT_THAT(r.out, HasSubstr("[trace-header-outside]"));
  EXPECT_THAT(r.out, HasSubstr("optrace headers -o op_kernel"));
}

TEST(LintTraceHeader, AnOlderPlacedHeaderIsAWarning) {
  TempTree t;
  WriteSampleOperator(t);
  ASSERT_EQ(RunCli({"instrument", "--op", t.path()}).exit_code, 0);
  std::string old = t.Read("op_kernel/optrace_trace.h");
  old.replace(old.find("optrace "), 13, "optrace 0.0.1");
  t.Write("op_kernel/optrace_trace.h", old);
  auto r = RunCli({"lint", "--op", t.path()});
  EXPECT_THAT(r.out, HasSubstr("generated by optrace 0.0.1"));
  EXPECT_THAT(r.out, HasSubstr("is older than this optrace"));
  EXPECT_THAT(r.out, HasSubstr("[trace-header-version]"));
}

TEST(CompileCheckWithTheOperatorsFlags, AnIncludeOnlyOptracesFolderResolvesIsAnErrorWithTheFix) {
  TempTree t;
  WriteSampleOperator(t);
  std::string kernel = kKernel;
  kernel.insert(kernel.find("#include \"add_custom_tiling.h\""), "#include \"optrace/trace.h\"\n");
  t.Write("op_kernel/add_custom.cpp", kernel);
  auto r = RunCli({"lint", "--op", t.path(), "--compile", "--sdk", std::string(OPTRACE_SOURCE_DIR) + "/emu/include"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[compile-error]"));
  EXPECT_THAT(r.out, HasSubstr("the operator's build has no include folder of optrace's"));
  EXPECT_THAT(r.out, Not(HasSubstr("/include/optrace")));
}

}  // namespace
}  // namespace optrace
