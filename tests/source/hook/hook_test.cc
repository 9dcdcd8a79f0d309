#include "source/hook/hook.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/file_io.h"

namespace optrace::source {
namespace {
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kScript =
    "#!/bin/bash\nset -e\nBUILD_DIR=out\nmkdir -p ${BUILD_DIR}\n"
    "cp -rf op_kernel \\\n  ${BUILD_DIR}/\ncd ${BUILD_DIR}\n./build.sh\n";

HookSpec Spec() {
  HookSpec s;
  s.optrace_path = "/opt/optrace/bin/optrace";
  return s;
}

TEST(HookTest, InstallsAfterTheCopyStepBeforeBuild) {
  auto r = InstallHook(kScript, "c.sh", Spec());
  ASSERT_TRUE(r.ok()) << r.status().message();
  size_t copy = r->find("  ${BUILD_DIR}/\n");
  size_t start = r->find(std::string(kHookStart));
  size_t build = r->find("./build.sh");
  EXPECT_LT(copy, start);
  EXPECT_LT(start, build);
  EXPECT_THAT(*r, HasSubstr("OPTRACE_DEFAULT='/opt/optrace/bin/optrace'\nOPTRACE=\"${OPTRACE:-$OPTRACE_DEFAULT}\"\n"));
}

TEST(HookTest, SecondInstallChangesNothing) {
  auto once = InstallHook(kScript, "c.sh", Spec());
  auto twice = InstallHook(*once, "c.sh", Spec());
  EXPECT_EQ(*once, *twice);
}

TEST(HookTest, RemoveRestoresByteForByte) {
  for (std::string script : {kScript, kScript.substr(0, kScript.size() - 1)}) {
    auto installed = InstallHook(script, "c.sh", Spec());
    ASSERT_TRUE(installed.ok());
    EXPECT_EQ(*RemoveHook(*installed, "c.sh"), script);
  }
}

TEST(HookTest, AnchorAtEndOfFileWithoutNewlineRoundTrips) {
  std::string script = "cp a b\n./build.sh && cp x y";
  HookSpec s = Spec();
  s.after_regex = "cp x";
  auto installed = InstallHook(script, "c.sh", s);
  ASSERT_TRUE(installed.ok());
  EXPECT_THAT(*installed, StartsWith(script + "\n" + std::string(kHookStart)));
  EXPECT_EQ(*RemoveHook(*installed, "c.sh"), script);
}

TEST(HookTest, CopyInsideALoopGetsTheHookAfterTheLoop) {
  std::string script = "for op in a b; do\n  copy_ops $op\ndone\n./build.sh\n";
  auto r = InstallHook(script, "c.sh", Spec());
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(*r, HasSubstr("done\n" + std::string(kHookStart)));
}

TEST(HookTest, AfterRegexPicksTheAnchor) {
  HookSpec s = Spec();
  s.after_regex = "^mkdir";
  s.command = "echo custom";
  auto r = InstallHook(kScript, "c.sh", s);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(*r, HasSubstr("mkdir -p ${BUILD_DIR}\n" + std::string(kHookStart)));
  EXPECT_THAT(*r, HasSubstr("\necho custom\n" + std::string(kHookEnd)));
}

TEST(HookTest, NoBuildLineAndNoAfterIsAnError) {
  auto r = InstallHook("echo hi\n", "c.sh", Spec());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("c.sh: no line runs build.sh"));
}

TEST(HookTest, AfterRegexWithoutMatchIsAnError) {
  HookSpec s = Spec();
  s.after_regex = "^nothing";
  auto r = InstallHook(kScript, "c.sh", s);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("no line matches --after '^nothing'"));
}

TEST(HookTest, UnbalancedMarkersAreReported) {
  std::string broken = kScript + std::string(kHookStart) + "\necho x\n";
  EXPECT_FALSE(InstallHook(broken, "c.sh", Spec()).ok());
  EXPECT_FALSE(RemoveHook(broken, "c.sh").ok());
  EXPECT_THAT(VerifyHook(broken).problem, HasSubstr("never closed"));
}

TEST(HookTest, VerifyFindsBlockAndItsOptrace) {
  HookSpec s = Spec();
  s.optrace_path = "/bin/sh";  // exists and is executable
  HookStatus st = VerifyHook(*InstallHook(kScript, "c.sh", s));
  EXPECT_TRUE(st.present);
  EXPECT_EQ(st.start_line, 7);
  EXPECT_EQ(st.optrace_path, "/bin/sh");
  EXPECT_TRUE(st.optrace_found);
  EXPECT_FALSE(VerifyHook(*InstallHook(kScript, "c.sh", Spec())).optrace_found);
  EXPECT_FALSE(VerifyHook(kScript).present);
}

