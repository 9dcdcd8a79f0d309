#include "source/compile/compile_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/example_tree.h"
#include "testing/temp_tree.h"

namespace optrace::source {
namespace {
using ::testing::HasSubstr;
using testing::TempTree;
namespace fs = std::filesystem;

TEST(ParseCompilerErrorsTest, ReadsClangAndGccErrorLines) {
  auto errors = ParseCompilerErrors(
      "/op/k.cpp:12:5: error: no member named 'SetValu' in 'X'\n"
      "In file included from /op/k.cpp:1:\n"
      "/op/a.h:7: error: expected ';'\n"
      "/op/b.h:3:10: fatal error: 'lib/matmul_intf.h' file not found\n");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].file, "/op/k.cpp");
  EXPECT_EQ(errors[0].line, 12);
  EXPECT_EQ(errors[0].column, 5);
  EXPECT_EQ(errors[0].message, "no member named 'SetValu' in 'X'");
  EXPECT_EQ(errors[1].line, 7);
  EXPECT_EQ(errors[1].column, 0);
  EXPECT_EQ(errors[2].message, "'lib/matmul_intf.h' file not found");
}

TEST(ParseCompilerErrorsTest, SkipsNotesWarningsAndErrorsWithoutAPosition) {
  auto errors = ParseCompilerErrors(
      "/op/k.cpp:3:1: warning: unused\n/op/k.cpp:4:1: note: declared here\ncc1plus: error: bad option\n");
  EXPECT_TRUE(errors.empty());
}

CompileCheckReport OneUnit(std::vector<CompileError> errors) {
  CompileCheckReport r;
  r.units.push_back({"op_kernel/k.cpp", "AIV", 1, false, 0, std::move(errors), 0, "", "", ""});
  return r;
}
CompileError Error(int line, std::string message, std::string text, bool optrace_made = false,
                   std::string original = "\x01") {
  CompileError e;
  e.file = "op_kernel/k.cpp";
  e.line = line;
  e.message = std::move(message);
  e.source_line = text;
  e.original_line = original == "\x01" ? text : original;
  e.optrace_made = optrace_made;
  e.in_operator = true;
  return e;
}

TEST(NewCompileErrorsTest, AnErrorThatOnlyMovedDownIsNotNew) {
  auto before = OneUnit({Error(10, "use of undeclared identifier 'n'", "x = n;")});
  auto after = OneUnit({Error(14, "use of undeclared identifier 'n'", "x = n;")});
  EXPECT_TRUE(NewCompileErrors(before, after).empty());
}

TEST(NewCompileErrorsTest, AnErrorOnAnInsertedLineIsNew) {
  auto before = OneUnit({});
  auto after = OneUnit({Error(5, "use of undeclared identifier 'g'", "MoeTracing(TRACE_POINT(\"a\", \"B\"), g);  // optrace:auto:1a2b3c",
                              true, "")});
  auto fresh = NewCompileErrors(before, after);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_TRUE(fresh[0].optrace_made);
}

TEST(NewCompileErrorsTest, ARewrittenLineComparesByItsOriginalCode) {
  auto before = OneUnit({Error(3, "unknown type name 'T'", "void f(T x) {")});
  auto after = OneUnit({Error(3, "unknown type name 'T'", "void f(T x, GM_ADDR p) {  // optrace:orig-b64:dm9pZCBmKFQgeCkgew==:0a1b2c",
                              true, "void f(T x) {")});
  EXPECT_TRUE(NewCompileErrors(before, after).empty());
}

TEST(NewCompileErrorsTest, AnotherSpellingSuggestionIsTheSameError) {
  // After instrument, clang suggests the new profiling_data parameter for the same undeclared name.
  auto before = OneUnit({Error(36, "use of undeclared identifier 'tiling_data'", "op.Init(x, tiling_data);")});
  auto after = OneUnit({Error(37, "use of undeclared identifier 'tiling_data'; did you mean 'profiling_data'?",
                              "op.Init(x, tiling_data);")});
  EXPECT_TRUE(NewCompileErrors(before, after).empty());
  auto other = OneUnit({Error(37, "use of undeclared identifier 'tiling'", "op.Init(x, tiling_data);")});
  EXPECT_EQ(NewCompileErrors(before, other).size(), 1u);
}

TEST(NewCompileErrorsTest, EachOldErrorExcusesOneNewOne) {
  auto before = OneUnit({Error(3, "bad", "y;")});
  auto after = OneUnit({Error(3, "bad", "y;"), Error(9, "bad", "y;")});
  EXPECT_EQ(NewCompileErrors(before, after).size(), 1u);
}

CompileCheckOptions EmulatorOptions(const fs::path& op_root) {
  Result<SdkLayout> sdk = LocateSdk(fs::path(OPTRACE_SOURCE_DIR) / "emu" / "include");
  EXPECT_TRUE(sdk.ok());
  CompileCheckOptions o;
  o.sdk = *sdk;
  o.op_root = op_root;
  // The example operator's own build (examples/moe_dispatch_combine/CMakeLists.txt) names
  // optrace's include/: it is one of its folders, given as a team's -I would be.
  o.include_dirs = {fs::path(OPTRACE_SOURCE_DIR) / "include"};
  return o;
}

