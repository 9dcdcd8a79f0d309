#include "source/index/declarations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/index/index_test_util.h"

namespace optrace::source::index {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::vector<std::string> ParamNames(const std::vector<TemplateParam>& ps) {
  std::vector<std::string> out;
  for (const TemplateParam& p : ps) out.push_back(p.name);
  return out;
}

std::vector<std::string> FunctionNames(const Declarations& d) {
  std::vector<std::string> out;
  for (const auto& f : d.functions) out.push_back(f->DisplayName());
  return out;
}

// dispatch_ffn_combine_w4a8/op_kernel/dispatch_ffn_combine_w4_a8_kernel.hpp, reduced.
constexpr const char* kFfnKernel = R"cc(
namespace Catlass::Gemm::Kernel {
template <class BlockMmad_, class BlockScheduler_, class ElementGroupList_, class BlockEpilogue1_,
          class BlockEpilogue2_>
class DispatchFFNCombineW4A8Kernel {
public:
    using BlockMmad = BlockMmad_;
    using ArchTag = typename BlockMmad::ArchTag;
    using ElementScale = uint64_t;

    struct Params {
        GemmCoord problemShape;
        uint32_t EP;
        __gm__ ElementScale *ptrScale1;
        CATLASS_DEVICE
        Params() {}
    };

    CATLASS_DEVICE
    DispatchFFNCombineW4A8Kernel(Params const &params) {}

    CATLASS_DEVICE
    ~DispatchFFNCombineW4A8Kernel() {
    }

    template <int32_t CORE_TYPE = g_coreType>
    CATLASS_DEVICE void operator()(Params const &params);

    template <>
    CATLASS_DEVICE void operator()<AscendC::AIC>(Params const &params)
    {
        GMM1(params);
        GMM2(params);
    }

    template <>
    CATLASS_DEVICE void operator()<AscendC::AIV>(Params const &params)
    {
        DispatchAndCombine(params);
    }

private:
    CATLASS_DEVICE void GMM1(Params const &params) {}
    CATLASS_DEVICE void GMM2(Params const &params) {}
    CATLASS_DEVICE void DispatchAndCombine(Params const &params) {}

    Arch::Resource<ArchTag> resource;
    AscendC::GlobalTensor<int32_t> cumsumMM;
    uint32_t paddedExpertNumAligned, coreNum;
};
}  // namespace Catlass::Gemm::Kernel
)cc";

class FfnKernelDeclarationsTest : public ::testing::Test {
 protected:
  void SetUp() override { ParseDeclarations(file_.stream(), &d_); }
  const ClassDef* Class(const std::string& qualified) const {
    for (const auto& c : d_.classes)
      if (c->QualifiedName() == qualified) return c.get();
    return nullptr;
  }
  const FunctionDef* Function(const std::string& display) const {
    for (const auto& f : d_.functions)
      if (f->DisplayName() == display) return f.get();
    return nullptr;
  }
  SingleFile file_{kFfnKernel};
  Declarations d_;
};

TEST_F(FfnKernelDeclarationsTest, ClassTemplateHeadAndNamespaceScopeAreRead) {
  const ClassDef* k = Class("Catlass::Gemm::Kernel::DispatchFFNCombineW4A8Kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(k->specialization);
  EXPECT_THAT(ParamNames(k->tparams),
              ElementsAre("BlockMmad_", "BlockScheduler_", "ElementGroupList_", "BlockEpilogue1_", "BlockEpilogue2_"));
  EXPECT_TRUE(k->tparams[0].is_type);
  EXPECT_EQ(k->line, 5);
}

TEST_F(FfnKernelDeclarationsTest, MemberAliasesAreRecordedAsWritten) {
  const ClassDef* k = Class("Catlass::Gemm::Kernel::DispatchFFNCombineW4A8Kernel");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->aliases.size(), 3u);
  EXPECT_EQ(k->aliases.at("BlockMmad").Str(), "BlockMmad_");
  EXPECT_EQ(k->aliases.at("ArchTag").Str(), "BlockMmad::ArchTag");
  EXPECT_EQ(k->aliases.at("ElementScale").Str(), "uint64_t");
}

