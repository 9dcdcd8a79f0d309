// The profiling chain instrument wires into an operator with no profiling output yet, on small
// trees shaped like the ops-nn / ops-transformer operators where it first went wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/binary_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunBinary;
using testing::TempTree;

// An in-place cache: Input("kv_cache") and Output("kv_cache"), the kernel takes kvCache (input)
// and kvCacheOut (output), as mla_prolog does.
TempTree InPlaceOutputOperator() {
  return TempTree(
      {{"op_host/op_def.cpp",
        "namespace ops {\nclass Mla : public OpDef {\n public:\n  explicit Mla(const char* name) : OpDef(name) {\n"
        "    this->Input(\"x\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Input(\"kv_cache\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Output(\"y\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Output(\"kv_cache\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n  }\n};\nOP_ADD(Mla);\n}\n"},
       {"op_kernel/mla.cpp",
        "#include \"kernel_operator.h\"\n\n"
        "extern \"C\" __global__ __aicore__ void mla(GM_ADDR x, GM_ADDR kvCache, GM_ADDR y, GM_ADDR kvCacheOut,\n"
        "                                          GM_ADDR workspace, GM_ADDR tiling) {\n"
        "  for (int i = 0; i < 4; ++i) {\n    Step(x, y);\n  }\n}\n"}});
}

TEST(ProfilingChainTest, AnOutputNamedLikeAnInputGetsTheBufferAfterItsOwnParameter) {
  TempTree t = InPlaceOutputOperator();
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("mla: GM_ADDR profiling_data after \"kvCacheOut\""));
  EXPECT_THAT(t.Read("op_kernel/mla.cpp"), HasSubstr("GM_ADDR kvCacheOut, GM_ADDR profiling_data,"));
  auto lint = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(lint.out, ::testing::Not(HasSubstr("[binding-kernel-order]"))) << lint.out;
}

// ops-nn add_example: OpDef x1, x2 -> y, kernel `x, y, z, workspace, tiling`. By name the output
// "y" is the kernel's second input, and the buffer went after it (the kernel would record into an
// input). The generated launch fills parameters by position: the outputs end at the third.
TEST(ProfilingChainTest, WhereTheKernelsNamesDisagreeWithTheOpDefThePositionDecides) {
  TempTree t(
      {{"op_host/op_def.cpp",
        "namespace ops {\nclass AddExample : public OpDef {\n public:\n  explicit AddExample(const char* name) : OpDef(name) {\n"
        "    this->Input(\"x1\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Input(\"x2\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Output(\"y\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n  }\n};\nOP_ADD(AddExample);\n}\n"},
       {"op_kernel/add_example.cpp",
        "#include \"kernel_operator.h\"\n\n"
        "extern \"C\" __global__ __aicore__ void add_example(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {\n"
        "  for (int i = 0; i < 4; ++i) {\n    Step(x, y, z);\n  }\n}\n"}});
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(t.Read("op_kernel/add_example.cpp"), HasSubstr("GM_ADDR z, GM_ADDR profiling_data, GM_ADDR workspace"));
  auto lint = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(lint.out, ::testing::Not(HasSubstr("[binding-kernel-order]"))) << lint.out;
  // The same kernel with the buffer after "y", as the name match placed it: lint says where it goes.
  std::string k = t.Read("op_kernel/add_example.cpp");
  k.replace(k.find("GM_ADDR z, GM_ADDR profiling_data,"), std::string("GM_ADDR z, GM_ADDR profiling_data,").size(),
            "GM_ADDR profiling_data, GM_ADDR z,");
  t.Write("op_kernel/add_example.cpp", k);
  auto wrong = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(wrong.out, HasSubstr("the profiling output is parameter 4 [binding-kernel-order]")) << wrong.out;
}

