#include "source/lexer/source_set.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace optrace::source {
namespace {
using ::testing::ElementsAre;

TEST(DefaultKernelEntriesTest, UnitTestKernelsUnderTestsAreNotEntries) {
  // ops-nn keeps a CPU-debug test kernel in each operator's tests/ut/op_kernel/.
  EXPECT_THAT(DefaultKernelEntries({"op_kernel/gelu_apt.cpp", "tests/ut/op_kernel/test_gelu_apt.cpp"}),
              ElementsAre("op_kernel/gelu_apt.cpp"));
}

TEST(DefaultKernelEntriesTest, ExampleKernelsAreNotEntries) {
  EXPECT_THAT(DefaultKernelEntries({"examples/test_kernel_direct_apply_ftrl.asc", "op_kernel/apply_ftrl.cpp"}),
              ElementsAre("op_kernel/apply_ftrl.cpp"));
}

TEST(DefaultKernelEntriesTest, OpKernelFilesWinOverOtherShippingFiles) {
  EXPECT_THAT(DefaultKernelEntries({"csrc/launch.cpp", "op_kernel/a.cpp", "op_kernel/arch35/b.cpp"}),
              ElementsAre("op_kernel/a.cpp", "op_kernel/arch35/b.cpp"));
}

TEST(DefaultKernelEntriesTest, WithoutAnOpKernelFolderEveryShippingKernelIsAnEntry) {
  EXPECT_THAT(DefaultKernelEntries({"bgmv_expand.cpp", "sgmv_shrink.cpp"}), ElementsAre("bgmv_expand.cpp", "sgmv_shrink.cpp"));
}

TEST(DefaultKernelEntriesTest, ATreeOfOnlyTestKernelsKeepsThem) {
  EXPECT_THAT(DefaultKernelEntries({"tests/k.cpp"}), ElementsAre("tests/k.cpp"));
}

TEST(DefaultKernelEntriesTest, AFileNamedLikeAFolderIsNotAFolder) {
  EXPECT_THAT(DefaultKernelEntries({"op_kernel/tests.cpp"}), ElementsAre("op_kernel/tests.cpp"));
}

}  // namespace
}  // namespace optrace::source