TEST_F(FfnKernelDeclarationsTest, FieldsIncludeEveryDeclaratorOfALine) {
  const ClassDef* k = Class("Catlass::Gemm::Kernel::DispatchFFNCombineW4A8Kernel");
  ASSERT_NE(k, nullptr);
  std::vector<std::pair<std::string, std::string>> fields;
  for (const auto& [name, type] : k->fields) fields.emplace_back(name, type.Str());
  EXPECT_THAT(fields, UnorderedElementsAre(Pair("resource", "Arch::Resource<ArchTag>"),
                                           Pair("cumsumMM", "AscendC::GlobalTensor<int32_t>"),
                                           Pair("paddedExpertNumAligned", "uint32_t"), Pair("coreNum", "uint32_t")));
}

TEST_F(FfnKernelDeclarationsTest, NestedStructKnowsItsOuterClass) {
  const ClassDef* params = Class("Catlass::Gemm::Kernel::DispatchFFNCombineW4A8Kernel::Params");
  ASSERT_NE(params, nullptr);
  EXPECT_EQ(params->outer, Class("Catlass::Gemm::Kernel::DispatchFFNCombineW4A8Kernel"));
  ASSERT_EQ(params->fields.count("ptrScale1"), 1u);
  EXPECT_EQ(params->fields.at("ptrScale1").Str(), "ElementScale");
  EXPECT_TRUE(params->fields.at("ptrScale1").pointer);
  const FunctionDef* ctor = Function("Params::Params");
  ASSERT_NE(ctor, nullptr);
  EXPECT_TRUE(ctor->is_ctor);
}

TEST_F(FfnKernelDeclarationsTest, CoreSpecialisationsOfOperatorCallAreFunctionsWithTheirArguments) {
  const FunctionDef* aic = Function("DispatchFFNCombineW4A8Kernel::operator()<AscendC::AIC>");
  const FunctionDef* aiv = Function("DispatchFFNCombineW4A8Kernel::operator()<AscendC::AIV>");
  ASSERT_NE(aic, nullptr);
  ASSERT_NE(aiv, nullptr);
  EXPECT_EQ(aic->name, "operator()");
  EXPECT_TRUE(aic->specialization);
  ASSERT_EQ(aic->spec_args.size(), 1u);
  EXPECT_EQ(aic->spec_args[0].Str(), "AscendC::AIC");
  EXPECT_EQ(aic->owner, Class("Catlass::Gemm::Kernel::DispatchFFNCombineW4A8Kernel"));
  ASSERT_EQ(aic->params.size(), 1u);
  EXPECT_EQ(aic->params[0].name, "params");
  EXPECT_EQ(aic->params[0].type.Str(), "Params");
  EXPECT_TRUE(aic->returns_void);
  EXPECT_EQ(aic->line, 30);
  EXPECT_EQ(aiv->spec_args[0].Str(), "AscendC::AIV");
}

TEST_F(FfnKernelDeclarationsTest, DeclaredOnlyPrimaryKeepsItsCoreTypeDefault) {
  // `template <int32_t CORE_TYPE = g_coreType> void operator()(Params const &);` has no body.
  const ClassDef* k = Class("Catlass::Gemm::Kernel::DispatchFFNCombineW4A8Kernel");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->declared.count("operator()"), 1u);
  const std::vector<TemplateParam>& tp = k->declared.find("operator()")->second;
  ASSERT_EQ(tp.size(), 1u);
  EXPECT_EQ(tp[0].name, "CORE_TYPE");
  EXPECT_FALSE(tp[0].is_type);
  EXPECT_EQ(tp[0].type_text, "int32_t");
  EXPECT_EQ(tp[0].default_arg.Str(), "g_coreType");
  EXPECT_EQ(k->methods.count("operator()"), 2u);  // only the two specialisations have bodies
}