// ops-math radix_top_k: the template kernel is what a device build launches; a UT link stub of the
// same name under #ifdef __CCE_UT_TEST__ calls it. The template sets the buffer up and writes it
// back; the stub takes the parameter and passes it on, with no marks of its own.
TEST(ProfilingChainTest, AUtStubPassesTheBufferOnToTheTemplateKernelItCalls) {
  TempTree t(
      {{"op_host/op_def.cpp",
        "namespace ops {\nclass Tk : public OpDef {\n public:\n  explicit Tk(const char* name) : OpDef(name) {\n"
        "    this->Input(\"x\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Output(\"y\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n  }\n};\nOP_ADD(Tk);\n}\n"},
       {"op_kernel/tk.cpp",
        "#include \"kernel_operator.h\"\n\n"
        "template <bool sorted>\n"
        "__global__ __aicore__ void tk(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)\n{\n"
        "    for (int i = 0; i < 4; ++i) {\n        Step(x, y);\n    }\n}\n\n"
        "#ifdef __CCE_UT_TEST__\n"
        "extern \"C\" __global__ __aicore__ void tk(\n    GM_ADDR x, GM_ADDR y,\n    GM_ADDR workspace, GM_ADDR tiling)\n{\n"
        "    tk<true>(x, y, workspace, tiling);\n}\n#endif\n"}});
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string k = t.Read("op_kernel/tk.cpp");
  EXPECT_THAT(k, HasSubstr("void tk(GM_ADDR x, GM_ADDR y, GM_ADDR profiling_data, GM_ADDR workspace"));
  EXPECT_THAT(k, HasSubstr("tk<true>(x, y, profiling_data, workspace, tiling);"));
  // One set-up and write-back and one root range: the template's.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = k.find(what); at != std::string::npos; at = k.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("OPTRACE_KERNEL_BEGIN();"), 1u) << k;
  EXPECT_EQ(count("TRACE_POINT(\"processing\", \"B\")"), 1u) << k;
  EXPECT_LT(k.find("OPTRACE_KERNEL_BEGIN();"), k.find("#ifdef __CCE_UT_TEST__"));
  EXPECT_THAT(r.out, HasSubstr("tk: passes profiling_data on to tk"));
  auto lint = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(lint.out, ::testing::Not(HasSubstr("[root-label]"))) << lint.out;
  EXPECT_THAT(lint.out, HasSubstr("0 error(s)")) << lint.out;
  auto revert = RunBinary({"instrument", "--op", t.path(), "--revert"});
  ASSERT_EQ(revert.exit_code, 0) << revert.err;
  EXPECT_THAT(t.Read("op_kernel/tk.cpp"), HasSubstr("    tk<true>(x, y, workspace, tiling);\n"));
}

// moe_token_unpermute_with_ep_grad: the infer shape function has the OpDef class's name, and the
// class's constructor (in op_def.cpp, first in path order) is a function of that name too.
TEST(ProfilingChainTest, AnInferFunctionNamedLikeTheOpDefClassIsEditedNotTheConstructor) {
  TempTree t(
      {{"op_host/op_def.cpp",
        "namespace ops {\nclass Unperm : public OpDef {\n public:\n  explicit Unperm(const char* name) : OpDef(name) {\n"
        "    this->Input(\"x\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Output(\"y\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n  }\n};\nOP_ADD(Unperm);\n}\n"},
       {"op_host/op_infershape.cpp",
        "namespace ops {\n"
        "static graphStatus Unperm(gert::InferShapeContext* context)\n{\n"
        "    *context->GetOutputShape(0) = *context->GetInputShape(0);\n    return GRAPH_SUCCESS;\n}\n"
        "static graphStatus InferDtypeUnperm(gert::InferDataTypeContext* context)\n{\n"
        "    context->SetOutputDataType(0, context->GetInputDataType(0));\n    return GRAPH_SUCCESS;\n}\n"
        "IMPL_OP_INFERSHAPE(Unperm).InferShape(Unperm).InferDataType(InferDtypeUnperm);\n}\n"},
       {"op_kernel/unperm.cpp",
        "#include \"kernel_operator.h\"\n\n"
        "extern \"C\" __global__ __aicore__ void unperm(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)\n{\n"
        "    for (int i = 0; i < 4; ++i) {\n        Step(x, y);\n    }\n}\n"}});
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("op_host/op_infershape.cpp:5: Unperm: output 1 shape")) << r.out;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("is not a gert infer function"))) << r.err;
  auto lint = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(lint.out, ::testing::Not(HasSubstr("[binding-infer]"))) << lint.out;
}

