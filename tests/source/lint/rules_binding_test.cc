// Focused binding and sample cases beyond the corpus variants (tests/source/lint/lint_corpus_test.cc).
#include <cstdio>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/lint/lint_test_util.h"

namespace optrace::source {
namespace {
using ::testing::ElementsAre;
using ::testing::IsEmpty;

const char* kOpDef =
    "class Op : public OpDef {\n public:\n  explicit Op(const char* n) : OpDef(n) {\n"
    "    this->Input(\"x\").ParamType(REQUIRED);\n"
    "    this->Output(\"y\").ParamType(REQUIRED);\n"
    "    this->Output(\"profiling_data\").ParamType(%s);\n  }\n};\n";

std::string OpDef(const char* param_type = "REQUIRED") {
  char buf[512];
  std::snprintf(buf, sizeof(buf), kOpDef, param_type);
  return buf;
}

const char* kInfer =
    "graphStatus InferShape(gert::InferShapeContext* c) {\n  c->GetOutputShape(1)->SetDim(0, 8);\n  return 0;\n}\n"
    "graphStatus InferDataType(gert::InferDataTypeContext* c) {\n  c->SetOutputDataType(1, DT_INT64);\n  return 0;\n}\n";

std::string Pybind(const std::string& args, const std::string& ret) {
  return "std::tuple<at::Tensor, at::Tensor> op(const at::Tensor& x) {\n"
         "  at::Tensor y = at::empty_like(x);\n  at::Tensor profiling = at::zeros({8});\n"
         "  EXEC_NPU_CMD(aclnnOp, " + args + ");\n  return " + ret + ";\n}\n";
}

TEST(BindingRulesTest, ConsistentMinimalOperatorIsClean) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                        true),
              IsEmpty());
}

TEST(BindingRulesTest, MissingProfilingOutputIsOpdefLast) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", "void F() {\n  this->Output(\"y\").ParamType(REQUIRED);\n}\n"}}, true),
              ElementsAre("binding-opdef-last@op_host/op.cpp:2"));
}

// vllm-ascend apply_top_k_top_p: a per-SoC OpAICoreConfig (`config_kirin.Output("out")`, in a
// const helper after the constructor) has its own output list; it is not the OpDef's.
const char* kOpDefWithConfig =
    "class Op : public OpDef {\n public:\n  explicit Op(const char* n) : OpDef(n) {\n"
    "    this->Output(\"y\").ParamType(REQUIRED);\n"
    "    this->Output(\"profiling_data\").ParamType(REQUIRED);\n"
    "    OpAICoreConfig c = Kirin();\n  }\n"
    " private:\n  OpAICoreConfig Kirin() const {\n    OpAICoreConfig config_kirin;\n"
    "    config_kirin.Output(\"y\").ParamType(REQUIRED);\n%s"
    "    return config_kirin;\n  }\n};\n";

TEST(BindingRulesTest, ConfigOutputsAreNotTheOpDefsButNeedTheProfilingOutputToo) {
  char without[1024], with[1024];
  std::snprintf(without, sizeof(without), kOpDefWithConfig, "");
  std::snprintf(with, sizeof(with), kOpDefWithConfig, "    config_kirin.Output(\"profiling_data\").ParamType(REQUIRED);\n");
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", without}, {"op_host/op_infer.cpp", kInfer}}, true),
              ElementsAre("binding-opdef-last@op_host/op.cpp:11"));
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", with}, {"op_host/op_infer.cpp", kInfer}}, true), IsEmpty());
}

TEST(BindingRulesTest, KernelOutputsNamedWithAnOutSuffixAreMatchedToTheOpDef) {
  // dispatch_normal_a2's kernel calls recv_x / expand_idx recvX / expandIdxOut.
  const char* def =
      "class Op : public OpDef {\n public:\n  explicit Op(const char* n) : OpDef(n) {\n"
      "    this->Output(\"recv_x\").ParamType(REQUIRED);\n"
      "    this->Output(\"expand_idx\").ParamType(REQUIRED);\n"
      "    this->Output(\"profiling_data\").ParamType(REQUIRED);\n  }\n};\n";
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", def}, {"op_host/op_infer.cpp", "void f() {}\n"},
                         {"op_kernel/op.cpp", "extern \"C\" __global__ void op(GM_ADDR recvX,\n"
                                              "    GM_ADDR profiling_data, GM_ADDR expandIdxOut, GM_ADDR tiling) {}\n"}},
                        true),
              ::testing::Contains("binding-kernel-order@op_kernel/op.cpp:2"));
}

TEST(BindingRulesTest, KernelOrderIsReportedOnceNotAgainForTheInitThatFollowsTheOldOrder) {
  std::vector<std::string> found =
      LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                 {"op_kernel/op.cpp", "class K {\n public:\n  void Init(GM_ADDR y, GM_ADDR profiling_data) {}\n};\n"
                                      "extern \"C\" __global__ void op(GM_ADDR x, GM_ADDR profiling_data, GM_ADDR y,\n"
                                      "    GM_ADDR tiling) {\n  K op;\n  op.Init(y, profiling_data);\n}\n"}},
                true);
  EXPECT_THAT(found, ::testing::Contains("binding-kernel-order@op_kernel/op.cpp:5"));
  EXPECT_THAT(found, ::testing::Not(::testing::Contains(::testing::StartsWith("binding-init-order"))));
}