TEST_F(FfnKernelDeclarationsTest, ConstructorAndDestructorAfterAnAttributeMacro) {
  const FunctionDef* ctor = Function("DispatchFFNCombineW4A8Kernel::DispatchFFNCombineW4A8Kernel");
  const FunctionDef* dtor = Function("DispatchFFNCombineW4A8Kernel::~DispatchFFNCombineW4A8Kernel");
  ASSERT_NE(ctor, nullptr);
  ASSERT_NE(dtor, nullptr);
  EXPECT_TRUE(ctor->is_ctor);
  EXPECT_TRUE(ctor->returns_void);
  EXPECT_TRUE(dtor->is_dtor);
  const FunctionDef* gmm1 = Function("DispatchFFNCombineW4A8Kernel::GMM1");
  ASSERT_NE(gmm1, nullptr);
  EXPECT_EQ(gmm1->return_type.Str(), "void");
}

// DISABLED: a macro-like word right before the name is taken as the return type (it may be GM_ADDR),
// so `CATLASS_DEVICE\n DispatchFFNCombineW4A8Kernel(...)` gets return type "CATLASS_DEVICE".
TEST_F(FfnKernelDeclarationsTest, DISABLED_AttributeMacroBeforeAConstructorIsNotAReturnType) {
  const FunctionDef* ctor = Function("DispatchFFNCombineW4A8Kernel::DispatchFFNCombineW4A8Kernel");
  ASSERT_NE(ctor, nullptr);
  EXPECT_TRUE(ctor->return_type.Empty()) << ctor->return_type.Str();
}

TEST(DeclarationsTest, PartialSpecialisationRecordsItsPattern) {
  // sgl_catlass_matmul: the BlockMmad for the FP8 prologue policy.
  SingleFile f(R"cc(
namespace Catlass::Gemm {
template <bool ENABLE_UNIT_FLAG_ = false>
struct MmadAtlasA2PingPongWithPrologueBFP8 : public MmadAtlasA2 {
    static constexpr uint32_t STAGES = 2;
    static constexpr bool ENABLE_UNIT_FLAG = ENABLE_UNIT_FLAG_;
};
}  // namespace Catlass::Gemm
namespace Catlass::Gemm::Block {
template <bool ENABLE_UNIT_FLAG_, class L1TileShape_, class L0TileShape_, class AType_, class BType_, class CType_,
          class BiasType_, class TileCopy_, class TileMmad_>
struct BlockMmad<MmadAtlasA2PingPongWithPrologueBFP8<ENABLE_UNIT_FLAG_>, L1TileShape_, L0TileShape_, AType_, BType_,
                 CType_, BiasType_, TileCopy_, TileMmad_> {
public:
    using DispatchPolicy = MmadAtlasA2PingPongWithPrologueBFP8<ENABLE_UNIT_FLAG_>;
    using PrologueB = typename TileCopy_::PrologueB;
};
}  // namespace Catlass::Gemm::Block
)cc");
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  ASSERT_EQ(d.classes.size(), 2u);
  const ClassDef& policy = *d.classes[0];
  EXPECT_EQ(policy.QualifiedName(), "Catlass::Gemm::MmadAtlasA2PingPongWithPrologueBFP8");
  ASSERT_EQ(policy.bases.size(), 1u);
  EXPECT_EQ(policy.bases[0].Str(), "MmadAtlasA2");
  EXPECT_EQ(policy.tparams[0].default_arg.Str(), "false");
  const ClassDef& mmad = *d.classes[1];
  EXPECT_EQ(mmad.QualifiedName(), "Catlass::Gemm::Block::BlockMmad");
  EXPECT_TRUE(mmad.specialization);
  ASSERT_EQ(mmad.spec_args.size(), 9u);
  EXPECT_EQ(mmad.spec_args[0].Str(), "MmadAtlasA2PingPongWithPrologueBFP8<ENABLE_UNIT_FLAG_>");
  EXPECT_EQ(mmad.spec_args[8].Str(), "TileMmad_");
  EXPECT_FALSE(mmad.tparams[0].is_type);
  EXPECT_EQ(mmad.tparams[0].type_text, "bool");
  EXPECT_EQ(mmad.aliases.at("PrologueB").Str(), "TileCopy_::PrologueB");
}