// inplace_add_rms_norm: Output("x1") / Output("rstd") / Output("x2") in place, the kernel names them
// y, rstd, x; the parameter named x2 is the input's.
TEST(ProfilingChainTest, RenamedInPlaceOutputsGetTheBufferAfterTheLastOutputParameter) {
  TempTree t(
      {{"op_host/op_def.cpp",
        "namespace ops {\nclass Ip : public OpDef {\n public:\n  explicit Ip(const char* name) : OpDef(name) {\n"
        "    this->Input(\"x1\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Input(\"x2\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Output(\"x1\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Output(\"rstd\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n"
        "    this->Output(\"x2\").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n  }\n};\nOP_ADD(Ip);\n}\n"},
       {"op_kernel/ip.cpp",
        "#include \"kernel_operator.h\"\n\n"
        "extern \"C\" __global__ __aicore__ void ip(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR rstd, GM_ADDR x,\n"
        "                                         GM_ADDR workspace, GM_ADDR tiling) {\n"
        "  for (int i = 0; i < 4; ++i) {\n    Step(x, y);\n  }\n}\n"}});
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(t.Read("op_kernel/ip.cpp"), HasSubstr("GM_ADDR x, GM_ADDR profiling_data,"));
  auto lint = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(lint.out, ::testing::Not(HasSubstr("[binding-kernel-order]"))) << lint.out;
}

// An aclnn API whose definition does not pass its tensors on to aclnnInner* (it builds l0op calls)
// keeps its signature: a parameter it never carries to the launch would only break its callers.
TEST(ProfilingChainTest, AnAclnnApiThatDoesNotForwardKeepsItsSignatureAndIsAHandStep) {
  TempTree t = InPlaceOutputOperator();
  const std::string header =
      "aclnnStatus aclnnMlaGetWorkspaceSize(const aclTensor *x, aclTensor *kvCache, aclTensor *y,\n"
      "                                     uint64_t *workspaceSize, aclOpExecutor **executor);\n";
  t.Write("op_api/aclnn_mla.h", header);
  t.Write("op_api/aclnn_mla.cpp",
          "aclnnStatus aclnnMlaGetWorkspaceSize(const aclTensor *x, aclTensor *kvCache, aclTensor *y,\n"
          "                                     uint64_t *workspaceSize, aclOpExecutor **executor) {\n"
          "  auto out = l0op::Mla(x, kvCache, y, executor);\n  return ACLNN_SUCCESS;\n}\n");
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(t.Read("op_api/aclnn_mla.h"), header);
  EXPECT_THAT(t.Read("op_api/aclnn_mla.cpp"), ::testing::Not(HasSubstr("profiling")));
  EXPECT_THAT(r.out, HasSubstr("aclnnMlaGetWorkspaceSize does not pass its tensors on to aclnnInner*"));
}

// One that does gets the parameter in its declaration and definition, and passes it on.
TEST(ProfilingChainTest, AnAclnnApiThatForwardsToAclnnInnerGetsTheParameterAndPassesItOn) {
  TempTree t = InPlaceOutputOperator();
  t.Write("op_api/aclnn_mla.h",
          "aclnnStatus aclnnMlaGetWorkspaceSize(const aclTensor *x, aclTensor *kvCache, aclTensor *y,\n"
          "                                     uint64_t *workspaceSize, aclOpExecutor **executor);\n");
  t.Write("op_api/aclnn_mla.cpp",
          "aclnnStatus aclnnMlaGetWorkspaceSize(const aclTensor *x, aclTensor *kvCache, aclTensor *y,\n"
          "                                     uint64_t *workspaceSize, aclOpExecutor **executor) {\n"
          "  return aclnnInnerMlaGetWorkspaceSize(x, kvCache, y, workspaceSize, executor);\n}\n");
  t.Write("op_api/aclnn_mla_inner.h",
          "aclnnStatus aclnnInnerMlaGetWorkspaceSize(const aclTensor *x, aclTensor *kvCache, aclTensor *y,\n"
          "                                          uint64_t *workspaceSize, aclOpExecutor **executor);\n");
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(t.Read("op_api/aclnn_mla.h"), HasSubstr("aclTensor *y, const aclTensor *profilingDataOut,"));
  EXPECT_THAT(t.Read("op_api/aclnn_mla.cpp"), HasSubstr("aclTensor *y, const aclTensor *profilingDataOut,"));
  EXPECT_THAT(t.Read("op_api/aclnn_mla.cpp"), HasSubstr("aclnnInnerMlaGetWorkspaceSize(x, kvCache, y, profilingDataOut,"));
  EXPECT_THAT(t.Read("op_api/aclnn_mla_inner.h"), HasSubstr("aclTensor *y, const aclTensor *profilingDataOut,"));
  auto revert = RunBinary({"instrument", "--op", t.path(), "--revert"});
  EXPECT_EQ(revert.exit_code, 0);
  EXPECT_THAT(t.Read("op_api/aclnn_mla.h"), ::testing::Not(HasSubstr("profiling")));
}