TEST(RunCompileCheckTest, TheExampleCompilesInBothHalvesAgainstTheEmulator) {
  TempTree t;
  testing::CopyExampleOperator(t);
  auto r = RunCompileCheck(EmulatorOptions(t.path()), {{t.path("op_kernel/moe_dispatch_combine.cpp"), 3}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->units.size(), 2u);
  EXPECT_EQ(r->units[0].core, "AIC");
  EXPECT_EQ(r->units[1].core, "AIV");
  for (const auto& u : r->units) {
    EXPECT_EQ(u.exit_code, 0) << u.command;
    EXPECT_TRUE(u.errors.empty()) << u.errors.front().message;
    EXPECT_EQ(u.entry, "op_kernel/moe_dispatch_combine.cpp");
  }
}

TEST(RunCompileCheckTest, OptracesIncludeFolderIsNeverAddedByTheCheck) {
  TempTree t;
  testing::CopyExampleOperator(t);
  CompileCheckOptions o = EmulatorOptions(t.path());
  o.include_dirs.clear();  // a team's build without optrace's folder
  auto r = RunCompileCheck(o, {{t.path("op_kernel/moe_dispatch_combine.cpp"), kCompileAiv}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->units.size(), 1u);
  EXPECT_THAT(r->units[0].command, ::testing::Not(HasSubstr("optrace-device")));
  EXPECT_THAT(r->units[0].command, ::testing::Not(HasSubstr(std::string(OPTRACE_SOURCE_DIR) + "/include")));
  ASSERT_FALSE(r->units[0].errors.empty());
  EXPECT_THAT(r->units[0].fatal, HasSubstr("optrace/trace.h"));
  EXPECT_THAT(r->units[0].errors[0].message, HasSubstr("optrace instrument --op DIR"));
}

TEST(RunCompileCheckTest, TheCommandToRerunQuotesEveryShellCharacter) {
  // An entry named with a backtick and a redirection: pasted, the command must run nothing else.
  TempTree t({{"op_kernel/k`touch pwned`>x.cpp", "extern \"C\" __global__ __aicore__ void k(GM_ADDR x) {}\n"}});
  auto r = RunCompileCheck(EmulatorOptions(t.path()), {{t.path("op_kernel/k`touch pwned`>x.cpp"), kCompileAiv}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->units.size(), 1u);
  const std::string& cmd = r->units[0].command;
  EXPECT_THAT(cmd, HasSubstr("'" + t.path("op_kernel/k`touch pwned`>x.cpp") + "'")) << cmd;
  EXPECT_THAT(cmd, HasSubstr(" -D__DAV_C220_VEC__ ")) << "plain arguments stay bare";
}

TEST(RunCompileCheckTest, AWriteThroughAConstViewIsAnErrorAtItsLine) {
  TempTree t;
  testing::CopyExampleOperator(t);
  testing::ReplaceInFile(t, "op_kernel/common/moe_context.h", "__aicore__ inline void CopyRow(AscendC::GlobalTensor<float> dst,",
                         "__aicore__ inline void CopyRow(const AscendC::GlobalTensor<float>& dst,");
  auto r = RunCompileCheck(EmulatorOptions(t.path()), {{t.path("op_kernel/moe_dispatch_combine.cpp"), kCompileAiv}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->units.size(), 1u);
  ASSERT_FALSE(r->units[0].errors.empty());
  const CompileError& e = r->units[0].errors[0];
  EXPECT_EQ(e.file, "op_kernel/common/moe_context.h");
  EXPECT_THAT(e.source_line, HasSubstr("dst.SetValue(dstOffset + i"));
  EXPECT_TRUE(e.in_operator);
  EXPECT_FALSE(e.optrace_made);
}

TEST(RunCompileCheckTest, ErrorsInsideTheSdkAreCountedNotReported) {
  TempTree sdk({{"compiler/tikcpp/tikcfw/kernel_operator.h", "#pragma once\nusing GM_ADDR = unsigned char*;\nint broken =;\n"},
                {"tools/tikicpulib/lib/include/stub_def.h", ""}});
  TempTree op({{"op_kernel/k.cpp", "#include \"kernel_operator.h\"\nvoid k(GM_ADDR x) { (void)x; }\n"}});
  Result<SdkLayout> layout = LocateSdk(sdk.path());
  ASSERT_TRUE(layout.ok());
  CompileCheckOptions o;
  o.sdk = *layout;
  o.op_root = op.path();
  auto r = RunCompileCheck(o, {{op.path("op_kernel/k.cpp"), kCompileAiv}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->units[0].errors.empty());
  EXPECT_EQ(r->units[0].sdk_errors, 1u);
  EXPECT_THAT(r->units[0].first_sdk_error, HasSubstr("kernel_operator.h:3"));
  EXPECT_THAT(r->units[0].command, HasSubstr("-DASCENDC_CPU_DEBUG=1"));
  EXPECT_THAT(r->units[0].command, HasSubstr("-D__DAV_C220_VEC__"));
}

TEST(PrepareCompileCheckTest, ANamedSdkThatIsNotOneIsAnError) {
  TempTree t({{"README", "x\n"}});
  CompileCheckRequest q;
  q.sdk = t.path();
  auto p = PrepareCompileCheck(q);
  EXPECT_FALSE(p.ok());
}

TEST(PrepareCompileCheckTest, AnSdkWithoutTikicpulibCannotRunAndSaysWhy) {
  TempTree t({{"include/kernel_operator.h", ""}, {"impl/basic_api/kernel_macros.h", ""}});
  CompileCheckRequest q;
  q.sdk = t.path();
  auto p = PrepareCompileCheck(q);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_FALSE(p->options.has_value());
  EXPECT_THAT(p->unchecked, HasSubstr("stub_def.h"));
}

}  // namespace
}  // namespace optrace::source