TEST(DeclarationsTest, ForwardDeclarationIsNotAClass) {
  SingleFile f(
      "namespace Catlass::Gemm::Block {\n"
      "template <class DispatchPolicy, class... Args>\n"
      "struct BlockMmad;\n"
      "struct GemmCoord;\n"
      "}\n");
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  EXPECT_THAT(d.classes, IsEmpty());
}

// dispatch_normal_a2/op_kernel/a2/cam_moe_distribute_dispatch_a2_layered.h, reduced: template heads
// written through macros, methods declared in the class and defined after it.
constexpr const char* kLayered = R"cc(
#define TemplateMC2TypeA2layeredClass \
    typename XType, typename ExpandXOutType, bool StaticQuant, bool DynamicQuant, bool IsSmoothScaleExist
#define TemplateMC2TypeA2layeredFunc XType, ExpandXOutType, StaticQuant, DynamicQuant, IsSmoothScaleExist

namespace MoeDistributeDispatchA2Impl {
template <TemplateMC2TypeA2layeredClass>
class CamMoeDistributeDispatchA2Layered
{
public:
    __aicore__ inline CamMoeDistributeDispatchA2Layered(){};
    __aicore__ inline void Process();
private:
    __aicore__ inline void Input2Win();
    uint32_t aivId_{0};  // aiv id
};

template <TemplateMC2TypeA2layeredClass>
__aicore__ inline void CamMoeDistributeDispatchA2Layered<TemplateMC2TypeA2layeredFunc>::Input2Win()
{
    uint32_t startTokenId = sendTokenNum * aivId_;
}

template <TemplateMC2TypeA2layeredClass>
__aicore__ inline void CamMoeDistributeDispatchA2Layered<TemplateMC2TypeA2layeredFunc>::Process()
{
    if ASCEND_IS_AIV {
        Input2Win();
    }
}
}  // namespace MoeDistributeDispatchA2Impl
)cc";

TEST(DeclarationsTest, TemplateHeadWrittenThroughAMacroIsRead) {
  IndexedFiles ix({{"op_kernel/a2/layered.h", kLayered}});
  const ClassDef* c = ix.Class("MoeDistributeDispatchA2Impl::CamMoeDistributeDispatchA2Layered");
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(ParamNames(c->tparams),
              ElementsAre("XType", "ExpandXOutType", "StaticQuant", "DynamicQuant", "IsSmoothScaleExist"));
  EXPECT_TRUE(c->tparams[1].is_type);
  EXPECT_FALSE(c->tparams[2].is_type);
  EXPECT_EQ(c->tparams[2].type_text, "bool");
  EXPECT_EQ(c->fields.at("aivId_").Str(), "uint32_t");
  EXPECT_EQ(c->declared.count("Process"), 1u);
}

TEST(DeclarationsTest, OutOfClassDefinitionKeepsItsQualifierAndParameterNames) {
  SingleFile f(kLayered);
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  EXPECT_THAT(FunctionNames(d), ElementsAre("CamMoeDistributeDispatchA2Layered::CamMoeDistributeDispatchA2Layered",
                                            "CamMoeDistributeDispatchA2Layered::Input2Win",
                                            "CamMoeDistributeDispatchA2Layered::Process"));
  const FunctionDef& process = *d.functions[2];
  EXPECT_EQ(process.owner, nullptr);  // linked to its class by the index
  EXPECT_EQ(process.qualifier.Str(),
            "CamMoeDistributeDispatchA2Layered<XType, ExpandXOutType, StaticQuant, DynamicQuant, IsSmoothScaleExist>");
  EXPECT_THAT(process.owner_param_names,
              ElementsAre("XType", "ExpandXOutType", "StaticQuant", "DynamicQuant", "IsSmoothScaleExist"));
  EXPECT_THAT(process.scope, ElementsAre("MoeDistributeDispatchA2Impl"));
  EXPECT_EQ(process.tparams.size(), 5u);
}