// Issue 51: an input or output named like a workspace (`commWorkspace`) is not the launch's tail:
// the profiling output after it, before the trailing workspace and tiling, is the right place.
std::string KernelWithWorkspaceNamedInput(const std::string& params) {
  return "extern \"C\" __global__ void op(" + params + ") {\n}\n";
}
const char* kWorkspaceInputOpDef =
    "class Op : public OpDef {\n public:\n  explicit Op(const char* n) : OpDef(n) {\n"
    "    this->Input(\"comm_workspace\").ParamType(REQUIRED);\n"
    "    this->Output(\"y\").ParamType(REQUIRED);\n"
    "    this->Output(\"profiling_data\").ParamType(REQUIRED);\n  }\n};\n";

TEST(BindingRulesTest, AnInputNamedLikeAWorkspaceIsNotTheLaunchsTail) {
  std::vector<std::string> found = LintFiles(
      {{"op_host/op.cpp", kWorkspaceInputOpDef}, {"op_host/op_infer.cpp", kInfer},
       {"op_kernel/op.cpp", KernelWithWorkspaceNamedInput("GM_ADDR commWorkspace, GM_ADDR y, GM_ADDR profiling_data, "
                                                          "GM_ADDR workspaceGM, GM_ADDR tilingGM")}},
      true);
  EXPECT_THAT(found, ::testing::Not(::testing::Contains(::testing::StartsWith("binding-kernel-order"))));
}

TEST(BindingRulesTest, ProfilingAfterTheTrailingWorkspaceIsStillCaughtBesideAWorkspaceNamedInput) {
  std::vector<std::string> found = LintFiles(
      {{"op_host/op.cpp", kWorkspaceInputOpDef}, {"op_host/op_infer.cpp", kInfer},
       {"op_kernel/op.cpp", KernelWithWorkspaceNamedInput("GM_ADDR commWorkspace, GM_ADDR y, GM_ADDR workspaceGM, "
                                                          "GM_ADDR tilingGM, GM_ADDR profiling_data")}},
      true);
  EXPECT_THAT(found, ::testing::Contains("binding-kernel-order@op_kernel/op.cpp:1"));
}

TEST(BindingRulesTest, InferThatSkipsProfilingShapeIsBindingInfer) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()},
                         {"op_host/op_infer.cpp",
                          "graphStatus InferShape(gert::InferShapeContext* c) {\n  c->GetOutputShape(0);\n  return 0;\n}\n"
                          "graphStatus InferDataType(gert::InferDataTypeContext* c) {\n"
                          "  c->SetOutputDataType(1, DT_INT64);\n  return 0;\n}\n"},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                        true),
              ElementsAre("binding-infer@op_host/op_infer.cpp:1"));
}

// ops-math dynamic_partition: `y` is DYNAMIC (one output per partition), so profiling_data's
// index in the infer context is num_partitions, known at run time: not an error at index 1, a
// warning that says what cannot be checked.
TEST(BindingRulesTest, ADynamicOutputBeforeProfilingLeavesItsInferIndexUncheckable) {
  const std::string def =
      "class Op : public OpDef {\n public:\n  explicit Op(const char* n) : OpDef(n) {\n"
      "    this->Input(\"x\").ParamType(REQUIRED);\n"
      "    this->Output(\"y\").ParamType(DYNAMIC);\n"
      "    this->Output(\"profiling_data\").ParamType(REQUIRED);\n  }\n};\n";
  const std::string infer =
      "graphStatus InferShape(gert::InferShapeContext* c) {\n  c->GetOutputShape(0);\n  return 0;\n}\n"
      "graphStatus InferDataType(gert::InferDataTypeContext* c) {\n  c->SetOutputDataType(0, DT_FLOAT);\n  return 0;\n}\n";
  std::vector<std::string> found = LintFiles({{"op_host/op.cpp", def}, {"op_host/op_infer.cpp", infer},
                                              {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                                             true);
  EXPECT_THAT(found, ::testing::Contains("binding-unchecked@op_host/op.cpp:6"));
  EXPECT_THAT(found, ::testing::Not(::testing::Contains(::testing::StartsWith("binding-infer"))));
}

TEST(BindingRulesTest, PybindReturningWithoutProfilingIsBindingPybind) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "y")}},
                        true),
              ElementsAre("binding-pybind@pybind/op.cpp:5"));
}

// ops-nn add_rms_norm_quant: its infer file also holds AddRmsNormQuantV2's functions, registered
// for that operator, whose output 1 (its res_out) takes an input's dtype. Output indices there are
// V2's, not this operator's.
TEST(BindingRulesTest, AnotherOperatorsInferFunctionsInTheSameFileAreNotThisOperators) {
  const std::string infer =
      "graphStatus InferShapeOp(gert::InferShapeContext* c) {\n  c->GetOutputShape(1)->SetDim(0, 8);\n  return 0;\n}\n"
      "graphStatus InferDataTypeOp(gert::InferDataTypeContext* c) {\n  c->SetOutputDataType(1, DT_INT64);\n  return 0;\n}\n"
      "graphStatus InferDataTypeOpV2(gert::InferDataTypeContext* c) {\n"
      "  c->SetOutputDataType(1, c->GetInputDataType(0));\n  return 0;\n}\n"
      "IMPL_OP_INFERSHAPE(Op).InferShape(InferShapeOp).InferDataType(InferDataTypeOp);\n"
      "IMPL_OP_INFERSHAPE(OpV2).InferShape(InferShapeOp).InferDataType(InferDataTypeOpV2);\n";
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", infer},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                        true),
              IsEmpty());
  // Registered for this operator too, the same line is this operator's and wrong.
  std::string shared = infer;
  shared.replace(shared.find("InferDataType(InferDataTypeOp);"), 31, "InferDataType(InferDataTypeOpV2);");
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", shared},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                        true),
              ElementsAre("binding-infer@op_host/op_infer.cpp:10"));
}

