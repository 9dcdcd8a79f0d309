#include "source/index/code_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "source/index/index_test_util.h"

namespace optrace::source::index {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

// The reduced dispatch_ffn_combine_w4a8 operator (tests/data/index/dispatch_ffn_combine).
class FfnCombineIndexTest : public ::testing::Test {
 protected:
  FfnCombineIndexTest() : ix_(FfnCombineTree()) {}

  // Name lookup at the kernel-functor call of DispatchFFNCombineW4A8::Process, after all its aliases.
  Env AtKernelCall() const {
    Env e;
    e.fn = ix_.Function("DispatchFFNCombineW4A8::Process");
    EXPECT_NE(e.fn, nullptr);
    const CallSite* call = e.fn ? CallNamed(ix_.index(), *e.fn, "kernel") : nullptr;
    EXPECT_NE(call, nullptr);
    e.pos = call ? call->pos : 0;
    return e;
  }
  TypeName Named(const std::string& name) const {
    TypeName t;
    t.parts.push_back({name, {}, false});
    return t;
  }
  // The kernel class as Process() instantiates it.
  ClassRef KernelRef() const {
    std::vector<ClassRef> refs = ix_.index().ResolveClass(ix_.index().Close(Named("MatmulKernel"), AtKernelCall()));
    EXPECT_THAT(refs, SizeIs(1));
    return refs.empty() ? ClassRef{} : refs[0];
  }