TEST(DeclarationsTest, IndexLinksOutOfClassDefinitionsToTheirClass) {
  IndexedFiles ix({{"op_kernel/a2/layered.h", kLayered}});
  const ClassDef* c = ix.Class("MoeDistributeDispatchA2Impl::CamMoeDistributeDispatchA2Layered");
  const FunctionDef* process = ix.Function("CamMoeDistributeDispatchA2Layered::Process");
  ASSERT_NE(process, nullptr);
  EXPECT_EQ(process->owner, c);
  EXPECT_EQ(c->methods.count("Process"), 1u);
  EXPECT_EQ(c->methods.count("Input2Win"), 1u);
}

TEST(DeclarationsTest, KernelsMadeByTokenPastingAreFoundPerInvocation) {
  // vllm_lora_kernels/bgmv_shrink.cpp declares one kernel entry per dtype through a macro.
  SingleFile f(R"cc(
#define BGMV_SHRINK_TYPE_DECLARE(TYPE)                                                          \
    extern "C" __global__ __aicore__ void bgmv_shrink_##TYPE(__gm__ void* x, __gm__ void* weight, \
                                                             uint32_t batchSize, float scale)    \
    {                                                                                           \
        AscendC::TPipe pipe;                                                                    \
        BGMVShrink<TYPE> op(&pipe);                                                             \
        op.Process();                                                                           \
    }

// declare all dtype kernel
BGMV_SHRINK_TYPE_DECLARE(half)
#if !defined(__CCE_AICORE__) || (__CCE_AICORE__ >= 220)
    BGMV_SHRINK_TYPE_DECLARE(bfloat16_t)
#endif
)cc");
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  ASSERT_EQ(d.functions.size(), 2u);
  const FunctionDef& half = *d.functions[0];
  EXPECT_EQ(half.name, "bgmv_shrink_half");
  EXPECT_TRUE(half.is_kernel);
  EXPECT_EQ(half.line, 12);
  ASSERT_NE(half.macro, nullptr);
  EXPECT_EQ(half.macro->name, "BGMV_SHRINK_TYPE_DECLARE");
  ASSERT_EQ(half.params.size(), 4u);
  EXPECT_EQ(half.params[0].name, "x");
  EXPECT_TRUE(half.params[0].type.pointer);
  EXPECT_EQ(half.params[3].type_text, "float");
  EXPECT_EQ(d.functions[1]->name, "bgmv_shrink_bfloat16_t");
  EXPECT_EQ(d.functions[1]->line, 14);
}

TEST(DeclarationsTest, MacroInvocationAtNamespaceScopeIsNotAFunction) {
  SingleFile f(
      "REGISTER_TILING_DEFAULT(DispatchFFNCombineW4A8TilingData);\n"
      "ASCENDC_TPL_SEL(ASCENDC_TPL_DTYPE_SEL(X, 1))\n"
      "__aicore__ inline void SetMoeProfilePtr(__gm__ int64_t *profilePtr) { g_moeProfilePtr = profilePtr; }\n");
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  EXPECT_THAT(FunctionNames(d), ElementsAre("SetMoeProfilePtr"));
}

TEST(DeclarationsTest, NamespaceScopeAliasesAndTypedefs) {
  SingleFile f(
      "using namespace AscendC;\n"
      "using _16 = tla::Int<16>;\n"
      "namespace DispatchFFNCombineW4A8Impl {\n"
      "using ElementGroupList = int64_t;\n"
      "typedef Catlass::GemmShape<128, 256, 64> L1Shape;\n"
      "typedef struct { uint32_t a; } TilingInfo;\n"
      "}\n");
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  std::vector<std::string> got;
  for (const NamespaceAlias& a : d.aliases)
    got.push_back((a.scope.empty() ? "" : a.scope.back() + "::") + a.name + "=" + a.target.Str());
  EXPECT_THAT(got, ElementsAre("_16=tla::Int<16>", "DispatchFFNCombineW4A8Impl::ElementGroupList=int64_t",
                               "DispatchFFNCombineW4A8Impl::L1Shape=Catlass::GemmShape<128, 256, 64>"));
}