TEST(HookTest, ModifyBlockRewritesAndVerifySeesIt) {
  HookSpec s = Spec();
  s.modify = true;
  EXPECT_THAT(HookBlock(s), HasSubstr("/point_map.json\" --modify --stamp-fingerprint ||"));
  EXPECT_TRUE(VerifyHook(*InstallHook(kScript, "c.sh", s)).rewrites);
  EXPECT_FALSE(VerifyHook(*InstallHook(kScript, "c.sh", Spec())).rewrites);
}

TEST(HookTest, SeedPreprocessorBlockCountsAsRewritingOnlyWithModify) {
  HookSpec s = Spec();
  s.command = "python3 \"${SCRIPT_DIR}/trace_preprocessor.py\" --src op_kernel --modify";
  EXPECT_TRUE(VerifyHook(*InstallHook(kScript, "c.sh", s)).rewrites);
  s.command = "python3 \"${SCRIPT_DIR}/trace_preprocessor.py\" --src op_kernel";
  EXPECT_FALSE(VerifyHook(*InstallHook(kScript, "c.sh", s)).rewrites) << "without --modify it only writes the map";
}

TEST(HookTest, TheDefaultBlockNamesNoPathAndStopsWithAMessageWithoutOptrace) {
  HookSpec s;
  std::string block = HookBlock(s);
  EXPECT_THAT(block, HasSubstr("OPTRACE_DEFAULT='optrace'"));
  EXPECT_THAT(block, HasSubstr("command -v \"$OPTRACE\""));
  EXPECT_THAT(block, HasSubstr("optrace not found"));
  EXPECT_THAT(block, HasSubstr("exit 127"));
  EXPECT_EQ(VerifyHook(*InstallHook(kScript, "c.sh", s)).optrace_path, "optrace");
}

TEST(HookTest, ACMakeFileGetsACMakeBlockAfterProject) {
  EXPECT_EQ(HookKindOf("op/CMakeLists.txt"), HookKind::kCMake);
  EXPECT_EQ(HookKindOf("cmake/ops.cmake"), HookKind::kCMake);
  EXPECT_EQ(HookKindOf("compile_ascend_proj.sh"), HookKind::kShell);
  const std::string cmake = "cmake_minimum_required(VERSION 3.16)\nproject(op\n  LANGUAGES CXX)\nadd_library(k k.cpp)\n";
  HookSpec s;
  s.kind = HookKind::kCMake;
  Result<std::string> out = InstallHook(cmake, "CMakeLists.txt", s);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->find("cmake_minimum_required(VERSION 3.16)\nproject(op\n  LANGUAGES CXX)\n# TRACE_PREPROCESSOR_HOOK_START"), 0u)
      << *out;
  EXPECT_THAT(*out, HasSubstr("find_program(OPTRACE_EXECUTABLE NAMES \"optrace\")"));
  EXPECT_THAT(*out, HasSubstr("execute_process(COMMAND \"${OPTRACE_EXECUTABLE}\" scan \"${CMAKE_CURRENT_LIST_DIR}/op_kernel\""));
  EXPECT_THAT(*out, HasSubstr("add_custom_target(optrace_point_map ALL"));
  EXPECT_THAT(*out, ::testing::Not(HasSubstr("command -v")));
  HookStatus st = VerifyHook(*out);
  EXPECT_TRUE(st.present);
  EXPECT_EQ(st.optrace_path, "optrace");
  EXPECT_FALSE(st.absolute_path);
  EXPECT_EQ(*RemoveHook(*out, "CMakeLists.txt"), cmake);
  s.modify = true;
  EXPECT_TRUE(VerifyHook(*InstallHook(cmake, "CMakeLists.txt", s)).rewrites);
}

TEST(HookTest, ACMakeFileWithoutProjectGetsTheBlockAtTheTop) {
  HookSpec s;
  s.kind = HookKind::kCMake;
  const std::string cmake = "add_library(k k.cpp)\n";
  Result<std::string> out = InstallHook(cmake, "ops.cmake", s);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rfind("# TRACE_PREPROCESSOR_HOOK_START", 0), 0u);
  EXPECT_EQ(*RemoveHook(*out, "ops.cmake"), cmake);
}

}  // namespace
}  // namespace optrace::source