  IndexedFiles ix_;
};

TEST_F(FfnCombineIndexTest, KernelsAreTheGlobalEntries) {
  ASSERT_THAT(ix_.index().Kernels(), SizeIs(1));
  EXPECT_EQ(ix_.index().Kernels()[0]->name, "dispatch_ffn_combine_w4_a8");
  EXPECT_EQ(ix_.index().Kernels()[0]->file, ix_.File("op_kernel/dispatch_ffn_combine_w4_a8.cpp"));
}

TEST_F(FfnCombineIndexTest, LocalAliasClosesThroughEveryAliasItNames) {
  TypeName t = ix_.index().Close(Named("MatmulKernel"), AtKernelCall());
  EXPECT_EQ(t.alias, "MatmulKernel");
  EXPECT_EQ(t.Str(),
            "Gemm::Kernel::DispatchFFNCombineW4A8Kernel<"
            "Gemm::Block::BlockMmad<Gemm::MmadAtlasA2W4A4MatmulPerChannelDequant<preloadStages, l1Stages, 2, 2, 1, "
            "false, false>, GemmShape<128, 256, 1024>, GemmShape<128, 256, 256>, "
            "Gemm::GemmType<AscendC::int4b_t, layout::RowMajor>, Gemm::GemmType<AscendC::int4b_t, layout::RowMajor>, "
            "Gemm::GemmType<float16_t, layout::RowMajor>, void, Gemm::Tile::QuantTileCopy<Arch::AtlasA2, "
            "Gemm::GemmType<AscendC::int4b_t, layout::RowMajor>, Gemm::GemmType<AscendC::int4b_t, layout::RowMajor>, "
            "Gemm::GemmType<float16_t, layout::RowMajor>, void>>, Gemm::Block::GemmIdentityBlockSwizzle<9, 1>, "
            "int64_t, Epilogue::Block::BlockEpilogue<"
            "Epilogue::EpilogueAtlasA2W4A8PostPerTokenDequantSwigluQuant<ubStages>, "
            "Gemm::GemmType<float16_t, layout::RowMajor>>>");
  // Arguments remember the alias they were written as (catlass names member types after them).
  EXPECT_EQ(t.parts.back().args[0].alias, "BlockMmad");
}

TEST_F(FfnCombineIndexTest, AliasIsOnlyVisibleAfterItsDeclaration) {
  Env e = AtKernelCall();
  e.pos = e.fn->body_open + 1;
  EXPECT_EQ(ix_.index().Close(Named("MatmulKernel"), e).Str(), "MatmulKernel");
}

TEST_F(FfnCombineIndexTest, PartialSpecialisationIsChosenByTheDispatchPolicy) {
  std::vector<ClassRef> mmad = ix_.index().ResolveClass(ix_.index().Close(Named("BlockMmad"), AtKernelCall()));
  ASSERT_THAT(mmad, SizeIs(1));
  ASSERT_NE(mmad[0].cls, nullptr);
  EXPECT_EQ(mmad[0].cls->file, ix_.File("op_kernel/utils/block_mmad_w4a4.hpp"));
  EXPECT_EQ(mmad[0].bindings.Find("PRELOAD_STAGES_")->Str(), "preloadStages");
  EXPECT_EQ(mmad[0].bindings.Find("ENABLE_UNIT_FLAG_")->Str(), "false");
  EXPECT_EQ(mmad[0].bindings.Find("L1TileShape_")->Str(), "GemmShape<128, 256, 1024>");
  EXPECT_EQ(mmad[0].bindings.Find("CType_")->Str(), "Gemm::GemmType<float16_t, layout::RowMajor>");
  // TileMmad_ is not written: it comes from the (external) primary's default.
  EXPECT_EQ(mmad[0].bindings.Find("TileMmad_"), nullptr);
}

TEST_F(FfnCombineIndexTest, PrimaryTemplateBindsItsParametersInOrder) {
  ClassRef k = KernelRef();
  ASSERT_NE(k.cls, nullptr);
  EXPECT_EQ(k.cls->QualifiedName(), "Catlass::Gemm::Kernel::DispatchFFNCombineW4A8Kernel");
  EXPECT_EQ(k.bindings.Find("BlockMmad_")->alias, "BlockMmad");
  EXPECT_EQ(k.bindings.Find("BlockScheduler_")->Str(), "Gemm::Block::GemmIdentityBlockSwizzle<9, 1>");
  EXPECT_EQ(k.bindings.Find("ElementGroupList_")->Str(), "int64_t");
}

TEST_F(FfnCombineIndexTest, MemberAliasClosesThroughTheBoundSpecialisation) {
  // ElementC = typename BlockMmad::ElementC; BlockMmad = BlockMmad_; the BlockMmad spec: typename CType_::Element.
  ClassRef k = KernelRef();
  Env e;
  e.cls = k.cls;
  e.bindings = &k.bindings;
  EXPECT_EQ(ix_.index().Close(Named("ElementC"), e).Str(), "Gemm::GemmType<float16_t, layout::RowMajor>::Element");
}

TEST_F(FfnCombineIndexTest, TypeOfNameFindsLocalsParametersAndFields) {
  bool known = false;
  TypeName kernel = ix_.index().TypeOfName("kernel", AtKernelCall(), &known);
  EXPECT_TRUE(known);
  EXPECT_THAT(kernel.Str(), StartsWith("Gemm::Kernel::DispatchFFNCombineW4A8Kernel<Gemm::Block::BlockMmad<"));

  ClassRef k = KernelRef();
  Env in_class;
  in_class.cls = k.cls;
  in_class.bindings = &k.bindings;
  EXPECT_EQ(ix_.index().TypeOfName("gmC", in_class, &known).Str(),
            "AscendC::GlobalTensor<Gemm::GemmType<float16_t, layout::RowMajor>::Element>");
  EXPECT_TRUE(known);

  Env gmm1;
  gmm1.fn = ix_.Function("DispatchFFNCombineW4A8Kernel::GMM1");
  ASSERT_NE(gmm1.fn, nullptr);
  gmm1.pos = gmm1.fn->body_open + 1;
  gmm1.cls = k.cls;
  gmm1.bindings = &k.bindings;
  EXPECT_EQ(ix_.index().TypeOfName("params", gmm1, &known).Str(), "Params");
  EXPECT_TRUE(known);
  ix_.index().TypeOfName("blockMmad", gmm1, &known);  // declared later in the body
  EXPECT_FALSE(known);
}

TEST_F(FfnCombineIndexTest, MethodsOfAClassAndWhoDefinesAMethod) {
  ClassRef k = KernelRef();
  EXPECT_THAT(ix_.index().Methods(k, "operator()"), SizeIs(2));
  EXPECT_THAT(ix_.index().Methods(k, "Launch"), IsEmpty());
  // Both BlockMmad specialisations define SynchronizeBlock; only the W4A4 one defines Finalize.
  EXPECT_THAT(ix_.index().ClassesWithMethod("SynchronizeBlock"), SizeIs(2));
  std::vector<const ClassDef*> fin = ix_.index().ClassesWithMethod("Finalize");
  ASSERT_THAT(fin, SizeIs(2));
  EXPECT_EQ(fin[0]->name == "BlockMmad" ? fin[0]->file : fin[1]->file, ix_.File("op_kernel/utils/block_mmad_w4a4.hpp"));
}

TEST_F(FfnCombineIndexTest, DeclaredTemplateOfOperatorCallHasTheCoreTypeDefault) {
  const std::vector<TemplateParam>* tp = ix_.index().DeclaredTemplate(KernelRef().cls, "operator()");
  ASSERT_NE(tp, nullptr);
  ASSERT_THAT(*tp, SizeIs(1));
  EXPECT_EQ((*tp)[0].name, "CORE_TYPE");
  EXPECT_EQ((*tp)[0].default_arg.Str(), "g_coreType");
}

TEST_F(FfnCombineIndexTest, OutOfClassMethodsAreLinkedToTheirClass) {
  const ClassDef* op = ix_.Class("DispatchFFNCombineW4A8Impl::DispatchFFNCombineW4A8");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->methods.count("Process"), 1u);
  EXPECT_EQ(op->methods.count("Init"), 1u);
  EXPECT_THAT(ix_.index().FreeFunctions("Process"), IsEmpty());
}

