#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/plan/plan_fixture.h"
#include "source/plan/plan.h"
#include "testing/temp_tree.h"

namespace optrace::source {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::FindSite;

class PlanBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [rel, text] : testing::PlanFixtureFiles()) tree_.Write(rel, text);
    PlanOptions o;
    o.op_dir = tree_.path();
    Result<Plan> p = BuildPlan(o);
    ASSERT_TRUE(p.ok()) << p.status().message();
    plan_ = std::move(*p);
  }
  testing::TempTree tree_;
  Plan plan_;
};

TEST_F(PlanBuilderTest, EntryIsTheGlobalFunctionAndTheRootIsProcessing) {
  ASSERT_EQ(plan_.kernels.size(), 1u);
  EXPECT_EQ(plan_.kernels[0].entry, "op_kernel/kern.cpp");
  EXPECT_EQ(plan_.kernels[0].function, "kern");
  const PlanSite& root = plan_.sites[static_cast<size_t>(plan_.kernels[0].root.site)];
  EXPECT_EQ(root.label, "processing");
  EXPECT_EQ(root.decision, Decision::kPhase);
}

TEST_F(PlanBuilderTest, ByteOrderMarksDoNotHideSites) {
  testing::TempTree bom;
  for (const auto& [rel, text] : testing::PlanFixtureFiles()) bom.Write(rel, "\xEF\xBB\xBF" + text);
  PlanOptions o;
  o.op_dir = bom.path();
  Result<Plan> p = BuildPlan(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->sites.size(), plan_.sites.size());
  for (size_t i = 0; i < p->sites.size() && i < plan_.sites.size(); ++i) {
    EXPECT_EQ(p->sites[i].label, plan_.sites[i].label);
    EXPECT_EQ(p->sites[i].line, plan_.sites[i].line);
  }
}

TEST_F(PlanBuilderTest, TemplateFunctorResolvesThroughBoundCoreType) {
  // Run<AscendC::AIC> calls stage.template operator()<CORE_TYPE>(); if constexpr picks the branch.
  const PlanSite* cube = FindSite(plan_, "Stage::CubeWork");
  const PlanSite* vec = FindSite(plan_, "Stage::VecWork");
  ASSERT_NE(cube, nullptr);
  ASSERT_NE(vec, nullptr);
  EXPECT_EQ(cube->cores, kPlanAic);
  EXPECT_EQ(vec->cores, kPlanAiv);
  EXPECT_EQ(cube->label, "cube-work aic");
}

TEST_F(PlanBuilderTest, ThinWrappersAreMergedIntoTheirParent) {
  EXPECT_EQ(FindSite(plan_, "Kern::Process")->decision, Decision::kMerge);
  EXPECT_EQ(FindSite(plan_, "Kern::Run")->decision, Decision::kMerge);
  EXPECT_THAT(FindSite(plan_, "Kern::Run")->reason, HasSubstr("thin wrapper"));
}

TEST_F(PlanBuilderTest, MacroWrappingACallIsFollowed) {
  const PlanSite* tail = FindSite(plan_, "Tail::Execute");
  ASSERT_NE(tail, nullptr);
  EXPECT_EQ(tail->decision, Decision::kPhase);
}

TEST_F(PlanBuilderTest, NamedLambdaIsItsOwnNode) {
  const PlanSite* drain = FindSite(plan_, "Stage::drain");
  ASSERT_NE(drain, nullptr);
  EXPECT_EQ(drain->cores, kPlanAiv);
  EXPECT_EQ(drain->label, "drain aiv");
}

TEST_F(PlanBuilderTest, CallsInDisabledIfRegionsAreNotFollowed) {
  EXPECT_EQ(FindSite(plan_, "Stage::NeverCalled"), nullptr);
}

TEST_F(PlanBuilderTest, ExpertGroupLoopIsTracedPerIterationWithItsIndex) {
  const PlanSite* loop = FindSite(plan_, "for groupIdx");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->kind, SiteKind::kLoopBody);
  EXPECT_EQ(loop->decision, Decision::kPhase);
  EXPECT_THAT(loop->index, ElementsAre("groupIdx"));
  EXPECT_EQ(loop->label, "cube-work group aic");
}