// ops-nn masked_scatter registers its infer functions as IMPL_OP_INFERSHAPE(MskedScatter), a typo of
// its class MaskedScatter (bincount: class BincountDef, registered as Bincount). With no registration
// under this operator's own name, the functions there are taken to be its own.
TEST(BindingRulesTest, InferFunctionsRegisteredUnderAnotherSpellingAreStillThisOperators) {
  const std::string infer =
      "graphStatus InferShapeOp(gert::InferShapeContext* c) {\n  c->GetOutputShape(1)->SetDim(0, 8);\n  return 0;\n}\n"
      "graphStatus InferDataTypeOp(gert::InferDataTypeContext* c) {\n  c->SetOutputDataType(1, DT_INT64);\n  return 0;\n}\n"
      "IMPL_OP_INFERSHAPE(Opp).InferShape(InferShapeOp).InferDataType(InferDataTypeOp);\n";
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", infer},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                        true),
              IsEmpty());
}

// ops-nn conv3d_transpose_v2: the infer dtype function it registers is defined in a folder the conv
// operators share, outside the operator tree; what it sets cannot be seen, so it is not an error.
TEST(BindingRulesTest, AnInferFunctionRegisteredFromOutsideTheTreeIsUnchecked) {
  const std::string infer =
      "graphStatus InferShapeOp(gert::InferShapeContext* c) {\n  c->GetOutputShape(1)->SetDim(0, 8);\n  return 0;\n}\n"
      "IMPL_OP_INFERSHAPE(Op)\n    .InferShape(InferShapeOp)\n    .InferDataType(Ops::NN::Conv::InferDataTypeForConv);\n";
  LintReport r;
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", infer},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                        true, &r),
              ElementsAre("binding-unchecked@op_host/op_infer.cpp:7"));
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Severity::kWarning);
  EXPECT_THAT(r.diagnostics[0].message, ::testing::HasSubstr("(InferDataTypeForConv) is not in the operator tree"));
}

// ops-math sort_with_index's torch adapter: the GetWorkspaceSize call sits in a helper that
// returns a workspace pointer (`return nullptr;` on failure), not the operator's outputs. Only
// the call is the adapter's business; that return is not an outputs tuple.
TEST(BindingRulesTest, ReturnOfAHelperThatHandsBackAPointerIsNotTheOutputsTuple) {
  const std::string helper =
      "OpWorkspace* OpGetWorkspace(const aclTensor* x, aclTensor* y, aclTensor* profiling) {\n"
      "  auto ws = new OpWorkspace();\n"
      "  aclnnStatus st = aclnnOpGetWorkspaceSize(x, y, profiling, &ws->workspace_size, &ws->executor);\n"
      "  if (st != 0) {\n    return nullptr;\n  }\n  return ws;\n}\n"
      "TORCH_LIBRARY_IMPL(op, PrivateUse1, m) { m.impl(\"op\", &Op); }\n";
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer}, {"tests/st/torch/adapter.cpp", helper}},
                        true),
              IsEmpty());
}

TEST(BindingRulesTest, NulloptForOptionalProfilingIsAllowed) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef("OPTIONAL")}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", Pybind("x, y, c10::nullopt", "std::make_tuple(y, profiling)")}},
                        true),
              IsEmpty());
}

TEST(BindingRulesTest, NulloptForRequiredProfilingIsRequiredNull) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", Pybind("x, y, c10::nullopt", "std::make_tuple(y, profiling)")}},
                        true),
              ElementsAre("binding-required-null@pybind/op.cpp:4"));
}

// issue 51: nullopt through a variable was "satisfied" (only nullopt written in the call was found).
std::string PybindWithProfiling(const std::string& setup) {
  return "std::tuple<at::Tensor, at::Tensor> op(const at::Tensor& x, bool trace) {\n"
         "  at::Tensor y = at::empty_like(x);\n" + setup +
         "  EXEC_NPU_CMD(aclnnOp, x, y, profiling);\n  return std::make_tuple(y, profiling);\n}\n";
}

std::vector<std::string> LintPybind(const std::string& setup) {
  return LintFiles({{"op_host/op.cpp", OpDef("OPTIONAL")}, {"op_host/op_infer.cpp", kInfer},
                    {"pybind/op.cpp", PybindWithProfiling(setup)}},
                   true);
}

// A fused MoE adapter: `aclnnOp` is this OpDef's and passes the buffer; `aclnnOpW4A8` and
// `aclnnOpBF16` in the sibling arms are other operators and take none.
std::string PybindWithSiblings(const std::string& own_args) {
  return "std::tuple<at::Tensor, at::Tensor> op(const at::Tensor& x, int mode) {\n"
         "  at::Tensor y = at::empty_like(x);\n  at::Tensor profiling = at::zeros({8});\n"
         "  if (mode == 0) {\n"
         "    EXEC_NPU_CMD(aclnnOp, " + own_args + ");\n"
         "  } else if (mode == 1) {\n"
         "    EXEC_NPU_CMD(aclnnOpW4A8, x, y);\n"
         "  } else {\n"
         "    EXEC_NPU_CMD(aclnnOpBF16, x, y);\n"
         "  }\n"
         "  return std::make_tuple(y, profiling);\n}\n";
}