TEST(CodeIndexTest, KernelsIncludeMacroGeneratedEntriesInFileOrder) {
  IndexedFiles ix({{"vllm_lora_kernels/bgmv_shrink.cpp",
                    "#define BGMV_SHRINK_TYPE_DECLARE(TYPE) \\\n"
                    "  extern \"C\" __global__ __aicore__ void bgmv_shrink_##TYPE(__gm__ void* x) { }\n"
                    "BGMV_SHRINK_TYPE_DECLARE(half)\n"
                    "BGMV_SHRINK_TYPE_DECLARE(bfloat16_t)\n"},
                   {"vllm_lora_kernels/sgmv_expand.cpp",
                    "extern \"C\" __global__ __aicore__ void sgmv_expand_half(__gm__ void* x) { }\n"}});
  std::vector<std::string> names;
  for (const FunctionDef* k : ix.index().Kernels()) names.push_back(k->name);
  EXPECT_THAT(names, ElementsAre("bgmv_shrink_half", "bgmv_shrink_bfloat16_t", "sgmv_expand_half"));
}

TEST(CodeIndexTest, NamespaceAliasIsClosedWhereverItIsUsed) {
  IndexedFiles ix({{"op_kernel/x.h",
                    "namespace Impl {\n"
                    "using ElementGroupList = int64_t;\n"
                    "using Scheduler = typename Gemm::Block::GemmIdentityBlockSwizzle<9, 1>;\n"
                    "}\n"}});
  TypeName t;
  t.parts.push_back({"Scheduler", {}, false});
  EXPECT_EQ(ix.index().Close(t, Env{}).Str(), "Gemm::Block::GemmIdentityBlockSwizzle<9, 1>");
}

