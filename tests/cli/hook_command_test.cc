#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <filesystem>

#include "core/point_map.h"
#include "source/hook/hook.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

std::string RealScript() {
  std::ifstream in(std::string(OPTRACE_TEST_DATA_DIR) + "/hook/compile_ascend_proj.sh", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(HookCommandTest, RoundTripsARealLookingCompileScript) {
  TempTree t;
  t.Write("compile_ascend_proj.sh", RealScript());
  fs::permissions(t.path("compile_ascend_proj.sh"), fs::perms(0754));
  std::string script = t.path("compile_ascend_proj.sh");
  auto install = RunCli({"hook", "install", "--script", script, "--optrace", OPTRACE_BINARY});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  EXPECT_THAT(install.out, HasSubstr("hook installed at lines 23-29"));
  EXPECT_EQ(fs::status(script).permissions(), fs::perms(0754));
  std::string installed = t.Read("compile_ascend_proj.sh");
  EXPECT_THAT(installed, HasSubstr("done\n# TRACE_PREPROCESSOR_HOOK_START"));

  auto again = RunCli({"hook", "install", "--script", script, "--optrace", OPTRACE_BINARY});
  EXPECT_THAT(again.out, HasSubstr("already installed; nothing changed"));
  EXPECT_EQ(t.Read("compile_ascend_proj.sh"), installed);

  auto verify = RunCli({"hook", "verify", "--script", script});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  EXPECT_THAT(verify.out, HasSubstr(std::string("runs ") + OPTRACE_BINARY + " (found)"));

  auto remove = RunCli({"hook", "remove", "--script", script});
  ASSERT_EQ(remove.exit_code, 0) << remove.err;
  EXPECT_EQ(t.Read("compile_ascend_proj.sh"), RealScript());
  EXPECT_EQ(fs::status(script).permissions(), fs::perms(0754));
}

TEST(HookCommandTest, DryRunPrintsDiffAndWritesNothing) {
  TempTree t;
  t.Write("c.sh", RealScript());
  auto r = RunCli({"hook", "install", "--script", t.path("c.sh"), "--dry-run", "--optrace", "/x/optrace"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("+# TRACE_PREPROCESSOR_HOOK_START"));
  EXPECT_EQ(t.Read("c.sh"), RealScript());
}

TEST(HookCommandTest, VerifyWithoutHookExitsOne) {
  TempTree t;
  t.Write("c.sh", RealScript());
  auto r = RunCli({"hook", "verify", "--script", t.path("c.sh")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("no hook"));
}

TEST(HookCommandTest, VerifyWithMissingOptraceExitsOne) {
  TempTree t;
  t.Write("c.sh", RealScript());
  ASSERT_EQ(RunCli({"hook", "install", "--script", t.path("c.sh"), "--optrace", "/nonexistent/optrace"}).exit_code, 0);
  auto r = RunCli({"hook", "verify", "--script", t.path("c.sh")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("/nonexistent/optrace (NOT FOUND"));
}

TEST(HookCommandTest, MissingScriptExitsTwoNamingIt) {
  auto r = RunCli({"hook", "install", "--script", "/nonexistent/compile.sh"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/compile.sh"));
}

TEST(HookCommandTest, UnknownActionIsUsageError) {
  auto r = RunCli({"hook", "frobnicate", "--script", "x.sh"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(HookCommandTest, InstalledBlockProducesThePointMapWhenTheScriptRuns) {
  TempTree t;
  t.Write("build_out/op_kernel/k.cpp", "void k() {\n  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n}\n");
  source::HookSpec spec;
  spec.optrace_path = OPTRACE_BINARY;
  t.Write("run.sh", "#!/bin/bash\nset -eu\nBUILD_DIR=\"" + t.path("build_out") + "\"\n" + source::HookBlock(spec));
  ASSERT_EQ(std::system(("bash " + t.path("run.sh") + " >/dev/null 2>&1").c_str()), 0);
  auto map = LoadPointMap(t.path("build_out/point_map.json"));
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_EQ(map->points.size(), 1u);
}

// Seed 000's legacy base header: TRACE_POINT is a constant until the build rewrites the marks.
constexpr const char* kLegacyBase =
    "#ifndef TRACE_POINT\n#define TRACE_POINT(label, event) 0\n#endif\n";

TEST(HookCommandTest, InstallInALegacyTreeAddsModifyAndSaysWhy) {
  TempTree t;
  t.Write("compile_ascend_proj.sh", RealScript());
  t.Write("op_kernel/op_base.h", kLegacyBase);
  auto r = RunCli({"hook", "install", "--script", t.path("compile_ascend_proj.sh"), "--optrace", OPTRACE_BINARY});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("op_kernel/op_base.h:2 defines `#define TRACE_POINT(label, event) 0`"));
  EXPECT_THAT(t.Read("compile_ascend_proj.sh"), HasSubstr(" --modify"));
  auto verify = RunCli({"hook", "verify", "--script", t.path("compile_ascend_proj.sh")});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
}

TEST(HookCommandTest, CommandThatDoesNotRewriteIsRefusedInALegacyTree) {
  TempTree t;
  t.Write("c.sh", RealScript());
  t.Write("op_kernel/op_base.h", kLegacyBase);
  auto r = RunCli({"hook", "install", "--script", t.path("c.sh"), "--command", "optrace scan op_kernel"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("add --modify to its optrace scan"));
  EXPECT_EQ(t.Read("c.sh"), RealScript());
  auto ok = RunCli({"hook", "install", "--script", t.path("c.sh"), "--command", "optrace scan --modify op_kernel"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(HookCommandTest, VerifySaysAScanOnlyHookDoesNotRewriteALegacyTree) {
  TempTree t;
  t.Write("c.sh", RealScript());
  ASSERT_EQ(RunCli({"hook", "install", "--script", t.path("c.sh"), "--optrace", OPTRACE_BINARY}).exit_code, 0);
  t.Write("op_kernel/op_base.h", kLegacyBase);  // the legacy define arrives after the hook
  auto r = RunCli({"hook", "verify", "--script", t.path("c.sh")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("does not rewrite the marks"));
  EXPECT_THAT(r.out, HasSubstr("--modify"));
  auto fix = RunCli({"hook", "install", "--script", t.path("c.sh"), "--optrace", OPTRACE_BINARY});
  ASSERT_EQ(fix.exit_code, 0) << fix.err;
  EXPECT_EQ(RunCli({"hook", "verify", "--script", t.path("c.sh")}).exit_code, 0);
}

}  // namespace
}  // namespace optrace