TEST(BindingRulesTest, OtherOperatorsCalledInSiblingBranchesAreNotAskedForTheBuffer) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", PybindWithSiblings("x, y, profiling")}},
                        true),
              IsEmpty());
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", PybindWithSiblings("x, y")}},
                        true),
              ElementsAre("binding-pybind@pybind/op.cpp:5"));
}

TEST(BindingRulesTest, NulloptThroughAVariableIsBindingPybind) {
  EXPECT_THAT(LintPybind("  c10::optional<at::Tensor> profiling = c10::nullopt;\n"),
              ElementsAre("binding-pybind@pybind/op.cpp:4"));
  EXPECT_THAT(LintPybind("  auto profiling = c10::nullopt;\n"), ElementsAre("binding-pybind@pybind/op.cpp:4"));
  EXPECT_THAT(LintPybind("  c10::optional<at::Tensor> profiling;\n"), ElementsAre("binding-pybind@pybind/op.cpp:4"));
}

TEST(BindingRulesTest, ATernaryWithANullArmIsAWarningNotAnError) {
  EXPECT_THAT(LintPybind("  auto profiling = trace ? c10::optional<at::Tensor>(at::zeros({8})) : c10::nullopt;\n"),
              ElementsAre("binding-pybind-maybe-null@pybind/op.cpp:4"));
}

TEST(BindingRulesTest, AVariableFilledAfterItsNullStartIsAWarningAtMost) {
  // Set empty, then filled on one path: not certain either way.
  EXPECT_THAT(LintPybind("  c10::optional<at::Tensor> profiling = c10::nullopt;\n"
                         "  if (trace) { profiling = at::zeros({8}); }\n"),
              ElementsAre("binding-pybind-maybe-null@pybind/op.cpp:5"));
  EXPECT_THAT(LintPybind("  c10::optional<at::Tensor> profiling;\n  profiling.emplace(at::zeros({8}));\n"),
              ElementsAre("binding-pybind-maybe-null@pybind/op.cpp:5"));
}

TEST(BindingRulesTest, AVariableHoldingATensorIsClean) {
  EXPECT_THAT(LintPybind("  at::Tensor profiling = at::zeros({8});\n"), IsEmpty());
  EXPECT_THAT(LintPybind("  c10::optional<at::Tensor> profiling = c10::nullopt;\n  profiling = at::zeros({8});\n"),
              IsEmpty());
}

TEST(BindingRulesTest, DirectlyLaunchedKernelWithMarksButNoProfilingParameterIsKernelOrder) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"op_kernel/k.cpp", Kernel("")}}, true, &r), ElementsAre("binding-kernel-order@op_kernel/k.cpp:2"));
  EXPECT_THAT(r.diagnostics[0].message, ::testing::HasSubstr("takes no profiling GM_ADDR"));
}

const char* kLaunched =
    "#include \"optrace/trace.h\"\n"
    "extern \"C\" __global__ void k(GM_ADDR x, GM_ADDR profiling_data) { OPTRACE_KERNEL_BEGIN();\n"
    "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
    "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
    "  OPTRACE_KERNEL_END(profiling_data);\n}\n"
    "void k_impl(void* stream, void* x, void* prof) {\n"
    "  k<<<8, nullptr, stream>>>(x, %s);\n"
    "}\n";

TEST(BindingRulesTest, DirectLaunchPassesTheProfilingBufferWhereTheKernelTakesIt) {
  char ok[512], bad[512];
  std::snprintf(ok, sizeof ok, kLaunched, "profiling_data");
  std::snprintf(bad, sizeof bad, kLaunched, "x");
  EXPECT_THAT(LintFiles({{"op_kernel/k.cpp", ok}}, true), IsEmpty());
  EXPECT_THAT(LintFiles({{"op_kernel/k.cpp", bad}}, true), ElementsAre("binding-pybind@op_kernel/k.cpp:8"));
}

TEST(BindingRulesTest, ALaunchMissingTheProfilingArgumentIsCertainlyTheWrongArity) {
  char bad[512];
  std::snprintf(bad, sizeof bad, kLaunched, "x");
  std::string text(bad);
  text.replace(text.find("(x, x);"), 7, "(x);");
  LintReport r;
  EXPECT_THAT(LintFiles({{"op_kernel/k.cpp", text}}, true, &r), ElementsAre("binding-launch-arity@op_kernel/k.cpp:8"));
  bool found = false;
  for (const Diagnostic& d : r.diagnostics)
    if (d.rule == "binding-launch-arity") {
      found = true;
      EXPECT_THAT(d.message, ::testing::HasSubstr("passes 1 argument(s) and the kernel takes 2"));
      EXPECT_EQ(d.severity, Severity::kError);
    }
  EXPECT_TRUE(found);
}

