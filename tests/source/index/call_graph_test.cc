#include "source/index/call_graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/index/index_test_util.h"

namespace optrace::source::index {
namespace {

using ::testing::Contains;
using ::testing::Each;
using ::testing::EndsWith;
using ::testing::IsSupersetOf;
using ::testing::Not;
using ::testing::SizeIs;

CallGraph GraphOf(const IndexedFiles& ix, const std::string& kernel) {
  const FunctionDef* k = ix.Kernel(kernel);
  EXPECT_NE(k, nullptr) << kernel;
  return CallGraph::Build(ix.index(), *k);
}

// Roles of the edges leaving nodes of `caller`, as "Callee#role".
std::vector<std::string> EdgeRoles(const CallGraph& g, const std::string& caller) {
  std::vector<std::string> out;
  for (const GraphNode* n : NodesOf(g, caller))
    for (const GraphEdge& e : n->edges)
      out.push_back(g.nodes()[static_cast<size_t>(e.callee)].inst.fn->DisplayName() + "#" + e.role);
  return out;
}

class FfnCombineCallGraphTest : public ::testing::Test {
 protected:
  FfnCombineCallGraphTest() : ix_(FfnCombineTree()), g_(GraphOf(ix_, "dispatch_ffn_combine_w4_a8")) {}
  IndexedFiles ix_;
  CallGraph g_;
};

TEST_F(FfnCombineCallGraphTest, DeclaredTaskTypeGivesTheKernelsCores) {
  EXPECT_TRUE(g_.kernel_type().declared);
  EXPECT_EQ(g_.kernel_type().cores, kCoreBoth);
  EXPECT_EQ(g_.kernel_type().task_type, "KERNEL_TYPE_MIX_AIC_1_2");
  EXPECT_EQ(g_.root().cores, kCoreBoth);
  EXPECT_FALSE(g_.truncated());
}

TEST_F(FfnCombineCallGraphTest, FunctorCallSplitsIntoTheCubeAndVectorSpecialisations) {
  EXPECT_THAT(Reached(g_), IsSupersetOf({"DispatchFFNCombineW4A8::Init@AIC+AIV",
                                         "DispatchFFNCombineW4A8::Process@AIC+AIV",
                                         "DispatchFFNCombineW4A8Kernel::DispatchFFNCombineW4A8Kernel@AIC+AIV",
                                         "DispatchFFNCombineW4A8Kernel::initBuffer@AIC+AIV",
                                         "DispatchFFNCombineW4A8Kernel::operator()<AscendC::AIC>@AIC",
                                         "DispatchFFNCombineW4A8Kernel::operator()<AscendC::AIV>@AIV"}));
}

TEST_F(FfnCombineCallGraphTest, CoreOfASpecialisationFlowsToEverythingItCalls) {
  EXPECT_THAT(Reached(g_), IsSupersetOf({"DispatchFFNCombineW4A8Kernel::GMM1@AIC", "BlockMmad::BlockMmad@AIC",
                                         "BlockMmad::operator()@AIC", "BlockMmad::SynchronizeBlock@AIC",
                                         "BlockMmad::Finalize@AIC", "BlockMmad::InitL1@AIC"}));
  EXPECT_THAT(Reached(g_), IsSupersetOf({"DispatchFFNCombineW4A8Kernel::DispatchAndCombine@AIV",
                                         "DispatchFFNCombineW4A8Kernel::GetCumsumForMMAIV@AIV",
                                         "BlockEpilogue::BlockEpilogue@AIV", "BlockEpilogue::operator()@AIV",
                                         "BlockEpilogue::Dequant@AIV", "BlockEpilogue::Finalize@AIV"}));
  for (const GraphNode* n : NodesOf(g_, "DispatchFFNCombineW4A8Kernel::GMM1")) EXPECT_EQ(n->cores, kCoreAic);
}

TEST_F(FfnCombineCallGraphTest, OtherDispatchPoliciesAreNeverReached) {
  std::vector<std::string> reached = Reached(g_);
  EXPECT_THAT(reached, Not(Contains("BlockMmad::FixpipeQuant@AIC")));
  for (const GraphNode& n : g_.nodes())
    EXPECT_NE(n.inst.fn->file, ix_.File("op_kernel/utils/block_mmad_preload_fixpipe_quant.hpp"))
        << n.inst.fn->DisplayName();
}

TEST_F(FfnCombineCallGraphTest, EdgesCarryTheirCallAndCores) {
  std::vector<const GraphNode*> process = NodesOf(g_, "DispatchFFNCombineW4A8::Process");
  ASSERT_THAT(process, SizeIs(1));
  std::vector<std::string> edges;
  for (const GraphEdge& e : process[0]->edges)
    edges.push_back(e.call->name + ":" + std::to_string(e.call->line) + "@" + CoreName(e.cores));
  EXPECT_THAT(edges, IsSupersetOf({"MatmulKernel:62@AIC+AIV", "kernel:63@AIC", "kernel:63@AIV"}));
}

TEST(CallGraphTest, VectorOnlyKernelIsInferredAiv) {
  // add_rms_norm_bias: no KERNEL_TASK_TYPE, no cube code; GENERAL_OP_IMPL builds the kernel object.
  IndexedFiles ix({{"op_kernel/add_rms_norm_bias.cpp", R"cc(
#include "add_rms_norm_bias.h"
#define GENERAL_OP_IMPL(templateClass, ...)              \
    do {                                                 \
        templateClass<__VA_ARGS__> op(&pipe);            \
        op.Init(x1, x2, gamma, beta, y, rstd, x, &tilingData); \
        op.Process();                                    \
    } while (0)

extern "C" __global__ __aicore__ void add_rms_norm_bias(
    GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR rstd, GM_ADDR x, GM_ADDR workspace,
    GM_ADDR tiling)
{
    TPipe pipe;
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(10)) {
        GENERAL_OP_IMPL(KernelAddRmsNormBias, half);
    } else if (TILING_KEY_IS(20)) {
        GENERAL_OP_IMPL(KernelAddRmsNormBias, float);
    }
}
)cc"},
                   {"op_kernel/add_rms_norm_bias.h", R"cc(
template <typename T>
class KernelAddRmsNormBias {
public:
    __aicore__ inline KernelAddRmsNormBias(TPipe* pipe) { Ppipe = pipe; }
    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR rstd,
                                GM_ADDR x, const AddRMSNormBiasTilingData* tiling) {}
    __aicore__ inline void Process()
    {
        CopyInGammaBeta();
        for (uint32_t i_o = 0; i_o < i_o_max - 1; i_o++) {
            SubProcess(i_o, rowFactor);
        }
    }
private:
    __aicore__ inline void CopyInGammaBeta() { DataCopy(gammaLocal, gammaGm, numCol); }
    __aicore__ inline void SubProcess(uint32_t i_o, uint32_t calc_row_num) { Add(xLocal, x1Local, x2Local, num); }
};
)cc"}});
  CallGraph g = GraphOf(ix, "add_rms_norm_bias");
  EXPECT_FALSE(g.kernel_type().declared);
  EXPECT_EQ(g.kernel_type().cores, kCoreAiv);
  EXPECT_EQ(g.kernel_type().evidence, "no cube code reached from the entry");
  EXPECT_THAT(Reached(g), Each(EndsWith("@AIV")));
  // One instantiation per dtype.
  EXPECT_THAT(NodesOf(g, "KernelAddRmsNormBias::SubProcess"), SizeIs(2));
}

TEST(CallGraphTest, KernelCallingCubeUnitOperationsIsInferredAic) {
  IndexedFiles ix({{"op_kernel/mm.cpp", R"cc(
__aicore__ inline void ComputeTile() { LoadData(a2, a1, loadParams); Mmad(c1, a2, b2, mmadParams); }
extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c) { ComputeTile(); }
)cc"}});
  CallGraph g = GraphOf(ix, "matmul_custom");
  EXPECT_EQ(g.kernel_type().cores, kCoreAic);
  EXPECT_EQ(g.kernel_type().evidence, "only cube code reached from the entry");
  EXPECT_THAT(Reached(g), Contains("ComputeTile@AIC"));
}

TEST(CallGraphTest, CubeCodeThatSignalsTheVectorCoresIsMixed) {
  IndexedFiles ix({{"op_kernel/mm.cpp", R"cc(
__aicore__ inline void ComputeTile() { Mmad(c1, a2, b2, mmadParams); CrossCoreSetFlag<0x2, PIPE_FIX>(flag); }
extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a) { ComputeTile(); }
)cc"}});
  EXPECT_EQ(GraphOf(ix, "matmul_custom").kernel_type().cores, kCoreBoth);
}

// Core conditions of real kernels: ASCEND_IS_AIC/AIV, g_coreType, __DAV_C220_CUBE__ regions, if constexpr on a
// bound CORE_TYPE.
constexpr const char* kCoreBranches = R"cc(
class Kern {
public:
    __aicore__ inline void Process() {
        if ASCEND_IS_AIC {
            CubeLoop();
        } else {
            VecLoop();
        }
        if (g_coreType == AscendC::AIV) {
            Combine();
        }
#ifdef __DAV_C220_CUBE__
        CubeOnly();
#endif
        Run<AscendC::AIC>();
    }
    __aicore__ inline void CubeLoop() {}
    __aicore__ inline void VecLoop() {}
    __aicore__ inline void Combine() {}
    __aicore__ inline void CubeOnly() {}
    template <int32_t CORE_TYPE>
    __aicore__ inline void Run() {
        if constexpr (CORE_TYPE == AscendC::AIV) {
            VecStage();
        } else {
            CubeStage();
        }
    }
    __aicore__ inline void VecStage() {}
    __aicore__ inline void CubeStage() {}
};
extern "C" __global__ __aicore__ void kern(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    Kern op;
    op.Process();
}
)cc";

TEST(CallGraphTest, CoreConditionsNarrowWhatTheyControl) {
  IndexedFiles ix({{"op_kernel/kern.cpp", kCoreBranches}});
  CallGraph g = GraphOf(ix, "kern");
  EXPECT_THAT(Reached(g), IsSupersetOf({"Kern::CubeLoop@AIC", "Kern::VecLoop@AIV", "Kern::Combine@AIV",
                                        "Kern::CubeOnly@AIC"}));
  std::vector<const GraphNode*> process = NodesOf(g, "Kern::Process");
  ASSERT_THAT(process, SizeIs(1));
  EXPECT_EQ(process[0]->CoresAt(0), kCoreAic);
  EXPECT_EQ(process[0]->CoresAt(1), kCoreAiv);
  EXPECT_EQ(process[0]->CoresAt(-1), kCoreBoth);
}

TEST(CallGraphTest, BoundCoreTypeKeepsOnlyTheBranchTaken) {
  IndexedFiles ix({{"op_kernel/kern.cpp", kCoreBranches}});
  CallGraph g = GraphOf(ix, "kern");
  EXPECT_THAT(Reached(g), Contains("Kern::CubeStage@AIC+AIV"));
  EXPECT_THAT(NodesOf(g, "Kern::VecStage"), SizeIs(0));
  std::vector<const GraphNode*> run = NodesOf(g, "Kern::Run");
  ASSERT_THAT(run, SizeIs(1));
  ASSERT_THAT(run[0]->control_dead, SizeIs(2));
  EXPECT_TRUE(run[0]->control_dead[0]);
  EXPECT_FALSE(run[0]->control_dead[1]);
}

TEST(CallGraphTest, IsSameOnABoundTypeKeepsOnlyTheBranchTaken) {
  // dispatch_ffn_combine_w4a8 initBuffer: `if constexpr (std::is_same_v<ElementB, AscendC::int4b_t>)`.
  IndexedFiles ix({{"op_kernel/kern.cpp", R"cc(
template <typename ElementB>
class Kern {
public:
    __aicore__ inline void Process() {
        if constexpr (std::is_same_v<ElementB, AscendC::int4b_t>) {
            Int4Path();
        } else {
            Int8Path();
        }
    }
    __aicore__ inline void Int4Path() {}
    __aicore__ inline void Int8Path() {}
};
extern "C" __global__ __aicore__ void kern(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    Kern<AscendC::int4b_t> op;
    op.Process();
}
)cc"}});
  CallGraph g = GraphOf(ix, "kern");
  EXPECT_THAT(NodesOf(g, "Kern::Int4Path"), SizeIs(1));
  EXPECT_THAT(NodesOf(g, "Kern::Int8Path"), SizeIs(0));
}

// A vector-only all-to-all in the style of the MoE dispatch kernels: the AIV cores split into senders
// and receivers by their index; core 0 also cleans up (extra work, not a role).
constexpr const char* kRoles = R"cc(
class MoeDistributeDispatch {
public:
    __aicore__ inline void Process() {
        if ASCEND_IS_AIV {
            if (aivIdx < sendCoreNum) {
                SendTokens();
            } else {
                RecvTokens();
            }
            SyncAll<true>();
            if (aivId_ == 0) {
                CleanUp();
            }
        }
    }
private:
    __aicore__ inline void SendTokens() { PutTokens(); }
    __aicore__ inline void RecvTokens() { WaitTokens(); }
    __aicore__ inline void PutTokens() {}
    __aicore__ inline void WaitTokens() {}
    __aicore__ inline void CleanUp() {}
};
extern "C" __global__ __aicore__ void moe_distribute_dispatch(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    MoeDistributeDispatch op;
    op.Process();
}
)cc";

TEST(CallGraphTest, AivRolesComeFromIndexBranchesAndNameWhatTheyCall) {
  IndexedFiles ix({{"op_kernel/moe_distribute_dispatch.cpp", kRoles}});
  CallGraph g = GraphOf(ix, "moe_distribute_dispatch");
  EXPECT_THAT(EdgeRoles(g, "MoeDistributeDispatch::Process"),
              IsSupersetOf({"MoeDistributeDispatch::SendTokens#send", "MoeDistributeDispatch::RecvTokens#recv-tokens",
                            "MoeDistributeDispatch::CleanUp#"}));
  // A node runs under the role of the branch that reached it, and passes it on.
  EXPECT_THAT(Reached(g), IsSupersetOf({"MoeDistributeDispatch::SendTokens@AIV#send",
                                        "MoeDistributeDispatch::PutTokens@AIV#send",
                                        "MoeDistributeDispatch::WaitTokens@AIV#recv-tokens",
                                        "MoeDistributeDispatch::CleanUp@AIV"}));
  std::vector<const GraphNode*> process = NodesOf(g, "MoeDistributeDispatch::Process");
  ASSERT_THAT(process, SizeIs(1));
  const FunctionBody& body = ix.index().Body(*process[0]->inst.fn);
  EXPECT_EQ(process[0]->RoleAt(body, 1), "send");
  EXPECT_EQ(process[0]->RoleAt(body, 2), "recv-tokens");
  EXPECT_EQ(process[0]->RoleAt(body, 3), "");
}

TEST(CallGraphTest, SubBlockBranchesNameTheirRolesByTheirWork) {
  IndexedFiles ix({{"op_kernel/combine.cpp", R"cc(
class MoeCombine {
public:
    __aicore__ inline void Process() {
        if (AscendC::GetSubBlockIdx() == 0) {
            DispatchBetweenServer();
        } else {
            CombineWithinServer();
        }
    }
    __aicore__ inline void DispatchBetweenServer() {}
    __aicore__ inline void CombineWithinServer() {}
};
extern "C" __global__ __aicore__ void moe_combine(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    MoeCombine op;
    op.Process();
}
)cc"}});
  CallGraph g = GraphOf(ix, "moe_combine");
  EXPECT_THAT(Reached(g), IsSupersetOf({"MoeCombine::DispatchBetweenServer@AIV#dispatch-between-server",
                                        "MoeCombine::CombineWithinServer@AIV#combine-within-server"}));
}

TEST(CallGraphTest, SubBlockRoleIsNamedByItsLargestWorkNotASetterWrittenFirst) {
  // vllm-ascend DispatchGmmCombineDecode: `combiner->TPipeSet(&pipe); combiner->AllToAllSend();`.
  IndexedFiles ix({{"op_kernel/combine.cpp", R"cc(
class Combiner {
public:
    __aicore__ inline void TPipeSet(void* p) { pipe_ = p; }
    __aicore__ inline void AllToAllSend() { for (int i = 0; i < n_; ++i) { Send(i); Send(i + 1); Flush(); } }
    __aicore__ inline void ReducePermute() { for (int i = 0; i < n_; ++i) { Reduce(i); Permute(i); Store(i); } }
    void* pipe_;
    int n_;
};
class MoeCombine {
public:
    __aicore__ inline void Process() {
        if (get_subblockid() == 0) {
            combiner.TPipeSet(&pipe);
            combiner.AllToAllSend();
            combiner.TPipeSet(nullptr);
        } else {
            combiner.TPipeSet(&pipe);
            combiner.ReducePermute();
        }
    }
    Combiner combiner;
    int pipe;
};
extern "C" __global__ __aicore__ void moe_combine(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    MoeCombine op;
    op.Process();
}
)cc"}});
  CallGraph g = GraphOf(ix, "moe_combine");
  EXPECT_THAT(Reached(g), IsSupersetOf({"Combiner::AllToAllSend@AIV#all-to-all-send",
                                        "Combiner::ReducePermute@AIV#reduce-permute"}));
  EXPECT_THAT(Reached(g), Not(Contains("Combiner::AllToAllSend@AIV#t-pipe-set")));
}

TEST(CallGraphTest, ConditionalKernelTypeReachesBothBranchesWhenTheFlagIsATemplateParameter) {
  // DispatchGmmCombineDecode picks its GMM1 kernel with `typename std::conditional<(EXEC_FLAG & DEEP), A, B>::type`.
  IndexedFiles ix({{"op_kernel/k.cpp", R"cc(
template <class T> struct DeepKernel { __aicore__ inline void operator()(int p) { DeepWork(); } void DeepWork() {} };
template <class T> struct ShallowKernel { __aicore__ inline void operator()(int p) { ShallowWork(); } void ShallowWork() {} };
template <uint32_t EXEC_FLAG>
__aicore__ inline void Gmm(int p) {
    using Kernel = typename std::conditional<(EXEC_FLAG & 1), DeepKernel<half>, ShallowKernel<half>>::type;
    Kernel k;
    k(p);
}
template <uint32_t EXEC_FLAG>
__aicore__ inline void GmmKnown(int p) {
    using Kernel = std::conditional_t<false, DeepKernel<float>, ShallowKernel<float>>;
    Kernel k;
    k(p);
}
extern "C" __global__ __aicore__ void kern(GM_ADDR x, uint32_t flag) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    Gmm<EXEC_FLAG_FROM_TILING>(0);
    GmmKnown<0>(0);
}
)cc"}});
  CallGraph g = GraphOf(ix, "kern");
  std::vector<std::string> reached = Reached(g);
  EXPECT_THAT(reached, IsSupersetOf({"DeepKernel::DeepWork@AIV", "ShallowKernel::ShallowWork@AIV"}));
  // The literal `false` picks the second branch only: DeepKernel<float> is never instantiated.
  int deep = 0, shallow = 0;
  for (const GraphNode& n : g.nodes()) {
    if (n.inst.fn->DisplayName() == "DeepKernel::operator()") ++deep;
    if (n.inst.fn->DisplayName() == "ShallowKernel::operator()") ++shallow;
  }
  EXPECT_EQ(deep, 1);
  EXPECT_EQ(shallow, 2);
}

TEST(CallGraphTest, CubeCodeHasNoAivRole) {
  // The same index branch on the cube cores selects no vector role.
  IndexedFiles ix({{"op_kernel/k.cpp", R"cc(
class Kern {
public:
    __aicore__ inline void Process() {
        if ASCEND_IS_AIC {
            if (coreIdx < sendCoreNum) {
                LoadA();
            } else {
                LoadB();
            }
        }
    }
    __aicore__ inline void LoadA() {}
    __aicore__ inline void LoadB() {}
};
extern "C" __global__ __aicore__ void k(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    Kern op;
    op.Process();
}
)cc"}});
  CallGraph g = GraphOf(ix, "k");
  EXPECT_THAT(Reached(g), IsSupersetOf({"Kern::LoadA@AIC", "Kern::LoadB@AIC"}));
}

TEST(CallGraphTest, TracingCallsAreNotEdges) {
  IndexedFiles ix({{"op_kernel/k.cpp", R"cc(
__aicore__ inline void MoeTracing(uint64_t id) {}
__aicore__ inline void Work() {}
extern "C" __global__ __aicore__ void k(GM_ADDR x) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    MoeTracing(TRACE_POINT("processing", "B"));
    Work();
    MoeTracing(TRACE_POINT("processing", "E"));
}
)cc"}});
  CallGraph g = GraphOf(ix, "k");
  EXPECT_THAT(Reached(g), Not(Contains("MoeTracing@AIV")));
  EXPECT_THAT(Reached(g), Contains("Work@AIV"));
}

TEST(CallGraphTest, ConstexprConditionsOfClosedTypes) {
  EXPECT_EQ(EvaluateConstexpr("std::is_same_v<int8_t, int8_t>"), 1);
  EXPECT_EQ(EvaluateConstexpr("std::is_same_v<int8_t, half>"), 0);
  EXPECT_EQ(EvaluateConstexpr("std::is_same_v<AscendC::int4b_t, int8_t>"), 0);
  EXPECT_EQ(EvaluateConstexpr("std::is_same_v<ElementB, int8_t>"), -1);  // not closed: unknown
  EXPECT_EQ(EvaluateConstexpr("!std::is_void_v<void>"), 0);
  EXPECT_EQ(EvaluateConstexpr("std::is_void_v<PrologueB>"), -1);
  EXPECT_EQ(EvaluateConstexpr("true && std::is_same_v<half, float>"), 0);
  EXPECT_EQ(EvaluateConstexpr("std::is_same_v<half, float> || true"), 1);
  EXPECT_EQ(EvaluateConstexpr("BlockMmad::DispatchPolicy::ASYNC"), -1);
}

// cann-samples' story folders: several programs side by side, each defining the same kernel,
// classes and helpers (moe_init_routing_story: six `.asc` files). One index holds them all; a
// kernel's calls reach its own program's definitions and the headers it includes, never another
// program's (which made one kernel's plan hold all six programs' phases).
TEST(CallGraphTest, AProgramsCallsStayInItsOwnTranslationUnit) {
  auto program = [](const std::string& tag) {
    return "#include \"../include/common.h\"\n"
           "class Sorter {\n public:\n  __aicore__ void Process() { Step" + tag + "(); Shared(); }\n"
           "  __aicore__ void Step" + tag + "() {}\n};\n"
           "__aicore__ void Helper() {}\n"
           "__global__ __aicore__ __vector__ void Route(GM_ADDR x) {\n"
           "  Sorter s;\n  s.Process();\n  Helper();\n  Counter c;\n  c.Run();\n}\n";
  };
  IndexedFiles ix({{"include/common.h", "__aicore__ inline void Shared() {}\nclass Counter {\n public:\n  __aicore__ void Run() {}\n};\n"},
                   {"src/0_native.asc", program("Native")},
                   {"src/1_multi_core.asc", program("MultiCore")}});
  ASSERT_EQ(ix.index().Kernels().size(), 2u);
  for (const FunctionDef* k : ix.index().Kernels()) {
    CallGraph g = CallGraph::Build(ix.index(), *k);
    std::string own = k->file->rel;
    std::vector<std::string> files;
    for (const GraphNode& n : g.nodes()) files.push_back(n.inst.fn->file->rel);
    EXPECT_THAT(files, Each(::testing::AnyOf(own, "include/common.h"))) << own;
    EXPECT_THAT(files, Contains("include/common.h")) << own;
    // Sorter::Process, its own Step, Helper, Shared, Counter::Run, the kernel.
    EXPECT_THAT(g.nodes(), SizeIs(6)) << own;
  }
}

TEST(CallGraphTest, TracingCallNames) {
  EXPECT_TRUE(IsTracingCall("MoeTracing"));
  EXPECT_TRUE(IsTracingCall("SetMoeProfilePtr"));
  EXPECT_TRUE(IsTracingCall("OPTRACE_KERNEL_END"));
  EXPECT_FALSE(IsTracingCall("SyncAll"));
}

}  // namespace
}  // namespace optrace::source::index