TEST(DeclarationsTest, ParametersWithDefaultsSetTheArgumentRange) {
  // vllm_lora_kernels/bgmv_shrink.cpp: CopyInX(idx, colIdx, numElements = TILE_LENGTH).
  SingleFile f(
      "class BGMVShrink {\n"
      "    __aicore__ inline void CopyInX(const int64_t idx, int32_t colIdx, int32_t numElements = TILE_LENGTH)\n"
      "    { }\n"
      "};\n");
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  ASSERT_EQ(d.functions.size(), 1u);
  const FunctionDef& fn = *d.functions[0];
  ASSERT_EQ(fn.params.size(), 3u);
  EXPECT_EQ(fn.params[0].name, "idx");
  EXPECT_EQ(fn.params[0].type.Str(), "int64_t");
  EXPECT_TRUE(fn.params[2].has_default);
  EXPECT_EQ(fn.MinArgs(), 2u);
  EXPECT_EQ(fn.MaxArgs(), 3u);
}

TEST(DeclarationsTest, MemberFunctionTemplateHasItsOwnParameters) {
  SingleFile f(
      "class DispatchFFNCombineW4A8Kernel {\n"
      "    template <typename T>\n"
      "    CATLASS_DEVICE void CopyGMToGM(AscendC::GlobalTensor<T> dst, AscendC::GlobalTensor<T> src,\n"
      "                                   int32_t elemNum, int32_t ubMoveNum)\n"
      "    { }\n"
      "};\n");
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  ASSERT_EQ(d.functions.size(), 1u);
  EXPECT_THAT(ParamNames(d.functions[0]->tparams), ElementsAre("T"));
  EXPECT_FALSE(d.functions[0]->specialization);
  EXPECT_EQ(d.functions[0]->params[1].type.Str(), "AscendC::GlobalTensor<T>");
}

TEST(DeclarationsTest, BasesSkipAccessSpecifiers) {
  // chunk_fwd_o: the cube scheduler inherits the task loop of the common scheduler.
  SingleFile f(
      "namespace Catlass::Gemm::Block {\n"
      "struct BlockSchedulerGdnFwdOCube : public BlockSchedulerGdnFwdO, private Trace<1> {\n"
      "    void Init(GM_ADDR cu_seqlens, GM_ADDR chunk_offsets, GM_ADDR tiling) {}\n"
      "};\n"
      "}\n");
  Declarations d;
  ParseDeclarations(f.stream(), &d);
  ASSERT_EQ(d.classes.size(), 1u);
  ASSERT_EQ(d.classes[0]->bases.size(), 2u);
  EXPECT_EQ(d.classes[0]->bases[0].Str(), "BlockSchedulerGdnFwdO");
  EXPECT_EQ(d.classes[0]->bases[1].Str(), "Trace<1>");
}

TEST(DeclarationsTest, TemplateParamsParseTemplateTemplateAndPackParameters) {
  SingleFile f("template <template <class> class TileCopy, typename... Args, int32_t CORE_TYPE = g_coreType> f;\n");
  const TokenStream& s = f.stream();
  size_t lt = Find(s, "<");
  std::vector<TemplateParam> ps = ParseTemplateParams(s, lt, s.MatchAngle(lt));
  ASSERT_EQ(ps.size(), 3u);
  EXPECT_EQ(ps[0].name, "TileCopy");
  EXPECT_TRUE(ps[0].is_type);
  EXPECT_EQ(ps[1].name, "Args");
  EXPECT_TRUE(ps[1].pack);
  EXPECT_EQ(ps[2].name, "CORE_TYPE");
  EXPECT_EQ(ps[2].default_arg.Str(), "g_coreType");
}

// Found by fuzz_macro: `extern` as a file's last token read the token after the end.
TEST(DeclarationsTest, ExternAsTheLastTokenOfAFileIsNotReadPastTheEnd) {
  IndexedFiles ix({{"op_kernel/k.cpp", "#define CAT(a, b) a##b\nvoid f() {}\nextern"}});
  EXPECT_EQ(ix.Functions("f").size(), 1u);
}

}  // namespace
}  // namespace optrace::source::index