TEST(BindingRulesTest, ALaunchThroughATemplateIsCheckedToo) {
  std::string text = std::string(kLaunched);
  const std::string c_kernel = "extern \"C\" __global__";
  text.replace(text.find(c_kernel), c_kernel.size(), "template <typename T> __global__");
  text.replace(text.find("k<<<"), 4, "k<float><<<");
  char bad[512];
  std::snprintf(bad, sizeof bad, text.c_str(), "");
  std::string one(bad);
  one.replace(one.find("(x, );"), 6, "(x);");
  EXPECT_THAT(LintFiles({{"op_kernel/k.cpp", one}}, true), ElementsAre("binding-launch-arity@op_kernel/k.cpp:8"));
}

TEST(BindingRulesTest, AMacroArgumentMakesTheArityNotCheckable) {
  std::string text = "#define ARGS x, profiling_data\n" + std::string(kLaunched);
  char buf[512];
  std::snprintf(buf, sizeof buf, text.c_str(), "x");
  std::string one(buf);
  one.replace(one.find("(x, x);"), 7, "(ARGS);");
  LintReport r;
  EXPECT_THAT(LintFiles({{"op_kernel/k.cpp", one}}, true, &r),
              ElementsAre("binding-launch-arity-unsure@op_kernel/k.cpp:9"));
  for (const Diagnostic& d : r.diagnostics)
    if (d.rule == "binding-launch-arity-unsure") EXPECT_EQ(d.severity, Severity::kWarning);
}

TEST(BindingRulesTest, KernelLaunchedOutsideTheTreeIsBindingUnchecked) {
  std::string text = std::string(kLaunched).substr(0, std::string(kLaunched).find("void k_impl"));
  LintReport r;
  EXPECT_THAT(LintFiles({{"op_kernel/k.cpp", text}}, true, &r), ElementsAre("binding-unchecked@op_kernel/k.cpp:2"));
  EXPECT_EQ(r.diagnostics[0].severity, Severity::kWarning);
}

TEST(BindingRulesTest, SecondProfilingOperatorIsNoProfilingOp) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"op_host/op_profiling.cpp", "class OpWithProfiling : public OpDef {};\nOP_ADD(OpWithProfiling);\n"}},
                        true),
              ElementsAre("no-profiling-op@op_host/op_profiling.cpp:1", "no-profiling-op@op_host/op_profiling.cpp:2"));
}

TEST(BindingRulesTest, AProfSuffixTwinOfARegisteredOperatorIsNoProfilingOp) {
  // issue 51: only *_profiling / *_with_profiling were caught.
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef() + "OP_ADD(Op);\n"}, {"op_host/op_infer.cpp", kInfer},
                         {"op_host/op_prof.cpp", "class OpProf : public OpDef {};\nOP_ADD(OpProf);\n"}},
                        true),
              ElementsAre("no-profiling-op@op_host/op_prof.cpp:1", "no-profiling-op@op_host/op_prof.cpp:2"));
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef() + "OP_ADD(Op);\n"}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/reg.cpp", "TORCH_LIBRARY(ns, m) {\n  m.def(\"op(Tensor x) -> Tensor\");\n"
                                            "  m.def(\"op_prof(Tensor x) -> (Tensor, Tensor)\");\n}\n"}},
                        true),
              ::testing::Contains("no-profiling-op@pybind/reg.cpp:3"));
}

TEST(BindingRulesTest, AProfSuffixWithoutATwinIsNotASecondOperator) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"op_host/gprof.cpp", "class GProf : public OpDef {};\nOP_ADD(GProf);\n"}},
                        true),
              ::testing::Not(::testing::Contains(::testing::StartsWith("no-profiling-op"))));
}

TEST(BindingRulesTest, ProfilingDtypeGeInt64IsFine) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()},
                         {"op_host/op_infer.cpp",
                          "graphStatus InferShape(gert::InferShapeContext* c) {\n  c->GetOutputShape(1);\n  return 0;\n}\n"
                          "graphStatus InferDataType(gert::InferDataTypeContext* c) {\n"
                          "  c->SetOutputDataType(1, ge::DT_INT64);\n  return 0;\n}\n"},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                        true),
              IsEmpty());
}

TEST(BindingRulesTest, ProfilingDtypeOtherThanInt64IsBindingInfer) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()},
                         {"op_host/op_infer.cpp",
                          "graphStatus InferShape(gert::InferShapeContext* c) {\n  c->GetOutputShape(1);\n  return 0;\n}\n"
                          "graphStatus InferDataType(gert::InferDataTypeContext* c) {\n"
                          "  c->SetOutputDataType(1, ge::DT_FLOAT);\n  return 0;\n}\n"},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")}},
                        true),
              ElementsAre("binding-infer@op_host/op_infer.cpp:6"));
}

std::string DirectPybind(const std::string& args) {
  return "std::tuple<at::Tensor, at::Tensor> op(const at::Tensor& x) {\n"
         "  at::Tensor y = at::empty_like(x);\n  at::Tensor profiling = at::zeros({8});\n"
         "  uint64_t workspaceSize = 0;\n  aclOpExecutor* executor = nullptr;\n"
         "  aclnnOpGetWorkspaceSize(" + args + ", &workspaceSize, &executor);\n"
         "  aclnnOp(workspace, workspaceSize, executor, stream);\n"
         "  return std::make_tuple(y, profiling);\n}\n";
}

TEST(BindingRulesTest, DirectAclnnCallWithProfilingLastIsFine) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", DirectPybind("xt, yt, profilingt")}},
                        true),
              IsEmpty());
}

