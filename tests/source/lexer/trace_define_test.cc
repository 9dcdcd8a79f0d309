#include "source/lexer/trace_define.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/temp_tree.h"

namespace optrace::source {
namespace {

TEST(TraceDefineTest, SeedFallbackToZeroIsRewriteOnly) {
  auto d = FindRewriteOnlyDefine("#ifndef TRACE_POINT\n#define TRACE_POINT(label, event) 0\n#endif\n", "base.h");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->file, "base.h");
  EXPECT_EQ(d->line, 2);
  EXPECT_EQ(d->text, "#define TRACE_POINT(label, event) 0");
}

TEST(TraceDefineTest, ADefineThatHashesItsLabelIsNot) {
  EXPECT_FALSE(FindRewriteOnlyDefine("#define TRACE_POINT(label, type) \\\n  (::optrace::PointId(label, type))\n"));
  EXPECT_FALSE(FindRewriteOnlyDefine("#define TRACE_POINT(...) MakeId(__VA_ARGS__)\n"));
  EXPECT_FALSE(FindRewriteOnlyDefine("// #define TRACE_POINT(a, b) 0 is what the seed did\nint x;\n"));
}

TEST(TraceDefineTest, ParameterNamedOnlyInACommentDoesNotCount) {
  auto d = FindRewriteOnlyDefine("#define TRACE_POINT(label, event) \\\n  0 /* label is rewritten */\n");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->line, 1);
}

TEST(TraceDefineTest, DirectoryWalkReportsThePathRelativeToIt) {
  optrace::testing::TempTree t({{"op_kernel/a.cpp", "int a;\n"},
                                {"op_kernel/x_base.h", "#pragma once\n#define TRACE_POINT(l, e) 0\n"},
                                {"build_out/op_kernel/x_base.h", "#define TRACE_POINT(l, e) 0\n"}});
  auto d = FindRewriteOnlyDefineUnder(t.path());
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_TRUE(d->has_value());
  EXPECT_EQ((*d)->file, "op_kernel/x_base.h");
  EXPECT_EQ((*d)->line, 2);
}

}  // namespace
}  // namespace optrace::source