TEST_F(PlanBuilderTest, FunctionWithAGroupParameterPassesItAsIndex) {
  const PlanSite* acc = FindSite(plan_, "Stage::Accumulate");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->decision, Decision::kPhase);
  EXPECT_THAT(acc->index, ElementsAre("groupIdx"));
}

TEST_F(PlanBuilderTest, SyncAndWaitCallsAreHotStatements) {
  const PlanSite* sync = FindSite(plan_, "AscendC::SyncAll");
  const PlanSite* wait = FindSite(plan_, "AscendC::CrossCoreWaitFlag");
  ASSERT_NE(sync, nullptr);
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(sync->kind, SiteKind::kStatement);
  EXPECT_EQ(sync->decision, Decision::kHot);
  EXPECT_EQ(sync->label, "cube-work sync-all aic");
  EXPECT_EQ(wait->label, "cube-work group accumulate wait-flag aic");
}

TEST_F(PlanBuilderTest, HelperCalledPerElementIsSkippedAndItsLoopNamedAfterIt) {
  const PlanSite* copy = FindSite(plan_, "CopyLine");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->decision, Decision::kSkip);
  EXPECT_THAT(copy->reason, HasSubstr("per element"));
  const PlanSite* loop = FindSite(plan_, "for r");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->decision, Decision::kHot);
  EXPECT_EQ(loop->label, "tail copy-line");
}

TEST_F(PlanBuilderTest, LabelsFollowTheNamingRules) {
  for (const PlanSite& s : plan_.sites) {
    if (s.label.empty()) continue;
    EXPECT_THAT(s.label, ::testing::MatchesRegex("[a-z0-9-]+( [a-z0-9-]+)*")) << s.name;
    EXPECT_LE(s.depth, kMaxLevels) << s.name;
  }
}

TEST_F(PlanBuilderTest, DensityOffTheTargetIsWarnedPerCoreType) {
  // The fixture is small: even with its plain loops added, both core types stay under 15.
  ASSERT_EQ(plan_.warnings.size(), 2u) << FormatPlanText(plan_);
  EXPECT_THAT(plan_.warnings[0], HasSubstr("AIC: 10 distinct labels, within 10-30 but off the target 15-20"));
  EXPECT_THAT(plan_.warnings[1], HasSubstr("AIV: 7 distinct labels, outside 10-30"));
}

TEST_F(PlanBuilderTest, PlainLoopsAreAddedOnlyToReachTheTargetAndNamedAfterWhatTheyWrite) {
  const PlanSite* loop = FindSite(plan_, "for j");
  ASSERT_NE(loop, nullptr);
  EXPECT_TRUE(loop->optional);
  EXPECT_EQ(loop->decision, Decision::kPhase);
  EXPECT_THAT(loop->reason, HasSubstr("density target"));
  EXPECT_EQ(loop->label, "drain acc aiv");  // it writes acc_
}

TEST_F(PlanBuilderTest, PlainLoopWithoutANameFromTheCodeIsNeverProposed) {
  const PlanSite* loop = FindSite(plan_, "for i");  // `n_ += i`: no name of two letters or more
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->decision, Decision::kSkip);
  EXPECT_FALSE(loop->optional);
  for (const PlanSite& s : plan_.sites) EXPECT_THAT(s.label, ::testing::Not(HasSubstr("loop"))) << s.name;
}

TEST_F(PlanBuilderTest, FunctorDispatchingOnTheBoundCoreTypeIsMerged) {
  // operator()<CORE_TYPE> with `if constexpr` only forwards to CubeWork / VecWork.
  const PlanSite* op = FindSite(plan_, "Stage::operator()");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->decision, Decision::kMerge);
}

