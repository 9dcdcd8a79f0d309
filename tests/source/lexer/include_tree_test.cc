#include "source/lexer/include_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/temp_tree.h"

namespace optrace::source {
namespace {
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The tree as plan and lint see it: every source under the root loaded before the walk.
SourceSet LoadAll(const testing::TempTree& t) {
  SourceSet set(t.path());
  Result<std::vector<std::filesystem::path>> files = ListSourceFiles(t.path());
  EXPECT_TRUE(files.ok());
  for (const auto& p : *files) EXPECT_TRUE(set.Load(p).ok()) << p;
  return set;
}

std::vector<std::string> Rels(const IncludeTree& tree) {
  std::vector<std::string> out;
  for (const SourceFile* f : tree.files) out.push_back(f->rel);
  return out;
}

TEST(IncludeTreeTest, AHeaderInAFolderOnlyTheBuildsIncludePathNamesIsFoundByName) {
  // cann-samples' layout: src/0_naive.asc includes "fia_entry.h", which CMake's
  // target_include_directories(... include/kernel) finds.
  testing::TempTree t({{"src/0_naive.asc", "#include \"fia_entry.h\"\n#include \"kernel_operator.h\"\n"},
                       {"include/kernel/fia_entry.h", "#include \"util.h\"\n"},
                       {"include/utils/util.h", ""}});
  SourceSet set = LoadAll(t);
  IncludeOptions io;
  io.by_name = true;
  Result<IncludeTree> tree = WalkIncludeTree(set, t.path("src/0_naive.asc"), io);
  ASSERT_TRUE(tree.ok()) << tree.status().message();
  EXPECT_THAT(Rels(*tree), ElementsAre("src/0_naive.asc", "include/kernel/fia_entry.h", "include/utils/util.h"));
  EXPECT_THAT(tree->FoundByName(), ElementsAre("src/0_naive.asc:1: fia_entry.h -> include/kernel/fia_entry.h",
                                               "include/kernel/fia_entry.h:1: util.h -> include/utils/util.h"));
  EXPECT_THAT(tree->UnresolvedQuoted(), ElementsAre("src/0_naive.asc:2: kernel_operator.h"));
  EXPECT_THAT(FoundByNameSummary(tree->FoundByName()), HasSubstr("2 #include \"...\" found by file name"));
}

TEST(IncludeTreeTest, WithoutByNameAHeaderOffTheSearchPathIsUnresolved) {
  testing::TempTree t({{"src/k.asc", "#include \"fia_entry.h\"\n"}, {"include/kernel/fia_entry.h", ""}});
  SourceSet set = LoadAll(t);
  Result<IncludeTree> tree = WalkIncludeTree(set, t.path("src/k.asc"), IncludeOptions{});
  ASSERT_TRUE(tree.ok());
  EXPECT_THAT(Rels(*tree), ElementsAre("src/k.asc"));
  EXPECT_THAT(tree->FoundByName(), IsEmpty());
  EXPECT_THAT(tree->UnresolvedQuoted(), ElementsAre("src/k.asc:1: fia_entry.h"));
}

TEST(IncludeTreeTest, SeveralFilesOfThatNameLeaveTheIncludeToTheBuildsIncludePath) {
  testing::TempTree t({{"src/k.asc", "#include \"common.h\"\n"}, {"arch32/common.h", ""}, {"arch35/common.h", ""}});
  SourceSet set = LoadAll(t);
  IncludeOptions io;
  io.by_name = true;
  Result<IncludeTree> tree = WalkIncludeTree(set, t.path("src/k.asc"), io);
  ASSERT_TRUE(tree.ok());
  EXPECT_THAT(Rels(*tree), ElementsAre("src/k.asc"));
  EXPECT_THAT(tree->UnresolvedQuoted(), ElementsAre("src/k.asc:1: common.h"));
}

TEST(IncludeTreeTest, ATestFoldersStubIsNoCandidateForShippingCode) {
  // A unit test's stand-in for an SDK header is not what the kernel build includes.
  testing::TempTree t({{"op_kernel/k.cpp", "#include \"kernel_operator.h\"\n"},
                       {"tests/ut/stub/kernel_operator.h", ""},
                       {"tests/ut/t.cpp", "#include \"kernel_operator.h\"\n"}});
  SourceSet set = LoadAll(t);
  IncludeOptions io;
  io.by_name = true;
  Result<IncludeTree> shipping = WalkIncludeTree(set, t.path("op_kernel/k.cpp"), io);
  ASSERT_TRUE(shipping.ok());
  EXPECT_THAT(Rels(*shipping), ElementsAre("op_kernel/k.cpp"));
  Result<IncludeTree> test = WalkIncludeTree(set, t.path("tests/ut/t.cpp"), io);
  ASSERT_TRUE(test.ok());
  EXPECT_THAT(Rels(*test), ElementsAre("tests/ut/t.cpp", "tests/ut/stub/kernel_operator.h"));
}

TEST(IncludeTreeTest, ByNameMatchesWholePathComponents) {
  // "kernel/x.h" is not the tail of "mykernel/x.h"; a path the include spells must match as folders.
  testing::TempTree t({{"src/k.asc", "#include \"kernel/x.h\"\n#include \"../up.h\"\n"},
                       {"mykernel/x.h", ""},
                       {"deep/up.h", ""}});
  SourceSet set = LoadAll(t);
  IncludeOptions io;
  io.by_name = true;
  Result<IncludeTree> tree = WalkIncludeTree(set, t.path("src/k.asc"), io);
  ASSERT_TRUE(tree.ok());
  EXPECT_THAT(Rels(*tree), ElementsAre("src/k.asc"));
}

TEST(IncludeTreeTest, AnIncludeOnTheSearchPathIsNeverTakenByName) {
  testing::TempTree t({{"op_kernel/k.cpp", "#include \"a.h\"\n"}, {"op_kernel/a.h", ""}, {"other/a.h", ""}});
  SourceSet set = LoadAll(t);
  IncludeOptions io;
  io.by_name = true;
  Result<IncludeTree> tree = WalkIncludeTree(set, t.path("op_kernel/k.cpp"), io);
  ASSERT_TRUE(tree.ok());
  EXPECT_THAT(Rels(*tree), ElementsAre("op_kernel/k.cpp", "op_kernel/a.h"));
  EXPECT_THAT(tree->FoundByName(), IsEmpty());
}

}  // namespace
}  // namespace optrace::source
