#include "source/compile/sdk_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/temp_tree.h"

namespace optrace::source {
namespace {
using ::testing::HasSubstr;
using testing::TempTree;
namespace fs = std::filesystem;

bool Lists(const SdkLayout& sdk, const fs::path& dir) {
  for (const fs::path& d : sdk.include_dirs)
    if (fs::equivalent(d, dir)) return true;
  return false;
}

TEST(SdkLayoutTest, TheEmulatorFolderIsRecognisedAsAStandIn) {
  Result<SdkLayout> sdk = LocateSdk(fs::path(OPTRACE_SOURCE_DIR) / "emu" / "include");
  ASSERT_TRUE(sdk.ok()) << sdk.status().message();
  EXPECT_EQ(sdk->kind, SdkKind::kEmulator);
  EXPECT_TRUE(sdk->cpu_stubs);
  EXPECT_THAT(sdk->description, HasSubstr("emulator"));
}

TEST(SdkLayoutTest, Cann8ToolkitListsTikcfwHighLevelApiAndTikicpulib) {
  TempTree t({{"compiler/tikcpp/tikcfw/kernel_operator.h", "// real\n"},
              {"compiler/tikcpp/tikcfw/impl/kernel_macros.h", ""},
              {"compiler/tikcpp/tikcfw/interface/kernel_tpipe.h", ""},
              {"compiler/ascendc/include/highlevel_api/lib/matmul_intf.h", ""},
              {"tools/tikicpulib/lib/include/stub_def.h", ""}});
  Result<SdkLayout> sdk = LocateSdk(t.path());
  ASSERT_TRUE(sdk.ok()) << sdk.status().message();
  EXPECT_EQ(sdk->kind, SdkKind::kCann8);
  EXPECT_TRUE(sdk->cpu_stubs);
  EXPECT_TRUE(Lists(*sdk, t.path("compiler/tikcpp/tikcfw")));
  EXPECT_TRUE(Lists(*sdk, t.path("compiler/tikcpp/tikcfw/impl")));
  EXPECT_TRUE(Lists(*sdk, t.path("compiler/tikcpp/tikcfw/interface")));
  EXPECT_TRUE(Lists(*sdk, t.path("compiler/ascendc/include/highlevel_api")));
  EXPECT_TRUE(Lists(*sdk, t.path("tools/tikicpulib/lib/include")));
}

// An unpacked toolkit (no install step): acl/acl.h sits in <arch>-linux/include, which an install
// links as include/.
TEST(SdkLayoutTest, AnUnpackedCann8ToolkitListsItsArchIncludeFolder) {
  TempTree t({{"compiler/tikcpp/tikcfw/kernel_operator.h", "// real\n"},
              {"aarch64-linux/include/acl/acl.h", ""},
              {"tools/tikicpulib/lib/include/stub_def.h", ""}});
  Result<SdkLayout> sdk = LocateSdk(t.path());
  ASSERT_TRUE(sdk.ok()) << sdk.status().message();
  EXPECT_TRUE(Lists(*sdk, t.path("aarch64-linux/include")));
}

TEST(SdkLayoutTest, Cann9InstallUsesItsAscTree) {
  TempTree t({{"x86_64-linux/asc/include/kernel_operator.h", ""},
              {"x86_64-linux/asc/include/basic_api/kernel_tensor.h", ""},
              {"x86_64-linux/asc/impl/basic_api/kernel_macros.h", ""},
              {"tools/tikicpulib/lib/include/stub_def.h", ""}});
  Result<SdkLayout> sdk = LocateSdk(t.path());
  ASSERT_TRUE(sdk.ok()) << sdk.status().message();
  EXPECT_EQ(sdk->kind, SdkKind::kAscDevkit);
  EXPECT_TRUE(sdk->cpu_stubs);
  EXPECT_TRUE(Lists(*sdk, t.path("x86_64-linux/asc/include/basic_api")));
  EXPECT_TRUE(Lists(*sdk, t.path("x86_64-linux/asc/impl/basic_api")));
}

TEST(SdkLayoutTest, AnAscDevkitCheckoutHasNoCpuDebugHeaders) {
  TempTree t({{"include/kernel_operator.h", ""}, {"impl/basic_api/kernel_macros.h", ""}});
  Result<SdkLayout> sdk = LocateSdk(t.path());
  ASSERT_TRUE(sdk.ok()) << sdk.status().message();
  EXPECT_EQ(sdk->kind, SdkKind::kAscDevkit);
  EXPECT_FALSE(sdk->cpu_stubs);
  EXPECT_THAT(sdk->description, HasSubstr("asc-devkit tree"));
}

TEST(SdkLayoutTest, AFolderWithoutKernelOperatorSaysWhereItLooked) {
  TempTree t({{"README", "not an SDK\n"}});
  Result<SdkLayout> sdk = LocateSdk(t.path());
  ASSERT_FALSE(sdk.ok());
  EXPECT_EQ(sdk.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(sdk.status().message(), HasSubstr("compiler/tikcpp/tikcfw"));
  EXPECT_THAT(sdk.status().message(), HasSubstr("ASCEND_HOME_PATH"));
}

}  // namespace
}  // namespace optrace::source
