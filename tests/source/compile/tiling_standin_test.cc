// The tiling stand-in: the host's tiling declarations as the kernel-side struct and macros the
// operator's build would generate, for the compile check.
#include "source/compile/tiling_standin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace optrace::source {
namespace {
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const char* kHostTiling =
    "#include \"register/tilingdata_base.h\"\nnamespace optiling {\n"
    "BEGIN_TILING_DATA_DEF(RowTiling)\n  TILING_DATA_FIELD_DEF(uint32_t, rows);\nEND_TILING_DATA_DEF;\n"
    "BEGIN_TILING_DATA_DEF(AddCustomTilingData)\n"
    "  TILING_DATA_FIELD_DEF(uint32_t, totalLength);\n"
    "  TILING_DATA_FIELD_DEF_ARR(int64_t, 8, shape);\n"
    "  TILING_DATA_FIELD_DEF_STRUCT(RowTiling, row);\n"
    "END_TILING_DATA_DEF;\n"
    "REGISTER_TILING_DATA_CLASS(AddCustom_1, RowTiling)\n"
    "REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)\n}\n";

TEST(TilingStandIn, DeclaresTheHostsFieldsAndReadsTheOperatorsRegisteredStruct) {
  TilingStandIn t = MakeTilingStandInFromTexts({{"op_host/add_custom_tiling.h", kHostTiling}});
  EXPECT_THAT(t.structs, ElementsAre("RowTiling", "AddCustomTilingData"));
  EXPECT_EQ(t.default_struct, "AddCustomTilingData") << "AddCustom_1 is a per-key registration";
  EXPECT_THAT(t.from, ElementsAre("op_host/add_custom_tiling.h"));
  EXPECT_THAT(t.header, HasSubstr("struct AddCustomTilingData {\n  uint32_t totalLength;\n  int64_t shape[8];\n"
                                  "  RowTiling row;\n};\n"));
  EXPECT_THAT(t.header, HasSubstr("#define GET_TILING_DATA(var, tiling) AddCustomTilingData var; (void)(tiling)\n"));
  EXPECT_THAT(t.header, ::testing::Not(HasSubstr("kernel_tiling.h"))) << "every field type is declared here";
}

TEST(TilingStandIn, AFieldOfAnSdkTilingTypeIncludesTheSdksTilingHeader) {
  TilingStandIn t = MakeTilingStandInFromTexts(
      {{"op_host/mm_tiling.h", "BEGIN_TILING_DATA_DEF(MmTiling)\nTILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cube);\n"
                               "END_TILING_DATA_DEF;\nREGISTER_TILING_DATA_CLASS(Mm, MmTiling)\n"}});
  EXPECT_THAT(t.header, HasSubstr("#include \"kernel_tiling/kernel_tiling.h\""));
  EXPECT_THAT(t.header, HasSubstr("TCubeTiling cube;"));
}

TEST(TilingStandIn, NothingWhenTheTreeDefinesTheMacroItself) {
  TilingStandIn t = MakeTilingStandInFromTexts(
      {{"op_host/t.h", "BEGIN_TILING_DATA_DEF(T)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"},
       {"op_kernel/tiling_def.h", "#define GET_TILING_DATA(d, t) T d = *reinterpret_cast<T*>(t)\n"}});
  EXPECT_THAT(t.header, IsEmpty());
}

TEST(TilingStandIn, AStructTheKernelSideDefinesIsLeftToTheTree) {
  TilingStandIn t = MakeTilingStandInFromTexts(
      {{"op_host/t.h", "BEGIN_TILING_DATA_DEF(T)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"},
       {"op_kernel/t_kernel.h", "struct T {\n  uint32_t n;\n};\n"}});
  EXPECT_THAT(t.header, IsEmpty());
  EXPECT_THAT(t.structs, IsEmpty());
}

TEST(TilingStandIn, NothingWithoutTilingDeclarations) {
  TilingStandIn t = MakeTilingStandInFromTexts({{"op_kernel/k.cpp", "struct A { int x; };\n"}});
  EXPECT_THAT(t.header, IsEmpty());
}

}  // namespace
}  // namespace optrace::source