TEST(BindingRulesTest, DirectAclnnCallWithProfilingBeforeOutputsIsBindingPybind) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", DirectPybind("xt, profilingt, yt")}},
                        true),
              ElementsAre("binding-pybind@pybind/op.cpp:6"));
}

TEST(SampleRulesTest, SynchronizeInAnotherFunctionDoesNotCount) {
  EXPECT_THAT(LintFiles({{"examples/op_sample.py",
                          "def warmup():\n    torch.npu.synchronize()\n\n"
                          "def run(p, out):\n    save_profiling_data(p, 0, out)\n"}}),
              ElementsAre("sample-sync@examples/op_sample.py:5"));
}

TEST(SampleRulesTest, EveryPythonFileUnderOpExamplesIsLinted) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")},
                         {"examples/run.py", "def run(p, out):\n    save_profiling_data(p, 0, out)\n"}},
                        true),
              ElementsAre("sample-sync@examples/run.py:2"));
}

TEST(SampleRulesTest, OtherPythonFilesOutsideOpExamplesAreNotLinted) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")},
                         {"scripts/run.py", "def run(p, out):\n    save_profiling_data(p, 0, out)\n"}},
                        true),
              IsEmpty());
}

TEST(SampleRulesTest, MentionsInStringsAndCommentsDoNotCount) {
  EXPECT_THAT(LintFiles({{"test_op.py",
                          "\"\"\"Calls save_profiling_data( after sync.\"\"\"\n"
                          "def run(p, out):\n    # save_profiling_data(p, 0, out)\n"
                          "    torch.cuda.synchronize()\n    save_profiling_data(p, 0, out)\n"}}),
              IsEmpty());
}

TEST(SampleRulesTest, ResolvedPathsBeforeSpawnAreFine) {
  EXPECT_THAT(LintFiles({{"op_sample.py",
                          "def main(args):\n    profiling_dir = Path(args.profiling_dir).expanduser().resolve()\n"
                          "    mp.spawn(run, args=(profiling_dir,), nprocs=2)\n"}}),
              IsEmpty());
  EXPECT_THAT(LintFiles({{"op_sample.py",
                          "def main(args):\n    mp.spawn(run, args=(args.profiling_dir,), nprocs=2)\n"
                          "    profiling_dir = Path(args.profiling_dir).expanduser().resolve()\n"}}),
              ElementsAre("sample-path-resolve@op_sample.py:2"));
}

TEST(SampleRulesTest, PathArgumentReassignedUnresolvedBeforeSpawnIsSamplePathResolve) {
  EXPECT_THAT(LintFiles({{"op_sample.py",
                          "def main(args):\n    trace_file = Path(args.trace).expanduser().resolve()\n"
                          "    trace_file = args.trace\n"
                          "    mp.spawn(run, args=(args.world_size, trace_file), nprocs=2)\n"}}),
              ElementsAre("sample-path-resolve@op_sample.py:4"));
}

TEST(SampleRulesTest, ProcessArgsAreCheckedAndNonPathArgumentsIgnored) {
  EXPECT_THAT(LintFiles({{"op_sample.py",
                          "def main(args):\n    \"\"\"profiling_dir is resolved below.\"\"\"\n"
                          "    out_dir = Path(args.out).expanduser().resolve()\n    n = args.n  # profiling_dir\n"
                          "    p = mp.get_context(\"spawn\").Process(target=run, args=(n, out_dir, \"map_dir\"))\n"}}),
              IsEmpty());
  EXPECT_THAT(LintFiles({{"op_sample.py",
                          "def main(args):\n"
                          "    p = mp.get_context(\"spawn\").Process(\n        target=run,\n"
                          "        args=(args.n, args.map_path))\n"}}),
              ElementsAre("sample-path-resolve@op_sample.py:2"));
}

TEST(SampleRulesTest, ANamespaceHandedToSpawnCarriesItsUnresolvedPathAttributes) {
  // issue 51: the seed's own shape, `--profiling_dir` parsed into args and args handed to
  // mp.spawn whole, was "satisfied".
  const std::string parse =
      "def main():\n    parser = argparse.ArgumentParser()\n"
      "    parser.add_argument(\"--profiling_dir\", default=\"prof\")\n"
      "    parser.add_argument(\"--timeout\", type=int)\n    args = parser.parse_args()\n";
  EXPECT_THAT(LintFiles({{"op_sample.py", parse + "    mp.spawn(run, args=(args,), nprocs=2)\n"}}),
              ElementsAre("sample-path-resolve@op_sample.py:6"));
  EXPECT_THAT(LintFiles({{"op_sample.py",
                          parse + "    args.profiling_dir = str(Path(args.profiling_dir).expanduser().resolve())\n"
                                  "    mp.spawn(run, args=(args,), nprocs=2)\n"}}),
              IsEmpty());
}

TEST(SampleRulesTest, AnArgsTupleBuiltInAVariableIsFollowed) {
  EXPECT_THAT(LintFiles({{"op_sample.py",
                          "def main(args):\n    out_dir = args.out_dir\n    spawn_args = (2, out_dir)\n"
                          "    mp.spawn(run, args=spawn_args, nprocs=2)\n"}}),
              ElementsAre("sample-path-resolve@op_sample.py:4"));
  EXPECT_THAT(LintFiles({{"op_sample.py",
                          "def main(args):\n    out_dir = Path(args.out_dir).expanduser().resolve()\n"
                          "    spawn_args = (2, out_dir)\n    mp.spawn(run, args=spawn_args, nprocs=2)\n"}}),
              IsEmpty());
}

