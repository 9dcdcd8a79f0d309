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

namespace optrace::source {
namespace {

bool Defines(std::string_view text) { return DefinesMoeTracing(Lex(text)); }

TEST(DefinesMoeTracingTest, AMacroOrAFunctionDefinitionDefinesIt) {
  EXPECT_TRUE(Defines("#define MoeTracing(...) RecordPoint(__VA_ARGS__)\n"));
  EXPECT_TRUE(Defines("__aicore__ inline void MoeTracing(int64_t id) {}\n"));
  EXPECT_TRUE(Defines("template <typename... T>\n__aicore__ static inline auto MoeTracing(T... t) -> void {}\n"));
  EXPECT_TRUE(Defines("std::enable_if_t<true> MoeTracing(int id);\n"));
}

TEST(DefinesMoeTracingTest, ACallOrAnInactiveDefinitionDoesNot) {
  EXPECT_FALSE(Defines("void F() { MoeTracing(TRACE_POINT(\"x\", \"B\")); }\n"));
  EXPECT_FALSE(Defines("#if 0\n#define MoeTracing(...)\n#endif\n"));
  EXPECT_FALSE(Defines("#include \"optrace_trace.h\"\n"));  // reaching optrace's header is not defining it
}

}  // namespace
}  // namespace optrace::source
