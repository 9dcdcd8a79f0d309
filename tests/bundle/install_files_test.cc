#include "bundle/install_files.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_io.h"

namespace optrace::bundle {
namespace {

namespace fs = std::filesystem;

class InstallFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("install_files_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  std::string Read(const std::string& rel) { return ReadFileToString(dir_ / rel).value(); }
  fs::path dir_;
  const FileTable files_{{"a/SKILL.md", "skill\n"}, {"a/build.sh", "echo hi\n"}};
};

TEST_F(InstallFilesTest, WritesEveryFileUnderTheFolder) {
  Result<InstallReport> r = InstallFiles(files_, dir_, false);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->written.size(), 2u);
  EXPECT_EQ(Read("a/SKILL.md"), "skill\n");
  EXPECT_EQ(Read("a/build.sh"), "echo hi\n");
}

TEST_F(InstallFilesTest, ShellScriptsAreExecutable) {
  ASSERT_TRUE(InstallFiles(files_, dir_, false).ok());
  EXPECT_NE(fs::status(dir_ / "a/build.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_EQ(fs::status(dir_ / "a/SKILL.md").permissions() & fs::perms::owner_exec, fs::perms::none);
}

TEST_F(InstallFilesTest, ASecondInstallChangesNothing) {
  ASSERT_TRUE(InstallFiles(files_, dir_, false).ok());
  Result<InstallReport> r = InstallFiles(files_, dir_, false);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->written.empty());
  EXPECT_EQ(r->unchanged.size(), 2u);
}

TEST_F(InstallFilesTest, AnEditedFileStopsTheInstallBeforeAnyWrite) {
  ASSERT_TRUE(EnsureDirectory(dir_ / "a").ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ / "a/SKILL.md", "my edits\n").ok());
  Result<InstallReport> r = InstallFiles(files_, dir_, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("a/SKILL.md: exists and differs"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("--force"), std::string::npos);
  EXPECT_EQ(Read("a/SKILL.md"), "my edits\n");
  EXPECT_FALSE(fs::exists(dir_ / "a/build.sh"));
}

TEST_F(InstallFilesTest, ReplaceChangedOverwritesAndReportsIt) {
  ASSERT_TRUE(EnsureDirectory(dir_ / "a").ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ / "a/SKILL.md", "old\n").ok());
  Result<InstallReport> r = InstallFiles(files_, dir_, true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->replaced, std::vector<std::string>{"a/SKILL.md"});
  EXPECT_EQ(Read("a/SKILL.md"), "skill\n");
}

}  // namespace
}  // namespace optrace::bundle