TEST(SampleRulesTest, ArgumentsLintCannotFollowAreAWarning) {
  EXPECT_THAT(LintFiles({{"op_sample.py", "def main(args):\n    mp.spawn(run, args=make_args(args), nprocs=2)\n"}}),
              ElementsAre("sample-spawn-args-unfollowed@op_sample.py:2"));
}

std::vector<std::string> LintSample(const std::string& py) {
  return LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                    {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")},
                    {"examples/op_sample.py", py}},
                   true);
}

TEST(SampleRulesTest, SampleTakingEveryOutputAndSavingProfilingIsClean) {
  EXPECT_THAT(LintSample("def run(x, out):\n    y, prof = torch.ops.custom.op(x)\n"
                         "    torch.npu.synchronize()\n    save_profiling_data(prof, 0, out)\n"),
              IsEmpty());
}

TEST(SampleRulesTest, UnpackingTheOutputsOfBeforeInstrumentationIsSampleOutput) {
  EXPECT_THAT(LintSample("def run(x, out):\n    y, = torch.ops.custom.op(x)\n"
                         "    torch.npu.synchronize()\n    save_profiling_data(None, 0, out)\n"),
              ElementsAre("sample-output@examples/op_sample.py:2"));
}

TEST(SampleRulesTest, CallingTheOperatorWithoutEverSavingIsSampleOutput) {
  LintReport r;
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"pybind/op.cpp", Pybind("x, y, profiling", "std::make_tuple(y, profiling)")},
                         {"examples/op_sample.py", "import torch_npu\ndef run(x):\n    return torch_npu.npu_op(x)\n"}},
                        true, &r),
              ElementsAre("sample-output@examples/op_sample.py:3"));
  EXPECT_THAT(r.diagnostics.at(0).message, ::testing::HasSubstr("never saves its \"profiling_data\" output"));
}

TEST(SampleRulesTest, OtherOperatorsAndStarredTargetsAreNotSampleOutput) {
  EXPECT_THAT(LintSample("def run(x, out):\n    a, b, c = torch.ops.custom.other_op(x)\n"
                         "    *ys, prof = torch.ops.custom.op(x)\n"
                         "    torch.npu.synchronize()\n    save_profiling_data(prof, 0, out)\n"),
              IsEmpty());
}


// quant_batch_matmul: a file-local helper aclnnQuantMatmulGetWorkspaceSizeCommonProcess(...) is not
// the aclnn API (aclnn<Op>GetWorkspaceSize) and takes no profiling tensor.
TEST(BindingRulesTest, AclnnHelpersOfTheApiFileAreNotTheApi) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"op_api/aclnn_op.cpp",
                          "static aclnnStatus aclnnOpGetWorkspaceSizeCommonProcess(const aclTensor *x, aclTensor *y) {\n"
                          "  return 0;\n}\n"
                          "aclnnStatus aclnnOpGetWorkspaceSize(const aclTensor *x, aclTensor *y, const aclTensor "
                          "*profilingDataOut,\n    uint64_t *workspaceSize, aclOpExecutor **executor) {\n"
                          "  return aclnnOpGetWorkspaceSizeCommonProcess(x, y);\n}\n"}},
                        true),
              ::testing::Not(::testing::Contains(::testing::StartsWith("binding-aclnn"))));
}

// grouped_matmul: the aclnn layer forwards nullptr for optional inputs; only a null in the profiling
// slot (the last data argument, before the workspace size) is a REQUIRED output given null.
TEST(BindingRulesTest, AclnnNullOnlyInTheProfilingSlotIsRequiredNull) {
  auto lint = [](const std::string& forwarded) {
    return LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                      {"op_api/aclnn_op.cpp",
                       "aclnnStatus aclnnOpGetWorkspaceSize(const aclTensor *x, aclTensor *y, const aclTensor "
                       "*profilingDataOut,\n    uint64_t *workspaceSize, aclOpExecutor **executor) {\n"
                       "  return aclnnInnerOpGetWorkspaceSize(" + forwarded + ", workspaceSize, executor);\n}\n"}},
                     true);
  };
  EXPECT_THAT(lint("x, y, nullptr"), ::testing::Contains("binding-required-null@op_api/aclnn_op.cpp:3"));
  EXPECT_THAT(lint("nullptr, x, y"), ::testing::Not(::testing::Contains(::testing::StartsWith("binding-required-null"))));
}

// A test harness under tests/ named aclnn_*_case.cpp calls the API as a sample: a warning-level hand step.
TEST(BindingRulesTest, AnAclnnCaseFileUnderTestsIsASample) {
  EXPECT_THAT(LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                         {"tests/comm/src/aclnn_op_case.cpp",
                          "bool Case::Run() {\n  ret = aclnnOpGetWorkspaceSize(x, nullptr, y, nullptr, &ws, &exec);\n"
                          "  return ret == 0;\n}\n"}},
                        true),
              ElementsAre("binding-example@tests/comm/src/aclnn_op_case.cpp:2"));
}

