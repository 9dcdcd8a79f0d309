// Gate verdicts (lint --gates): G1..G5 from the findings and what the tree holds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/file_io.h"
#include "source/lint/lint_test_util.h"
#include "source/hook/hook.h"
#include "testing/example_tree.h"

namespace optrace::source {
namespace {
namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const fs::path kCorpus = optrace::testing::SharedExampleOperator();

LintReport LintGates(const fs::path& op) {
  LintOptions o;
  o.op_dir = op;
  o.gates = true;
  // The example's own build names optrace's include/ (its CMakeLists.txt): its -I, as a team's.
  o.include_dirs = {fs::path(OPTRACE_SOURCE_DIR) / "include"};
  auto r = RunLint(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : LintReport{};
}

std::vector<std::string> States(const LintReport& r) {
  std::vector<std::string> out;
  for (const GateVerdict& g : r.gates) out.push_back(g.id + " " + GateStateName(g.state));
  return out;
}

TEST(GatesTest, EveryRuleBelongsToOneGate) {
  for (const LintRule& rule : AllLintRules()) EXPECT_THAT((std::vector<std::string>{"G1", "G2", "G3", "G4", "G5"}),
                                                          ::testing::Contains(std::string(rule.gate))) << rule.id;
  EXPECT_EQ(GateOfRule("hook-modify"), "G1");
  EXPECT_EQ(GateOfRule("binding-infer"), "G2");
  EXPECT_EQ(GateOfRule("pairing"), "G3");
  EXPECT_EQ(GateOfRule("sample-output"), "G4");
  EXPECT_EQ(GateOfRule("sample-path-resolve"), "G5");
}

TEST(GatesTest, CorpusWithoutHookFailsG1AndLeavesG3ToTheTeamsBuild) {
  optrace::testing::TempTree t;
  optrace::testing::CopyExampleOperator(t);
  LintReport r = LintGates(t.path());
  EXPECT_THAT(States(r), ElementsAre("G1 not satisfied", "G2 satisfied", "G3 not checkable statically",
                                     "G4 satisfied", "G5 satisfied"));
  EXPECT_THAT(Findings(r), ElementsAre("hook-installed@compile_ascend_proj.sh:1"));
  ASSERT_EQ(r.gates[0].findings.size(), 1u);
  EXPECT_EQ(r.diagnostics[r.gates[0].findings[0]].rule, "hook-installed");
  EXPECT_THAT(r.gates[2].reason, HasSubstr("final gate is the team's full OPP (and whl) build: bash compile_ascend_proj.sh"));
}

TEST(GatesTest, SpawnArgumentsLintCannotFollowLeaveG5NotCheckable) {
  // issue 51: a G5 that cannot see the paths is not "satisfied".
  optrace::testing::TempTree t;
  optrace::testing::CopyExampleOperator(t);
  const std::string sample = t.path("examples/moe_dispatch_combine_sample.py");
  std::string py = *ReadFileToString(sample);
  const std::string call = "args=(args.world_size, profiling_dir)";
  ASSERT_NE(py.find(call), std::string::npos);
  py.replace(py.find(call), call.size(), "args=spawn_arguments(args)");
  ASSERT_TRUE(WriteFileAtomic(sample, py).ok());
  LintReport r = LintGates(t.path());
  ASSERT_EQ(r.gates.size(), 5u);
  EXPECT_EQ(r.gates[4].state, GateState::kNotCheckable);
  EXPECT_THAT(r.gates[4].reason, HasSubstr("lint cannot follow"));
  EXPECT_THAT(Findings(r), ::testing::Contains("sample-spawn-args-unfollowed@examples/moe_dispatch_combine_sample.py:48"));
}

TEST(GatesTest, TheSeedsNamespaceShapeWithAnUnresolvedDirectoryFailsG5) {
  optrace::testing::TempTree t;
  optrace::testing::CopyExampleOperator(t);
  const std::string sample = t.path("examples/moe_dispatch_combine_sample.py");
  std::string py = *ReadFileToString(sample);
  const std::string call = "args=(args.world_size, profiling_dir)";
  py.replace(py.find(call), call.size(), "args=(args,)");
  ASSERT_TRUE(WriteFileAtomic(sample, py).ok());
  LintReport r = LintGates(t.path());
  ASSERT_EQ(r.gates.size(), 5u);
  EXPECT_EQ(r.gates[4].state, GateState::kNotSatisfied);
  // --profiling_dir, --point_map and --chrome_trace ride in args unresolved.
  EXPECT_THAT(Findings(r), ::testing::Contains("sample-path-resolve@examples/moe_dispatch_combine_sample.py:48"));
}

TEST(GatesTest, InstalledHookSatisfiesG1) {
  optrace::testing::TempTree t;
  optrace::testing::CopyExampleOperator(t);
  std::string script = *ReadFileToString(t.path("compile_ascend_proj.sh"));
  ASSERT_TRUE(WriteFileAtomic(t.path("compile_ascend_proj.sh"), *InstallHook(script, "c.sh", HookSpec{})).ok());
  LintReport r = LintGates(t.path());
  EXPECT_THAT(Findings(r), IsEmpty());
  EXPECT_EQ(r.gates[0].state, GateState::kSatisfied);
  EXPECT_THAT(r.gates[0].reason, HasSubstr("compile_ascend_proj.sh regenerates point_map.json on every build"));
}

TEST(GatesTest, MissingHookIsNotAFindingWithoutGates) {
  LintOptions o;
  o.op_dir = kCorpus;
  auto r = RunLint(o);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(Findings(*r), IsEmpty());
  EXPECT_TRUE(r->gates.empty());
}

TEST(GatesTest, LegacyTreeWithAHookThatOnlyScansIsHookModify) {
  HookSpec plain;
  std::string script = "#!/bin/bash\ncp -rf op_kernel out/\n./build.sh\n";
  std::string hooked = *InstallHook(script, "compile.sh", plain);
  const char* kBase = "#ifndef TRACE_POINT\n#define TRACE_POINT(label, event) 0\n#endif\n";
  EXPECT_THAT(LintFiles({{"op_kernel/k_base.h", kBase}, {"compile.sh", hooked}}, true),
              ElementsAre("hook-modify@compile.sh:3"));
  HookSpec modify;
  modify.modify = true;
  EXPECT_THAT(LintFiles({{"op_kernel/k_base.h", kBase}, {"compile.sh", *InstallHook(script, "compile.sh", modify)}}, true),
              IsEmpty());
  EXPECT_THAT(LintFiles({{"op_kernel/k_base.h", "#include \"optrace/trace.h\"\n"}, {"compile.sh", hooked}}, true),
              IsEmpty());
}

TEST(GatesTest, NoBuildScriptLeavesG1NotCheckableNamingTheLegacyDefine) {
  optrace::testing::TempTree t({{"op_kernel/k_base.h", "#define TRACE_POINT(label, event) 0\n"}});
  LintReport r = LintGates(t.path());
  EXPECT_EQ(r.gates[0].state, GateState::kNotCheckable);
  EXPECT_THAT(r.gates[0].reason, HasSubstr("op_kernel/k_base.h:1 `#define TRACE_POINT(label, event) 0`"));
  EXPECT_THAT(r.gates[0].reason, HasSubstr("--modify"));
}

TEST(GatesTest, SamplesThatNeverSaveFailG4) {
  optrace::testing::TempTree t;
  optrace::testing::CopyExampleOperator(t);
  fs::remove(t.path("examples/moe_dispatch_combine_sample.py"));
  t.Write("examples/bench.py", "import torch\nprint(torch.__version__)\n");
  LintReport r = LintGates(t.path());
  EXPECT_EQ(r.gates[3].state, GateState::kNotSatisfied);
  EXPECT_THAT(r.gates[3].reason, HasSubstr("none of the 1 Python file(s) calls save_profiling_data"));
  EXPECT_EQ(r.gates[4].state, GateState::kSatisfied);
}

// Issue 51: the source toolchain's own sample calls the helper through its module
// (`trace_utils.save_profiling_data(profiling, rank, output_dir)`) after a synchronize; G4 called
// that "not satisfied" (only a bare call counted as saving).
TEST(GatesTest, AModuleQualifiedSaveAfterASynchronizeSatisfiesG4) {
  optrace::testing::TempTree t;
  optrace::testing::CopyExampleOperator(t);
  fs::remove(t.path("examples/moe_dispatch_combine_sample.py"));
  t.Write("examples/run.py",
          "import torch\nimport torch_npu\nimport trace_utils\n\n"
          "def main(rank, output_dir):\n"
          "    profiling = torch.zeros(4, dtype=torch.int64).npu()\n"
          "    torch_npu.npu.synchronize()\n"
          "    trace_utils.save_profiling_data(profiling, rank, output_dir)\n");
  LintReport r = LintGates(t.path());
  EXPECT_EQ(r.gates[3].state, GateState::kSatisfied) << r.gates[3].reason;
}

TEST(GatesTest, UninstrumentedKernelFailsG2) {
  optrace::testing::TempTree t({{"op_kernel/k.cpp", "extern \"C\" __global__ void k(GM_ADDR x, GM_ADDR y) {\n}\n"}});
  LintReport r = LintGates(t.path());
  EXPECT_EQ(r.gates[1].state, GateState::kNotSatisfied);
  EXPECT_THAT(r.gates[1].reason, HasSubstr("no OpDef output or kernel parameter carries a profiling buffer"));
}

TEST(GatesTest, AdapterOutsideTheTreeLeavesG2NotCheckable) {
  optrace::testing::TempTree t;
  optrace::testing::CopyExampleOperator(t);
  fs::remove_all(t.path("pybind"));
  LintReport r = LintGates(t.path());
  EXPECT_EQ(r.gates[1].state, GateState::kNotCheckable);
  EXPECT_THAT(r.gates[1].reason, HasSubstr("torch adapter not in the tree"));
}

}  // namespace
}  // namespace optrace::source