TEST(CodeIndexTest, AKernelCallingItsOwnNameForwardsToTheOtherKernelOfThatName) {
  IndexedFiles ix({{"op_kernel/k.cpp",
                    "template <bool S>\n__global__ __aicore__ void k(GM_ADDR x) { Work(x); }\n"
                    "#ifdef __CCE_UT_TEST__\n"
                    "extern \"C\" __global__ __aicore__ void k(GM_ADDR x) { k<true>(x); }\n"
                    "#endif\n"
                    "#if defined(V2)\n__global__ __aicore__ void alt(GM_ADDR x) { Work(x); }\n"
                    "#else\n__global__ __aicore__ void alt(GM_ADDR x) { Other(x); }\n#endif\n"}});
  const auto& ks = ix.index().Kernels();
  ASSERT_EQ(ks.size(), 4u);
  EXPECT_EQ(ix.index().ForwardedKernel(*ks[0]), nullptr);
  EXPECT_EQ(ix.index().ForwardedKernel(*ks[1]), ks[0]);
  EXPECT_EQ(ix.index().ForwardedKernel(*ks[2]), nullptr);  // alternatives under #if / #else
  EXPECT_EQ(ix.index().ForwardedKernel(*ks[3]), nullptr);
}

TEST(CodeIndexTest, AClosingWhoseCycleStaysInsideItIsComputedOnce) {
  // ops-math top_k_v2: closing `float` in a class whose base is `Base<float>` looks for `float`
  // among the base's aliases, which closes the base's arguments, `float` again: a cycle inside
  // that one closing. Not keeping such results made every later closing in the class start over:
  // 55 million closings, 28 s for one plan.
  IndexedFiles ix({{"op_kernel/k.h",
                    "template <typename V> struct Base { using Value = V; };\n"
                    "template <typename T> struct Sorter : public Base<float> {\n"
                    "    using Key = T;\n"
                    "};\n"}});
  ClassRef sorter;
  sorter.cls = ix.Class("Sorter");
  ASSERT_NE(sorter.cls, nullptr);
  TypeName i64;
  i64.parts.push_back({"int64_t", {}, false});
  Bindings b;
  b.Set("T", i64);
  Env env;
  env.cls = sorter.cls;
  env.bindings = &b;
  TypeName f;
  f.parts.push_back({"float", {}, false});
  EXPECT_EQ(ix.index().Close(f, env).Str(), "float");
  const uint64_t first = ix.index().ClosingsComputed();
  EXPECT_GT(first, 0u);
  EXPECT_EQ(ix.index().Close(f, env).Str(), "float");
  EXPECT_EQ(ix.index().ClosingsComputed(), first);
}

TEST(CodeIndexTest, DuplicateClassesUnderArchDirectoriesResolveToTheNearestCopy) {
  // chunk_fwd_o ships arch20/ and arch22/ copies of its schedulers, chosen by #if at build time.
  const char* sched =
      "namespace Catlass::Gemm::Block {\n"
      "struct BlockSchedulerGdnFwdOCube { void Init() {} };\n"
      "}\n";
  IndexedFiles ix({{"op_kernel/arch20/gemm/block/block_scheduler_gdn_fwd_o.hpp", sched},
                   {"op_kernel/arch22/gemm/block/block_scheduler_gdn_fwd_o.hpp", sched},
                   {"op_kernel/arch22/gemm/kernel/gdn_fwd_o_kernel.hpp", "struct GDNFwdOKernel {};\n"}});
  TypeName t;
  t.parts.push_back({"BlockSchedulerGdnFwdOCube", {}, false});
  EXPECT_THAT(ix.index().ResolveClass(t), SizeIs(2));
  std::vector<ClassRef> near = ix.index().ResolveClass(t, ix.File("op_kernel/arch22/gemm/kernel/gdn_fwd_o_kernel.hpp"));
  ASSERT_THAT(near, SizeIs(1));
  EXPECT_EQ(near[0].cls->file, ix.File("op_kernel/arch22/gemm/block/block_scheduler_gdn_fwd_o.hpp"));
}