TEST(PlanLabelsTest, SameFunctionNameInTwoClassesGetsTheWordWhereTheClassesDiffer) {
  // DispatchGmmCombineDecode: CamMoeDistributeDispatch::Init and CamMoeDistributeCombine::Init
  // would both be "init aiv" and pool unrelated ranges.
  testing::TempTree tree({{"op_kernel/k.cpp", R"cc(
class CamMoeDistributeDispatch {
public:
    __aicore__ inline void Init(GM_ADDR x)
    {
        for (int i = 0; i < n; ++i) {
            a[i] = Load(x, i);
            SyncAll();
        }
    }
    int n; int a[8];
};
class CamMoeDistributeCombine {
public:
    __aicore__ inline void Init(GM_ADDR x)
    {
        for (int i = 0; i < n; ++i) {
            b[i] = Load(x, i);
            SyncAll();
        }
    }
    int n; int b[8];
};
extern "C" __global__ __aicore__ void kern(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    CamMoeDistributeDispatch d;
    d.Init(x);
    CamMoeDistributeCombine c;
    c.Init(x);
}
)cc"}});
  PlanOptions o;
  o.op_dir = tree.path();
  Result<Plan> p = BuildPlan(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const PlanSite* d = FindSite(*p, "CamMoeDistributeDispatch::Init");
  const PlanSite* c = FindSite(*p, "CamMoeDistributeCombine::Init");
  ASSERT_NE(d, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(d->label, "dispatch-init");
  EXPECT_EQ(c->label, "combine-init");
}

TEST(PlanLabelsTest, LoopIsNamedByItsWorkNotItsSetUpAndScalarSetUpIsNotAPhase) {
  // vllm-ascend apply_top_k_top_p: `InitProcessTopK(); ProcessRemainTopK();` in a batch loop;
  // moe_combine_normal: InitMagic() is a few scalar assignments.
  testing::TempTree tree({{"op_kernel/k.cpp", R"cc(
class TopK {
public:
    __aicore__ inline void InitMagic()
    {
        magic = 1;
        seen = 0;
    }
    __aicore__ inline void InitProcessTopK(int b)
    {
        for (int i = 0; i < n; ++i) {
            buf[i] = 0;
            buf[i + 1] = magic + seen * 2 + n * 3 + batches * 4;
            buf[i + 2] = magic - seen * 2 - n * 3 - batches * 4;
            buf[i + 3] = magic * seen * 2 * n * 3 * batches * 4;
        }
    }
    __aicore__ inline void ProcessRemainTopK(int b)
    {
        for (int i = 0; i < n; ++i) {
            buf[i] = Reduce(i, b);
            Store(i);
        }
        for (int i = 0; i < n; ++i) {
            buf[i] += Reduce(i, b);
        }
    }
    __aicore__ inline void Process()
    {
        InitMagic();
        for (int b = 0; b < batches; ++b) {
            InitProcessTopK(b);
            ProcessRemainTopK(b);
        }
        SyncAll();
    }
    int magic, seen, n, batches;
    int buf[8];
};
extern "C" __global__ __aicore__ void kern(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    TopK op;
    op.Process();
}
)cc"}});
  PlanOptions o;
  o.op_dir = tree.path();
  Result<Plan> p = BuildPlan(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const PlanSite* magic = FindSite(*p, "TopK::InitMagic");
  ASSERT_NE(magic, nullptr);
  EXPECT_EQ(magic->decision, Decision::kSkip);
  EXPECT_THAT(magic->reason, HasSubstr("set-up of a few values"));
  const PlanSite* loop = FindSite(*p, "for b");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->word, "process-remain-top-k");
}

// add_rms_norm_bias: `for (i_o ...) SubProcess(i_o, ...); SubProcess(last, tail);` runs the tile
// work inside a loop and once more after it. A mark in SubProcess (and in its own row loop) would
// repeat per tile, hundreds of events per core past the 1,020-event buffer, although one path
// reaches it outside the loop. The tile loop is traced as a whole instead.
TEST(PlanTileLoopsTest, WorkRunPerTileOnAnyPathIsNotMarkedAndTheTileLoopIsTracedWhole) {
  testing::TempTree tree({{"op_kernel/k.cpp", R"cc(
class Norm {
public:
    __aicore__ inline void Process()
    {
        CopyInGamma();
        for (uint32_t i_o = 0; i_o < tiles - 1; i_o++) {
            SubProcess(i_o, rowFactor);
        }
        SubProcess(tiles - 1, rowTail);
    }
    __aicore__ inline void SubProcess(uint32_t i_o, uint32_t rows)
    {
        for (uint32_t i_i = 0; i_i < rows; i_i++) {
            CopyIn(i_o * rowFactor + i_i);
            Compute(i_i);
            CopyOut(i_o * rowFactor + i_i);
        }
        CopyOutRstd(i_o, rows);
    }
private:
    __aicore__ inline void CopyInGamma() { DataCopy(gammaLocal, gammaGm, n); DataCopy(betaLocal, betaGm, n); }
    __aicore__ inline void CopyIn(uint32_t off) { DataCopy(xLocal, xGm[off], n); }
    __aicore__ inline void Compute(uint32_t r) { Add(yLocal, xLocal, gammaLocal, n); }
    __aicore__ inline void CopyOut(uint32_t off) { DataCopy(yGm[off], yLocal, n); }
    __aicore__ inline void CopyOutRstd(uint32_t i, uint32_t rows) { DataCopy(rstdGm[i], rstdLocal, rows); }
    uint32_t tiles, rowFactor, rowTail, n;
};
extern "C" __global__ __aicore__ void kern(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    Norm op;
    op.Process();
}
)cc"}});
  PlanOptions o;
  o.op_dir = tree.path();
  Result<Plan> p = BuildPlan(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const PlanSite* sub = FindSite(*p, "Norm::SubProcess");
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->decision, Decision::kSkip);
  EXPECT_THAT(sub->reason, HasSubstr("per element"));
  const PlanSite* rows = FindSite(*p, "for i_i");
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(rows->decision, Decision::kSkip);
  const PlanSite* tiles = FindSite(*p, "for i_o");
  ASSERT_NE(tiles, nullptr);
  EXPECT_EQ(tiles->decision, Decision::kHot);
  EXPECT_EQ(tiles->kind, SiteKind::kLoop);  // around the loop, not per iteration
  EXPECT_THAT(tiles->reason, HasSubstr("per tile: traced as a whole"));
  EXPECT_EQ(tiles->word, "sub-process");
  // Nothing that runs inside the tile loop is marked.
  for (const char* name : {"Norm::CopyIn", "Norm::Compute", "Norm::CopyOut", "Norm::CopyOutRstd"})
    if (const PlanSite* s = FindSite(*p, name)) EXPECT_FALSE(Inserts(s->decision)) << name;
  for (const PlanSite& s : p->sites)
    if (s.kind == SiteKind::kStatement) EXPECT_FALSE(Inserts(s.decision)) << s.name << " line " << s.line;
}

// An argmax loop keeps its running maximum in a variable it declares (`float curMax = ...;` then
// `curMax = v;`): the loop was labelled "cur-max", a variable's name. What it writes out names it.
TEST(PlanLabelsTest, AVariableTheLoopDeclaresNeverNamesItEvenWhenWrittenLater) {
  testing::TempTree tree({{"op_kernel/k.cpp", R"cc(
class ArgMax {
public:
    __aicore__ inline void Process()
    {
        for (uint32_t j = 0; j < len; ++j) {
            float curMax = -1.0f;
            uint32_t curArg = 0;
            for (uint32_t r = 0; r < k; ++r) {
                float v = src[r * len + j];
                if (v > curMax) { curMax = v; curArg = r; }
            }
            outIndex[j] = curArg;
        }
    }
    uint32_t len, k;
    __gm__ float* src;
    __gm__ int64_t* outIndex;
};
extern "C" __global__ __aicore__ void kern(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    ArgMax op;
    op.Process();
}
)cc"}});
  PlanOptions o;
  o.op_dir = tree.path();
  Result<Plan> p = BuildPlan(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  for (const PlanSite& s : p->sites) {
    EXPECT_EQ(s.word.find("cur"), std::string::npos) << s.name << ": " << s.word;
    EXPECT_EQ(s.label.find("cur-"), std::string::npos) << s.name << ": " << s.label;
  }
  const PlanSite* loop = FindSite(*p, "for j");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->word, "out-index");
}

TEST(PlanErrorsTest, DirectoryWithoutKernelEntryNamesWhatToDo) {
  testing::TempTree tree({{"op_kernel/helper.h", "inline void F() {}\n"}});
  PlanOptions o;
  o.op_dir = tree.path();
  Result<Plan> p = BuildPlan(o);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("no kernel entry found"));
  EXPECT_THAT(p.status().message(), HasSubstr("--entry"));
}

}  // namespace
}  // namespace optrace::source

namespace optrace::source {
namespace {

// incre_flash_attention: the entry forwards to incre_flash_attention_FIAS, another __global__ of
// the same file; the callee is part of the entry, not a second kernel with its own root range.
TEST(PlanEntriesTest, AGlobalThatAnotherKernelCallsIsNotAnEntry) {
  testing::TempTree t(
      {{"op_kernel/attn.cpp",
        "#include \"kernel_operator.h\"\n"
        "template <int T>\n__global__ __aicore__ void attn_FIAS(GM_ADDR q, GM_ADDR out, GM_ADDR tiling) {\n"
        "  for (int i = 0; i < 4; ++i) {\n    Step(q, out);\n  }\n}\n"
        "template <int T>\n__global__ __aicore__ void attn(GM_ADDR q, GM_ADDR out, GM_ADDR tiling) {\n"
        "  attn_FIAS<T>(q, out, tiling);\n}\n"}});
  PlanOptions o;
  o.op_dir = t.path();
  Result<Plan> p = BuildPlan(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].function, "attn");
}

}  // namespace
}  // namespace optrace::source

namespace optrace::source {
namespace {

Result<Plan> PlanOfTree(const testing::TempTree& tree) {
  PlanOptions o;
  o.op_dir = tree.path();
  return BuildPlan(o);
}

// The ways AscendC kernels are written besides `extern "C" __global__ __aicore__` in a .cpp
// under op_kernel/ (issue 50.2).
TEST(PlanKernelFormsTest, AMixKernelIsFoundAndRunsOnBothCoreTypes) {
  testing::TempTree t({{"op_kernel/k.cpp",
                        "extern \"C\" __global__ __mix__(1, 2) void mix_kernel(GM_ADDR x, GM_ADDR y) {\n"
                        "  for (int i = 0; i < 4; ++i) {\n    Step(x, y);\n  }\n}\n"}});
  Result<Plan> p = PlanOfTree(t);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].function, "mix_kernel");
  EXPECT_EQ(p->kernels[0].cores, 3u);
}

TEST(PlanKernelFormsTest, VectorAndCubeQualifiersDeclareTheCoreType) {
  testing::TempTree t({{"k.asc",
                        "template <typename T>\n__global__ __aicore__ __vector__ void add(GM_ADDR x) {\n"
                        "  for (int i = 0; i < 4; ++i) {\n    Step(x);\n  }\n}\n"}});
  Result<Plan> p = PlanOfTree(t);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].cores, 2u);  // AIV
}

TEST(PlanKernelFormsTest, ACceFileDefinesKernels) {
  testing::TempTree t({{"kernels/k.cce",
                        "extern \"C\" __global__ __aicore__ void cce_kernel(__gm__ uint8_t* x) {\n"
                        "  for (int i = 0; i < 4; ++i) {\n    Step(x);\n  }\n}\n"}});
  Result<Plan> p = PlanOfTree(t);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].entry, "kernels/k.cce");
}

TEST(PlanKernelFormsTest, AKernelWrittenWithAMacroFromAHeaderIsFound) {
  testing::TempTree t({{"op_kernel/defs.h", "#define OP_GLOBAL extern \"C\" __global__ __aicore__\n"},
                       {"op_kernel/k.cpp",
                        "#include \"defs.h\"\nOP_GLOBAL void macro_kernel(GM_ADDR x) {\n"
                        "  for (int i = 0; i < 4; ++i) {\n    Step(x);\n  }\n}\n"}});
  Result<Plan> p = PlanOfTree(t);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].function, "macro_kernel");
}

TEST(PlanKernelFormsTest, GlobalInACommentOrAStringIsNoKernel) {
  testing::TempTree t({{"op_kernel/notes.cpp",
                        "// every __global__ function lives in real.cpp\n"
                        "const char* kDoc = \"__global__\";\n"
                        "inline void Helper() {}\n"}});
  Result<Plan> p = PlanOfTree(t);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("no kernel entry found"));
}

}  // namespace
}  // namespace optrace::source
