#include "source/lexer/source_set.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/temp_tree.h"

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

TEST(ListOperatorFilesTest, PlacedSingleHeadersAreListedApartFromTheSources) {
  testing::TempTree t({{"op_kernel/a.cpp", ""},
                       {"op_kernel/optrace_trace.h", ""},
                       {"op_kernel/sub/b.h", ""},
                       {"op_kernel/sub/optrace_trace.h", ""},
                       {".git/optrace_trace.h", ""},
                       {"README.md", ""}});
  Result<SourceListing> l = ListOperatorFiles(t.path());
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_THAT(l->sources, ElementsAre(t.path("op_kernel/a.cpp"), t.path("op_kernel/sub/b.h")));
  EXPECT_THAT(l->single_headers, ElementsAre(t.path("op_kernel/optrace_trace.h"), t.path("op_kernel/sub/optrace_trace.h")));
  Result<std::vector<std::filesystem::path>> sources = ListSourceFiles(t.path());
  ASSERT_TRUE(sources.ok());
  EXPECT_EQ(*sources, l->sources);
}

}  // namespace
}  // namespace optrace::source