// inplace_apply_adagrad_da: `__global__ void op(OP_PARAMS)` with the list in an object-like #define.
TEST(BindingRulesTest, KernelParametersFromAMacroAreRead) {
  auto lint = [](const std::string& params) {
    return LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                      {"op_kernel/op.cpp", "#define OP_PARAMS \\\n    " + params +
                                               "\nextern \"C\" __global__ void op(OP_PARAMS) {\n}\n"}},
                     true);
  };
  EXPECT_THAT(lint("GM_ADDR x, GM_ADDR y, GM_ADDR profiling_data, GM_ADDR workspace, GM_ADDR tiling"),
              ::testing::Not(::testing::Contains(::testing::StartsWith("binding-kernel-order"))));
  EXPECT_THAT(lint("GM_ADDR x, GM_ADDR profiling_data, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling"),
              ::testing::Contains(::testing::StartsWith("binding-kernel-order")));
}

// conv3d_v2: a __global__ in a header nothing in the tree includes is another program's kernel.
TEST(BindingRulesTest, KernelInAHeaderNoFileIncludesIsNotChecked) {
  auto lint = [](const std::string& includer) {
    return LintFiles({{"op_host/op.cpp", OpDef()}, {"op_host/op_infer.cpp", kInfer},
                      {"op_kernel/op.cpp", includer + "extern \"C\" __global__ void op(GM_ADDR x, GM_ADDR y, "
                                                      "GM_ADDR profiling_data, GM_ADDR workspace, GM_ADDR tiling) {\n}\n"},
                      {"op_kernel/op_template.h", "__global__ void op_template(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {\n}\n"}},
                     true);
  };
  EXPECT_THAT(lint(""), ::testing::Not(::testing::Contains(::testing::StartsWith("binding-kernel-order"))));
  EXPECT_THAT(lint("#include \"op_template.h\"\n"),
              ::testing::Contains("binding-kernel-order@op_kernel/op_template.h:1"));
}

// --- Init: what is certain is where the profiling buffer lands --------------------------

const char* kTwoOutputDef =
    "class Op : public OpDef {\n public:\n  explicit Op(const char* n) : OpDef(n) {\n"
    "    this->Input(\"q\").ParamType(REQUIRED);\n    this->Input(\"k\").ParamType(REQUIRED);\n"
    "    this->Output(\"y\").ParamType(REQUIRED);\n    this->Output(\"lse\").ParamType(REQUIRED);\n"
    "    this->Output(\"profiling_data\").ParamType(REQUIRED);\n  }\n};\n";
const char* kTwoOutputInfer =
    "graphStatus InferShape(gert::InferShapeContext* c) {\n  c->GetOutputShape(2)->SetDim(0, 8);\n  return 0;\n}\n"
    "graphStatus InferDataType(gert::InferDataTypeContext* c) {\n  c->SetOutputDataType(2, DT_INT64);\n  return 0;\n}\n";

std::vector<std::string> LintInit(const std::string& init_params, const std::string& call_args) {
  return LintFiles({{"op_host/op.cpp", kTwoOutputDef}, {"op_host/op_infer.cpp", kTwoOutputInfer},
                    {"op_kernel/op.cpp",
                     "class K {\n public:\n  void Init(" + init_params + ") {}\n};\n"
                     "extern \"C\" __global__ void op(GM_ADDR q, GM_ADDR k, GM_ADDR y, GM_ADDR lse,\n"
                     "    GM_ADDR profiling_data, GM_ADDR workspace, GM_ADDR tiling) {\n  K op;\n  op.Init(" +
                         call_args + ");\n}\n"}},
                   true);
}

TEST(BindingInitTest, InputsInInitsOwnOrderAreNotAFinding) {
  // flash_attention_score: Init takes (k, q, ...) while the __global__ lists (q, k, ...).
  EXPECT_THAT(LintInit("GM_ADDR kGm, GM_ADDR qGm, GM_ADDR y, GM_ADDR lse, GM_ADDR prof", "k, q, y, lse, profiling_data"),
              IsEmpty());
}

TEST(BindingInitTest, ProfilingPassedWhereInitTakesAnotherBufferIsAnError) {
  EXPECT_THAT(LintInit("GM_ADDR q, GM_ADDR k, GM_ADDR profilingData, GM_ADDR y, GM_ADDR lse", "q, k, y, lse, profiling_data"),
              ElementsAre("binding-init-order@op_kernel/op.cpp:8"));
}

// instance_norm: Init(x, beta, gamma, ...) called with (x, gamma, beta, ...): by the names a swap,
// but a parameter may be misnamed and used as what it gets: a warning, not an error.
TEST(BindingInitTest, BuffersSwappedByTheirNamesAreAWarning) {
  EXPECT_THAT(LintInit("GM_ADDR qGM, GM_ADDR kGM, GM_ADDR yGM, GM_ADDR lseGM, GM_ADDR prof", "q, k, lse, y, profiling_data"),
              ElementsAre("binding-init-names@op_kernel/op.cpp:8"));
}

TEST(BindingInitTest, OutputsAgainstTheEntrysOrderAreOnlyAWarning) {
  // Init's parameters say nothing (out0, out1): the __global__ order is the only evidence.
  std::vector<std::string> found = LintInit("GM_ADDR a, GM_ADDR b, GM_ADDR out0, GM_ADDR out1, GM_ADDR prof",
                                            "q, k, lse, y, profiling_data");
  EXPECT_THAT(found, ElementsAre("binding-init-names@op_kernel/op.cpp:8"));
}

}  // namespace
}  // namespace optrace::source