// ops-nn's elementwise operators register a shared infer function from outside the tree
// (`IMPL_OP_INFERSHAPE(Erfinv).InferShape(Ops::Base::InferShape4Elewise)`) or a one-line one.
TEST(ProfilingChainTest, AnInferShapeWithoutABodyToEditIsWrapped) {
  for (const std::string fn : {"Ops::Base::InferShape4Elewise", "InferShape4Mla"}) {
    TempTree t = InPlaceOutputOperator();
    t.Write("op_host/op_infershape.cpp",
            "namespace ops {\nstatic ge::graphStatus InferShape4Mla(gert::InferShapeContext* context) { return "
            "Ops::Base::InferShape4Elewise(context); }\n\nIMPL_OP_INFERSHAPE(Mla).InferShape(" + fn + ");\n}\n");
    auto r = RunBinary({"instrument", "--op", t.path()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string text = t.Read("op_host/op_infershape.cpp");
    EXPECT_THAT(text, HasSubstr(".InferShape(OptraceInferShapeWith<" + fn + ">);"));
    EXPECT_THAT(text, HasSubstr("context->GetOutputShape(2);"));
    EXPECT_THAT(RunBinary({"lint", "--op", t.path()}).out, ::testing::Not(HasSubstr("[binding-infer]")));
    ASSERT_EQ(RunBinary({"instrument", "--op", t.path(), "--revert"}).exit_code, 0);
    EXPECT_THAT(t.Read("op_host/op_infershape.cpp"), ::testing::Not(HasSubstr("Optrace")));
  }
}

// ops-nn's matmul family writes `using namespace gert;` and `InferShapeForMatMulV3(InferShapeContext*
// context)`: 16 operators were left with no profiling shape ("not a gert infer function").
TEST(ProfilingChainTest, AnInferFunctionOfAnUnqualifiedGertContextIsEdited) {
  TempTree t = InPlaceOutputOperator();
  t.Write("op_host/op_infershape.cpp",
          "using namespace gert;\nnamespace ops {\nstatic ge::graphStatus InferShapeMla(InferShapeContext* context)\n{\n"
          "    auto out = context->GetOutputShape(0);\n    *out = *context->GetInputShape(0);\n"
          "    return ge::GRAPH_SUCCESS;\n}\nIMPL_OP_INFERSHAPE(Mla).InferShape(InferShapeMla);\n}\n");
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(t.Read("op_host/op_infershape.cpp"), HasSubstr("context->GetOutputShape(2);"));
  EXPECT_THAT(RunBinary({"lint", "--op", t.path()}).out, ::testing::Not(HasSubstr("[binding-infer]")));
}

// ops-math split_v / unpack: `y` is DYNAMIC (one tensor per piece), so in the infer context the
// profiling output is the last of a run-time number of outputs. GetOutputShape(1) would reshape
// y's second tensor: the infer function is left alone and the step is listed by hand.
TEST(ProfilingChainTest, ADynamicOutputLeavesTheInferIndexToAHandStep) {
  TempTree t = InPlaceOutputOperator();
  std::string def = t.Read("op_host/op_def.cpp");
  def.replace(def.find("this->Output(\"kv_cache\")"), std::string("this->Output(\"kv_cache\")").size(),
              "this->Output(\"kv_cache_unused\")");
  def.replace(def.find("this->Output(\"y\").ParamType(REQUIRED)"), std::string("this->Output(\"y\").ParamType(REQUIRED)").size(),
              "this->Output(\"y\").ParamType(DYNAMIC)");
  t.Write("op_host/op_def.cpp", def);
  const std::string infer =
      "using namespace gert;\nnamespace ops {\nstatic ge::graphStatus InferShapeMla(InferShapeContext* context)\n{\n"
      "    auto out = context->GetOutputShape(0);\n    *out = *context->GetInputShape(0);\n"
      "    return ge::GRAPH_SUCCESS;\n}\nIMPL_OP_INFERSHAPE(Mla).InferShape(InferShapeMla);\n}\n";
  t.Write("op_host/op_infershape.cpp", infer);
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(t.Read("op_host/op_infershape.cpp"), infer);
  EXPECT_THAT(r.out + r.err, HasSubstr("output \"y\" is DYNAMIC"));
  EXPECT_THAT(r.out + r.err, HasSubstr("context->GetComputeNodeOutputNum() - 1"));
  auto lint = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(lint.out + lint.err, ::testing::Not(HasSubstr("[binding-infer]")));
  EXPECT_THAT(lint.out + lint.err, HasSubstr("[binding-unchecked]"));
}

// bnll: `.InferOutDataTypeSameWithFirstInput()` would give the profiling output input 0's dtype.
TEST(ProfilingChainTest, SameWithFirstInputIsFollowedByADtypeFunctionThatSetsInt64) {
  TempTree t = InPlaceOutputOperator();
  t.Write("op_host/op_infershape.cpp",
          "namespace ops {\nstatic ge::graphStatus InferShapeMla(gert::InferShapeContext* context)\n{\n"
          "    return Ops::Base::InferShape4Elewise(context);\n}\n"
          "IMPL_OP_INFERSHAPE(Mla).InferShape(InferShapeMla).InferOutDataTypeSameWithFirstInput();\n}\n");
  EXPECT_THAT(RunBinary({"lint", "--op", t.path()}).out, ::testing::Not(HasSubstr("InferOutDataTypeSameWithFirstInput() gives")));
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = t.Read("op_host/op_infershape.cpp");
  EXPECT_THAT(text, HasSubstr(".InferOutDataTypeSameWithFirstInput().InferDataType(OptraceInferDataTypeSameWithFirstInput);"));
  EXPECT_THAT(text, HasSubstr("optrace_i < 2;"));
  EXPECT_THAT(text, HasSubstr("context->SetOutputDataType(2, ge::DT_INT64);"));
  EXPECT_THAT(RunBinary({"lint", "--op", t.path()}).out, ::testing::Not(HasSubstr("[binding-infer]")));
  ASSERT_EQ(RunBinary({"instrument", "--op", t.path(), "--revert"}).exit_code, 0);
  EXPECT_THAT(t.Read("op_host/op_infershape.cpp"), ::testing::Not(HasSubstr("Optrace")));
}

// log_softmax_v2: an InferDataType whose only return shares a line with other code.
TEST(ProfilingChainTest, AnInferDataTypeWithoutAReturnLineIsWrapped) {
  TempTree t = InPlaceOutputOperator();
  t.Write("op_host/op_infershape.cpp",
          "namespace ops {\nstatic ge::graphStatus InferShapeMla(gert::InferShapeContext* context)\n{\n"
          "    return Ops::Base::InferShape4Elewise(context);\n}\n"
          "static ge::graphStatus InferDataTypeMla(gert::InferDataTypeContext* context)\n{\n"
          "    context->SetOutputDataType(0, context->GetInputDataType(0)); return ge::GRAPH_SUCCESS;\n}\n"
          "IMPL_OP_INFERSHAPE(Mla).InferShape(InferShapeMla).InferDataType(InferDataTypeMla);\n}\n");
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = t.Read("op_host/op_infershape.cpp");
  EXPECT_THAT(text, HasSubstr(".InferDataType(OptraceInferDataTypeWith<InferDataTypeMla>)"));
  EXPECT_THAT(text, HasSubstr("context->SetOutputDataType(2, ge::DT_INT64);"));
  EXPECT_THAT(RunBinary({"lint", "--op", t.path()}).out, ::testing::Not(HasSubstr("[binding-infer]")));
  ASSERT_EQ(RunBinary({"instrument", "--op", t.path(), "--revert"}).exit_code, 0);
  EXPECT_THAT(t.Read("op_host/op_infershape.cpp"), ::testing::Not(HasSubstr("Optrace")));
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// moe_token_unpermute.h: its last #include sits under `#if __CCE_AICORE__ == 200`; the trace
// include must not go in there, or every other build sees marks without TRACE_POINT (found by
// instrument --check-compile against the asc-devkit headers).
TEST(InstrumentIncludeTest, TheTraceIncludeGoesAtTheFilesTopLevelNotIntoAConditional) {
  testing::TempTree t(
      {{"op_kernel/op.cpp",
        "#include \"op.h\"\n\nextern \"C\" __global__ __aicore__ void op(GM_ADDR x, GM_ADDR y) {\n  Kernel k;\n"
        "  k.Process(x, y);\n}\n"},
       {"op_kernel/op.h",
        "#ifndef OP_H\n#define OP_H\n\n#include \"kernel_operator.h\"\n#if __CCE_AICORE__ == 200\n#include \"op_200.h\"\n"
        "#endif\n\nclass Kernel {\n public:\n  __aicore__ inline void Process(GM_ADDR x, GM_ADDR y) {\n"
        "    for (int i = 0; i < 4; ++i) {\n      Step(x, y);\n    }\n  }\n};\n#endif\n"}});
  auto r = testing::RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string h = t.Read("op_kernel/op.h");
  const size_t inc = h.find("#include \"optrace_trace.h\"");
  ASSERT_NE(inc, std::string::npos) << h;
  EXPECT_LT(inc, h.find("#if __CCE_AICORE__ == 200")) << h;
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunBinary;
using testing::TempTree;

// A direct-launch sample (cann-samples' layout): a template kernel and its host code in one .asc
// file, launched with <<<>>> from a run function that main calls, synchronized after.
TempTree DirectLaunchSample() {
  return TempTree(
      {{"main.asc",
        "#include <iostream>\n#include \"acl/acl.h\"\n#include \"kernel_operator.h\"\n\n"
        "template <typename T>\n"
        "__global__ __aicore__ __vector__ void add_kernel(GM_ADDR x, GM_ADDR y, int64_t n)\n{\n"
        "    for (int64_t i = 0; i < n; ++i) {\n        Step(x, y);\n    }\n}\n\n"
        "__global__ __aicore__ void warmup_kernel()\n{\n    Step(nullptr, nullptr);\n}\n\n"
        "int run_add(aclrtStream stream, void* x, void* y, int64_t n);\n\n"
        "int run_add(aclrtStream stream, void* x, void* y, int64_t n)\n{\n"
        "    warmup_kernel<<<1, nullptr, stream>>>();\n"
        "    for (int i = 0; i < 3; ++i) {\n"
        "        add_kernel<float><<<8, nullptr, stream>>>(x, y, n);\n"
        "    }\n"
        "    CHECK_ACL(aclrtSynchronizeStream(stream));\n"
        "    return 0;\n}\n\n"
        "int main()\n{\n    aclrtStream stream = nullptr;\n    return run_add(stream, nullptr, nullptr, 4);\n}\n"}});
}

TEST(ProfilingChainTest, DirectLaunchAllocatesBesideTheLaunchAndLeavesEverySignatureAlone) {
  TempTree t = DirectLaunchSample();
  const std::string before = t.Read("main.asc");
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string s = t.Read("main.asc");
  // No host signature changes: main, run_add's declaration and definition, its caller.
  EXPECT_THAT(s, HasSubstr("int main()\n"));
  EXPECT_THAT(s, HasSubstr("int run_add(aclrtStream stream, void* x, void* y, int64_t n);\n"));
  EXPECT_THAT(s, HasSubstr("int run_add(aclrtStream stream, void* x, void* y, int64_t n)\n"));
  EXPECT_THAT(s, HasSubstr("return run_add(stream, nullptr, nullptr, 4);"));
  // Every launch passes the buffer last; an empty argument list gets no leading comma.
  EXPECT_THAT(s, HasSubstr("warmup_kernel<<<1, nullptr, stream>>>(profiling_data);"));
  EXPECT_THAT(s, HasSubstr("add_kernel<float><<<8, nullptr, stream>>>(x, y, n, profiling_data);"));
  // Allocated once, before the loop that launches; saved and freed after the synchronize.
  size_t alloc = s.find("aclrtMalloc(&profiling_data");
  ASSERT_NE(alloc, std::string::npos) << s;
  EXPECT_EQ(s.find("aclrtMalloc(&profiling_data", alloc + 1), std::string::npos) << s;
  EXPECT_LT(alloc, s.find("    warmup_kernel<<<"));
  size_t sync = s.find("CHECK_ACL(aclrtSynchronizeStream(stream));");
  EXPECT_LT(sync, s.find("aclrtMemcpy(optrace_host"));
  EXPECT_LT(s.find("std::fopen(\"rank0.bin\", \"wb\")"), s.find("aclrtFree(profiling_data);"));
  EXPECT_LT(s.find("aclrtFree(profiling_data);"), s.find("    return 0;\n}\n\nint main"));
  EXPECT_THAT(s, HasSubstr("#include <cstdio>"));
  auto lint = RunBinary({"lint", "--op", t.path(), "--format", "json"});
  EXPECT_THAT(lint.out, ::testing::Not(HasSubstr("binding-launch-arity"))) << lint.out;
  EXPECT_THAT(lint.out, ::testing::Not(HasSubstr("\"severity\": \"error\""))) << lint.out;
  auto revert = RunBinary({"instrument", "--op", t.path(), "--revert"});
  ASSERT_EQ(revert.exit_code, 0) << revert.err;
  EXPECT_EQ(t.Read("main.asc"), before);
}

// vllm-ascend's lora kernels: a launcher in the kernel source returns to its caller (in another
// folder) without a synchronize, and the file does not include acl/acl.h. A buffer allocated
// there could be neither saved nor freed, and did not compile against CANN 8.1 (aclrtMemset,
// ACL_MEM_MALLOC_HUGE_FIRST undeclared): the launch passes nullptr and the hand step says why.
TEST(ProfilingChainTest, DirectLaunchWithoutASynchronizeAfterItPassesNullptrAndIsAHandStep) {
  TempTree t({{"k.asc",
               "#include \"kernel_operator.h\"\n\n"
               "__global__ __aicore__ void k(GM_ADDR x)\n{\n    for (int i = 0; i < 2; ++i) {\n        Step(x);\n    }\n}\n\n"
               "void launch(aclrtStream s, void* x)\n{\n    k<<<8, nullptr, s>>>(x);\n}\n"}});
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string s = t.Read("k.asc");
  EXPECT_THAT(s, HasSubstr("k<<<8, nullptr, s>>>(x, nullptr);"));
  EXPECT_THAT(s, HasSubstr("void launch(aclrtStream s, void* x)\n"));
  EXPECT_THAT(s, ::testing::Not(HasSubstr("aclrtMalloc"))) << "nothing allocated that could not be freed";
  EXPECT_THAT(r.out, HasSubstr("the launch of k passes nullptr for the profiling buffer (launch does not synchronize"));
  auto lint = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(lint.out, HasSubstr("passes nullptr as its profiling buffer (argument 2), so the kernel writes no trace"));
}

// cann-samples' cv_datapath (14 samples): the synchronize is in a helper of the tree, called in
// an if's condition: `if (!SyncStream(buf, "...")) { return 1; }`. That is a synchronize: the
// buffer is made here and written back after the whole if statement.
TEST(ProfilingChainTest, AHelperThatAlwaysSynchronizesCalledInAnIfConditionCountsAsTheSynchronize) {
  TempTree t({{"include/runner.h",
               "#pragma once\n#include \"acl/acl.h\"\n"
               "inline bool CheckAcl(int rc, const char* what) { return rc == 0; }\n"
               "inline bool SyncStream(aclrtStream s, const char* stage)\n{\n"
               "    return CheckAcl(aclrtSynchronizeStream(s), stage);\n}\n"
               "inline bool MaybeSync(aclrtStream s, bool yes)\n{\n"
               "    if (yes) {\n        aclrtSynchronizeStream(s);\n    }\n    return true;\n}\n"},
              {"main.asc",
               "#include \"runner.h\"\n#include \"kernel_operator.h\"\n\n"
               "__global__ __aicore__ void k(GM_ADDR x)\n{\n    for (int i = 0; i < 2; ++i) {\n        Step(x);\n    }\n}\n\n"
               "int run(aclrtStream s, void* x)\n{\n"
               "    k<<<8, nullptr, s>>>(x);\n"
               "    if (!SyncStream(s, \"k\")) {\n        return 1;\n    }\n"
               "    return 0;\n}\n\n"
               "int run_maybe(aclrtStream s, void* x)\n{\n"
               "    k<<<8, nullptr, s>>>(x);\n"
               "    MaybeSync(s, true);\n"
               "    return 0;\n}\n"}});
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string s = t.Read("main.asc");
  // run: allocated before the launch, written back after the if statement.
  const size_t run = s.find("int run(");
  const size_t alloc = s.find("aclrtMalloc(&profiling_data", run);
  ASSERT_NE(alloc, std::string::npos) << s;
  EXPECT_LT(alloc, s.find("    k<<<8, nullptr, s>>>(x, profiling_data);", run));
  const size_t if_end = s.find("        return 1;\n    }\n", run);
  ASSERT_NE(if_end, std::string::npos) << s;
  EXPECT_LT(if_end, s.find("aclrtMemcpy(optrace_host", run)) << s;
  EXPECT_LT(s.find("aclrtFree(profiling_data);", run), s.find("    return 0;\n}", run)) << s;
  // run_maybe: a helper that synchronizes only under a condition is no synchronize.
  const size_t maybe = s.find("int run_maybe(");
  EXPECT_THAT(s.substr(maybe), HasSubstr("k<<<8, nullptr, s>>>(x, nullptr);"));
  EXPECT_THAT(r.out, HasSubstr("(run_maybe does not synchronize the device after it"));
  auto revert = RunBinary({"instrument", "--op", t.path(), "--revert"});
  ASSERT_EQ(revert.exit_code, 0) << revert.err;
}

// cann-samples' mem_bandwidth: main launches and synchronizes inside a loop over configurations;
// the buffer is made before the loop and written back after it.
TEST(ProfilingChainTest, ALoopThatLaunchesAndSynchronizesGetsTheBufferAroundTheLoop) {
  TempTree t({{"main.asc",
               "#include \"acl/acl.h\"\n#include \"kernel_operator.h\"\n\n"
               "__global__ __aicore__ void k(GM_ADDR x)\n{\n    for (int i = 0; i < 2; ++i) {\n        Step(x);\n    }\n}\n\n"
               "int main()\n{\n    aclrtStream s = nullptr;\n    void* x = nullptr;\n"
               "    for (int c = 0; c < 3; ++c) {\n"
               "        k<<<8, nullptr, s>>>(x);\n"
               "        CHECK_ACL(aclrtSynchronizeStream(s));\n"
               "        Check(x);\n"
               "    }\n"
               "    return 0;\n}\n"}});
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string s = t.Read("main.asc");
  EXPECT_THAT(s, HasSubstr("k<<<8, nullptr, s>>>(x, profiling_data);"));
  EXPECT_LT(s.find("aclrtMalloc(&profiling_data"), s.find("    for (int c = 0;")) << s;
  EXPECT_LT(s.find("        Check(x);\n    }\n"), s.find("aclrtMemcpy(optrace_host")) << s;
  EXPECT_LT(s.find("aclrtFree(profiling_data);"), s.find("    return 0;\n}")) << s;
}

TEST(ProfilingChainTest, AKernelWrittenWithAMacroFromAHeaderGetsTheBuffer) {
  TempTree t({{"op_kernel/defs.h", "#define OP_GLOBAL extern \"C\" __global__ __aicore__\n"},
              {"op_kernel/k.cpp",
               "#include \"defs.h\"\nOP_GLOBAL void macro_kernel(GM_ADDR x, GM_ADDR y) {\n"
               "  for (int i = 0; i < 4; ++i) {\n    Step(x, y);\n  }\n}\n"}});
  auto r = RunBinary({"instrument", "--op", t.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(t.Read("op_kernel/k.cpp"), HasSubstr("OP_GLOBAL void macro_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR profiling_data)"));
  auto lint = RunBinary({"lint", "--op", t.path()});
  EXPECT_THAT(lint.out, HasSubstr("0 error(s)")) << lint.out;
}

}  // namespace
}  // namespace optrace