TEST(CodeIndexTest, InheritedMethodsAreFoundInTheBase) {
  // chunk_fwd_o: InitTask() is defined by the common scheduler, not by the cube one.
  IndexedFiles ix({{"op_kernel/arch22/gemm/block/block_scheduler_gdn_fwd_o.hpp",
                    "namespace Catlass::Gemm::Block {\n"
                    "struct BlockSchedulerGdnFwdO {\n"
                    "    void InitTask() { }\n"
                    "};\n"
                    "struct BlockSchedulerGdnFwdOCube : public BlockSchedulerGdnFwdO {\n"
                    "    void Init(GM_ADDR cu_seqlens, GM_ADDR chunk_offsets, GM_ADDR tiling) { }\n"
                    "};\n"
                    "}\n"}});
  ClassRef cube;
  cube.cls = ix.Class("Catlass::Gemm::Block::BlockSchedulerGdnFwdOCube");
  ASSERT_NE(cube.cls, nullptr);
  auto m = ix.index().Methods(cube, "InitTask");
  ASSERT_THAT(m, SizeIs(1));
  EXPECT_EQ(m[0].first->DisplayName(), "BlockSchedulerGdnFwdO::InitTask");
  EXPECT_EQ(m[0].second.cls, ix.Class("Catlass::Gemm::Block::BlockSchedulerGdnFwdO"));
}

TEST(CodeIndexTest, PreprocessorRegionsNamingACoreTypeGiveItsLines) {
  IndexedFiles ix({{"op_kernel/k.cpp",
                    "void k() {\n"                       // 1
                    "#ifdef __DAV_C220_CUBE__\n"         // 2
                    "    CubeWork();\n"                  // 3
                    "#else\n"                            // 4
                    "    VecWork();\n"                   // 5
                    "#endif\n"                           // 6
                    "#if defined(__DAV_C220_VEC__)\n"    // 7
                    "    Epilogue();\n"                  // 8
                    "#endif\n"                           // 9
                    "#ifndef SPLIT_CORE_CUBE\n"          // 10
                    "    Combine();\n"                   // 11
                    "#endif\n"                           // 12
                    "    Common();\n"                    // 13
                    "}\n"}});
  const SourceFile* f = ix.File("op_kernel/k.cpp");
  EXPECT_EQ(ix.index().RegionCore(f, 3), kCoreAic);
  EXPECT_EQ(ix.index().RegionCore(f, 5), kCoreAiv);
  EXPECT_EQ(ix.index().RegionCore(f, 8), kCoreAiv);
  EXPECT_EQ(ix.index().RegionCore(f, 11), kCoreAiv);
  EXPECT_EQ(ix.index().RegionCore(f, 13), kCoreNone);
}

// A translation unit: the roots (files nothing includes) that reach a file, with all they
// include. An include spelled for an include directory (`"common.h"` from src/ for include/)
// is followed to the index file whose path ends with it.
TEST(CodeIndexTest, UnitOfAFileIsTheRootsThatReachItWithTheirIncludes) {
  IndexedFiles ix({{"include/common.h", "inline void Shared() {}\n"},
                   {"include/only_a.h", "#include \"common.h\"\n"},
                   {"src/a.asc", "#include \"only_a.h\"\n__global__ void K() {}\n"},
                   {"src/b.asc", "#include \"common.h\"\n__global__ void K() {}\n"}});
  auto files = [&](const FileUnit* u) {
    std::set<std::string> out;
    if (u)
      for (const SourceFile* f : *u) out.insert(f->rel);
    return out;
  };
  EXPECT_EQ(files(ix.index().UnitOf(ix.File("src/a.asc"))),
            (std::set<std::string>{"src/a.asc", "include/only_a.h", "include/common.h"}));
  EXPECT_EQ(files(ix.index().UnitOf(ix.File("include/only_a.h"))),
            (std::set<std::string>{"src/a.asc", "include/only_a.h", "include/common.h"}));
  EXPECT_EQ(files(ix.index().UnitOf(ix.File("src/b.asc"))), (std::set<std::string>{"src/b.asc", "include/common.h"}));
  // Both programs compile common.h: its unit is every file, nothing to narrow.
  EXPECT_EQ(ix.index().UnitOf(ix.File("include/common.h")), nullptr);
}

}  // namespace
}  // namespace optrace::source::index
