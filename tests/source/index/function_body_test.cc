#include "source/index/function_body.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/index/index_test_util.h"

namespace optrace::source::index {
namespace {

using ::testing::ElementsAre;

// The body of the one function `name` of a single-file index.
class FunctionBodyTest : public ::testing::Test {
 protected:
  const FunctionBody& Parse(const std::string& text, const std::string& name = "f") {
    files_ = std::make_unique<IndexedFiles>(std::initializer_list<std::pair<std::string, std::string>>{
        {"op_kernel/x.cpp", text}});
    fn_ = files_->Function(name);
    EXPECT_NE(fn_, nullptr) << name;
    static const FunctionBody kEmpty;
    return fn_ ? files_->index().Body(*fn_) : kEmpty;
  }
  std::vector<std::string> Calls() const { return CallNames(files_->index(), *fn_); }
  const TokenStream& stream() const { return *fn_->stream; }
  std::string Head(const Control& c) const { return stream().Join(c.head_begin, c.head_end); }

  std::unique_ptr<IndexedFiles> files_;
  const FunctionDef* fn_ = nullptr;
};

TEST_F(FunctionBodyTest, BlocksNestedPastTheBoundAreNotReadNotAStackOverflow) {
  // Issue 29.10: the parser recursed once per level; 80,000 nested braces overflowed the stack.
  std::string text = "void f() {\n  Before();\n";
  for (int i = 0; i < 80000; ++i) text += "{";
  text += " Inner(); ";
  for (int i = 0; i < 80000; ++i) text += "}";
  text += "\n  After();\n}\n";
  const FunctionBody& b = Parse(text);
  EXPECT_LE(b.controls.size(), static_cast<size_t>(kMaxBlockDepth));
  EXPECT_THAT(Calls(), ElementsAre("Before", "After"));
}

TEST_F(FunctionBodyTest, ElseIfChainHangsFromItsElse) {
  // dispatch_normal_a2.cpp selects the kernel by tiling key.
  const FunctionBody& b = Parse(R"cc(
void f() {
    if (TILING_KEY_IS(2100001000)) {
        Layered();
    } else if (TILING_KEY_IS(2000000000)) {
        Normal();
    } else {
        Fallback();
    }
})cc");
  ASSERT_EQ(b.controls.size(), 4u);
  EXPECT_EQ(b.controls[0].kind, Control::kIf);
  EXPECT_EQ(Head(b.controls[0]), "TILING_KEY_IS(2100001000)");
  EXPECT_EQ(b.controls[1].kind, Control::kElse);
  EXPECT_EQ(b.controls[1].else_of, 0);
  EXPECT_EQ(b.controls[2].kind, Control::kIf);
  EXPECT_EQ(b.controls[2].parent, 1);
  EXPECT_EQ(b.controls[2].else_of, 0);  // continues the chain of the first if
  EXPECT_EQ(b.controls[3].kind, Control::kElse);
  EXPECT_EQ(b.controls[3].else_of, 2);
  std::vector<int> where;
  for (const CallSite& c : b.calls) where.push_back(c.control);
  EXPECT_THAT(Calls(), ElementsAre("TILING_KEY_IS", "Layered", "TILING_KEY_IS", "Normal", "Fallback"));
  EXPECT_THAT(where, ElementsAre(0, 0, 2, 2, 3));
}

TEST_F(FunctionBodyTest, IfWhoseParenthesesComeFromAMacro) {
  // `if ASCEND_IS_AIV {`: the macro expands to `(g_coreType == AscendC::AIV)` in the CANN headers.
  const FunctionBody& b = Parse(R"cc(
void f() {
    if ASCEND_IS_AIV {
        Input2Win();
    }
})cc");
  ASSERT_EQ(b.controls.size(), 1u);
  EXPECT_EQ(Head(b.controls[0]), "ASCEND_IS_AIV");
  EXPECT_TRUE(b.controls[0].braced);
  ASSERT_EQ(b.calls.size(), 1u);
  EXPECT_EQ(b.calls[0].control, 0);
}

TEST_F(FunctionBodyTest, BracelessBodiesAreControlsToo) {
  const FunctionBody& b = Parse(R"cc(
void f() {
    if (aivId_ == 0) CleanUp();
    for (uint32_t i_o = 0; i_o < i_o_max - 1; i_o++) SubProcess(i_o, rowFactor);
    Finalize();
})cc");
  ASSERT_EQ(b.controls.size(), 2u);
  EXPECT_FALSE(b.controls[0].braced);
  EXPECT_EQ(stream().Text(b.controls[0].body_begin), "CleanUp");
  EXPECT_EQ(stream().Text(b.controls[0].body_end), ";");
  EXPECT_THAT(Calls(), ElementsAre("CleanUp", "SubProcess", "Finalize"));
  EXPECT_EQ(b.calls[0].control, 0);
  EXPECT_EQ(b.calls[1].control, 1);
  EXPECT_EQ(b.calls[2].control, -1);
}

TEST_F(FunctionBodyTest, LoopVariablesAreReadFromEveryForShape) {
  const FunctionBody& b = Parse(R"cc(
void f() {
    for (uint32_t groupIdx = 0; groupIdx < params.expertPerRank; ++groupIdx) { Gmm(groupIdx); }
    for (auto &expert : experts) { Route(expert); }
    for (; loopIdx < coreLoops; loopIdx += aicCoreNum) { Step(loopIdx); }
    while (cubeBlockScheduler.isRunning) { cubeBlockScheduler.InitTask(); }
})cc");
  ASSERT_EQ(b.controls.size(), 4u);
  EXPECT_EQ(b.controls[0].loop_var, "groupIdx");
  EXPECT_EQ(b.controls[0].loop_var_type.Str(), "uint32_t");
  EXPECT_EQ(b.controls[1].loop_var, "expert");
  EXPECT_EQ(b.controls[2].loop_var, "loopIdx");
  EXPECT_EQ(b.controls[3].kind, Control::kWhile);
  EXPECT_TRUE(b.controls[3].IsLoop());
  EXPECT_EQ(b.calls.back().object, "cubeBlockScheduler");
}

TEST_F(FunctionBodyTest, SwitchCasesHoldTheStatementsUpToTheNextLabel) {
  const FunctionBody& b = Parse(R"cc(
void f() {
    switch (role_) {
        case AivRole::kSend:
            SendTokens();
            break;
        case AivRole::kRecv:
            RecvTokens();
            break;
        default:
            break;
    }
})cc");
  ASSERT_EQ(b.controls.size(), 4u);
  EXPECT_EQ(b.controls[0].kind, Control::kSwitch);
  EXPECT_EQ(b.controls[1].kind, Control::kCase);
  EXPECT_EQ(b.controls[1].parent, 0);
  EXPECT_EQ(Head(b.controls[1]), "AivRole::kSend");
  EXPECT_EQ(Head(b.controls[2]), "AivRole::kRecv");
  EXPECT_EQ(b.controls[3].kind, Control::kCase);
  EXPECT_EQ(b.calls[0].control, 1);
  EXPECT_EQ(b.calls[1].control, 2);
}

TEST_F(FunctionBodyTest, DeclarationsConstructTheirClassUnlessInitialisedByCopy) {
  // sgl_catlass_matmul mm_wfp8a16.hpp, operator()<AscendC::AIC>.
  const FunctionBody& b = Parse(R"cc(
void f() {
    BlockMmad blockMmad(resource, params.mmadParams);
    GemmCoord blockShape = L1TileShape::ToCoord();
    AscendC::GlobalTensor<ElementA> gmA;
    auto layoutBlockA = params.layoutA.GetTileLayout(actualBlockShape.GetCoordMK());
    auto matmulBlockScheduler = BlockScheduler(params.problemShape, blockShape.GetCoordMN());
    uint32_t coreLoops = matmulBlockScheduler.GetCoreLoops();
    GemmCoord &shapeRef = blockShape;
})cc");
  EXPECT_THAT(Calls(), ElementsAre("new:BlockMmad", "L1TileShape::ToCoord", "new:AscendC::GlobalTensor<ElementA>",
                                   "params.layoutA.GetTileLayout", "actualBlockShape.GetCoordMK", "BlockScheduler",
                                   "blockShape.GetCoordMN", "matmulBlockScheduler.GetCoreLoops"));
  EXPECT_EQ(b.calls[0].args.size(), 2u);
  std::vector<std::string> locals;
  for (const LocalDecl& d : b.locals) locals.push_back(d.name + ":" + d.type.Str());
  EXPECT_THAT(locals, ElementsAre("blockMmad:BlockMmad", "blockShape:GemmCoord", "gmA:AscendC::GlobalTensor<ElementA>",
                                  "layoutBlockA:auto", "matmulBlockScheduler:BlockScheduler", "coreLoops:uint32_t",
                                  "shapeRef:GemmCoord"));
}

TEST_F(FunctionBodyTest, AliasesAreScopedToTheirBranch) {
  // chunk_fwd_o.cpp: the same alias name means a different kernel in each branch.
  const FunctionBody& b = Parse(R"cc(
void f() {
    using workspaceType = float;
    if (gdnFwdOTilingData->gDataType == 2) {
        using GDNFwdOKernel = Catlass::Gemm::Kernel::GDNFwdOKernel<bfloat16_t, float, workspaceType>;
        GDNFwdOKernel gdnFwdO;
        gdnFwdO.Process();
    } else {
        using GDNFwdOKernel = Catlass::Gemm::Kernel::GDNFwdOKernel<bfloat16_t, bfloat16_t, workspaceType>;
        GDNFwdOKernel gdnFwdO;
        gdnFwdO.Process();
    }
})cc");
  std::vector<std::string> aliases;
  for (const LocalDecl& d : b.locals)
    if (d.is_alias) aliases.push_back(d.name + "@" + std::to_string(d.control) + "=" + d.type.Str());
  const std::string k = "Catlass::Gemm::Kernel::GDNFwdOKernel";
  EXPECT_THAT(aliases, ElementsAre("workspaceType@-1=float",
                                   "GDNFwdOKernel@0=" + k + "<bfloat16_t, float, workspaceType>",
                                   "GDNFwdOKernel@1=" + k + "<bfloat16_t, bfloat16_t, workspaceType>"));
}

TEST_F(FunctionBodyTest, ExplicitTemplateArgumentsAndQualifiersOfCalls) {
  const FunctionBody& b = Parse(R"cc(
void f() {
    AscendC::SyncAll<true>();
    stage.template operator()<CORE_TYPE>();
    CopyGMToGM<int32_t>(dst, src, elemNum, ubMoveNum);
    Arch::CrossCoreSetFlag<0x2, PIPE_FIX>(cubeBlockScheduler.cube1Done);
})cc");
  ASSERT_EQ(b.calls.size(), 4u);
  EXPECT_EQ(b.calls[0].qualifier.Str(), "AscendC");
  EXPECT_TRUE(b.calls[0].has_targs);
  EXPECT_EQ(b.calls[0].targs[0].value, "true");
  EXPECT_EQ(b.calls[1].name, "operator()");
  EXPECT_EQ(b.calls[1].object, "stage");
  ASSERT_EQ(b.calls[1].targs.size(), 1u);
  EXPECT_EQ(b.calls[1].targs[0].Str(), "CORE_TYPE");
  EXPECT_EQ(b.calls[2].targs[0].Str(), "int32_t");
  EXPECT_EQ(b.calls[2].args.size(), 4u);
  EXPECT_EQ(b.calls[3].name, "CrossCoreSetFlag");
  EXPECT_EQ(b.calls[3].targs.size(), 2u);
}

TEST_F(FunctionBodyTest, ObjectOfACallIsANameChainOrComplex) {
  const FunctionBody& b = Parse(R"cc(
void f() {
    this->initBuffer(params);
    hccl_.Finalize();
    GetMoeProfilePtr()[0].Reset();
    gmA[offset].SetGlobalBuffer(ptr);
})cc");
  EXPECT_EQ(b.calls[0].object, "this");
  EXPECT_EQ(b.calls[1].object, "hccl_");
  const CallSite* reset = CallNamed(files_->index(), *fn_, "Reset");
  ASSERT_NE(reset, nullptr);
  EXPECT_TRUE(reset->object_complex);
  EXPECT_TRUE(CallNamed(files_->index(), *fn_, "SetGlobalBuffer")->object_complex);
}

TEST_F(FunctionBodyTest, NamedLambdaIsALocalAndCallbackLambdaRunsWhereItIsPassed) {
  const FunctionBody& b = Parse(R"cc(
void f() {
    auto drain = [&](uint32_t i) { CopyOut(i); };
    drain(0);
    ForEachExpert([&](int32_t e) { Compute(e); });
})cc");
  ASSERT_EQ(b.lambdas.size(), 2u);
  EXPECT_EQ(b.lambdas[0]->name, "drain");
  EXPECT_FALSE(b.lambdas[0]->is_callback);
  EXPECT_TRUE(b.lambdas[1]->is_callback);
  EXPECT_EQ(b.lambdas[1]->parent, fn_);
  EXPECT_TRUE(b.locals[0].is_lambda);
  EXPECT_THAT(Calls(), ElementsAre("drain", "ForEachExpert", "lambda"));
  EXPECT_EQ(b.calls[2].lambda, b.lambdas[1]);
  // A lambda's calls are in its own body.
  EXPECT_THAT(CallNames(files_->index(), *b.lambdas[0]), ElementsAre("CopyOut"));
  EXPECT_EQ(b.lambdas[0]->params.size(), 1u);
}

TEST_F(FunctionBodyTest, DoWhileWrapperFromAMacroIsADoControl) {
  // add_rms_norm_bias.cpp: GENERAL_OP_IMPL wraps the kernel object in `do { ... } while (0)`.
  const FunctionBody& b = Parse(R"cc(
#define GENERAL_OP_IMPL(templateClass, ...)              \
    do {                                                 \
        templateClass<__VA_ARGS__> op(&pipe);            \
        op.Init(x1, x2, gamma, &tilingData);             \
        op.Process();                                    \
    } while (0)
void f() {
    GENERAL_OP_IMPL(KernelAddRmsNormBias, half);
})cc");
  ASSERT_EQ(b.controls.size(), 1u);
  EXPECT_EQ(b.controls[0].kind, Control::kDo);
  EXPECT_EQ(Head(b.controls[0]), "0");
  EXPECT_THAT(Calls(), ElementsAre("new:KernelAddRmsNormBias<half>", "op.Init", "op.Process"));
  for (const CallSite& c : b.calls) {
    EXPECT_EQ(c.control, 0);
    EXPECT_EQ(c.line, 9);
    ASSERT_NE(c.macro, nullptr);
    EXPECT_EQ(c.macro->name, "GENERAL_OP_IMPL");
  }
}

TEST_F(FunctionBodyTest, ReturnsAndControlAtFindTheInnermostControl) {
  const FunctionBody& b = Parse(R"cc(
void f() {
    if (aivId_ >= SERVER_RANK_SIZE) {
        return;
    }
    for (uint32_t i = 0; i < n; ++i) {
        if (tempVal >= waitVal) {
            Mark(i);
        }
    }
})cc");
  ASSERT_EQ(b.returns.size(), 1u);
  EXPECT_EQ(b.ControlAt(b.returns[0]), 0);
  const CallSite* mark = CallNamed(files_->index(), *fn_, "Mark");
  ASSERT_NE(mark, nullptr);
  EXPECT_EQ(mark->control, 2);
  EXPECT_EQ(b.ControlAt(mark->pos), 2);
  EXPECT_EQ(b.controls[2].parent, 1);
}

TEST_F(FunctionBodyTest, FundamentalTypesAreNeverConstructed) {
  EXPECT_TRUE(IsFundamentalType("uint32_t"));
  EXPECT_TRUE(IsFundamentalType("GM_ADDR"));
  EXPECT_TRUE(IsFundamentalType("bfloat16_t"));
  EXPECT_FALSE(IsFundamentalType("GemmCoord"));
}

}  // namespace
}  // namespace optrace::source::index
