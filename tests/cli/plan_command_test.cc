// optrace plan / optrace instrument on the command line: formats, dry run, bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "source/plan/plan_fixture.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace::cli {
namespace {

using ::testing::HasSubstr;
using testing::RunCli;

class PlanCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [rel, text] : testing::PlanFixtureFiles()) tree_.Write(rel, text);
  }
  testing::TempTree tree_;
};

TEST_F(PlanCommandTest, TextPlanShowsTheTreeAndTheDensity) {
  auto r = RunCli({"plan", "--op", tree_.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kern  op_kernel/kern.cpp:3  [AIC+AIV]  phase \"processing\""));
  EXPECT_THAT(r.out, HasSubstr("Stage::CubeWork  op_kernel/stage/stage.h:25  [AIC]  phase \"cube-work aic\""));
  EXPECT_THAT(r.out, HasSubstr("kern: labels AIC 10, AIV 7; depth 5"));
}

TEST_F(PlanCommandTest, JsonPlanHasSchemaVersionSitesTreeAndDensity) {
  auto r = RunCli({"plan", "--op", tree_.path(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["format"], "optrace-plan");
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["entry"], "op_kernel/kern.cpp");
  EXPECT_EQ(j["kernels"][0]["function"], "kern");
  EXPECT_FALSE(j["sites"].empty());
  EXPECT_EQ(j["kernels"][0]["density"]["aic"]["count"], 10);
  EXPECT_TRUE(j["kernels"][0]["tree"].contains("children"));
}

TEST_F(PlanCommandTest, EditedJsonPlanIsWhatInstrumentApplies) {
  auto r = RunCli({"plan", "--op", tree_.path(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  for (auto& s : j["sites"]) {
    if (s["name"] == "Stage::CubeWork") s["label"] = "stage cube aic";
    if (s["name"] == "Tail::Execute") s["decision"] = "skip";
  }
  tree_.Write("plan.json", j.dump());
  auto ins = RunCli({"instrument", "--op", tree_.path(), "--plan", tree_.path("plan.json")});
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  std::string stage = tree_.Read("op_kernel/stage/stage.h");
  EXPECT_THAT(stage, HasSubstr("TRACE_POINT(\"stage cube aic\", \"B\")"));
  EXPECT_THAT(stage, ::testing::Not(HasSubstr("TRACE_POINT(\"tail\", \"B\")")));
}

TEST_F(PlanCommandTest, DryRunPrintsADiffAndWritesNothing) {
  std::string before = tree_.Read("op_kernel/stage/stage.h");
  auto r = RunCli({"instrument", "--op", tree_.path(), "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("--- a/op_kernel/stage/stage.h"));
  EXPECT_THAT(r.out, HasSubstr("+    MoeTracing(TRACE_POINT(\"cube-work aic\", \"B\"));  // optrace:auto"));
  EXPECT_THAT(r.err, HasSubstr("would instrument"));
  EXPECT_EQ(tree_.Read("op_kernel/stage/stage.h"), before);
}

TEST_F(PlanCommandTest, InstrumentTwiceThenRevertOnTheCommandLine) {
  std::string before = tree_.Read("op_kernel/stage/stage.h");
  ASSERT_EQ(RunCli({"instrument", "--op", tree_.path()}).exit_code, 0);
  std::string once = tree_.Read("op_kernel/stage/stage.h");
  auto again = RunCli({"instrument", "--op", tree_.path()});
  EXPECT_THAT(again.out, HasSubstr("already up to date"));
  EXPECT_EQ(tree_.Read("op_kernel/stage/stage.h"), once);
  auto rev = RunCli({"instrument", "--op", tree_.path(), "--revert"});
  EXPECT_EQ(rev.exit_code, 0) << rev.err;
  EXPECT_THAT(rev.out, HasSubstr("removed"));
  EXPECT_EQ(tree_.Read("op_kernel/stage/stage.h"), before);
}

// A folder of several programs (cann-samples' stories: six `.asc` files, each defining the same
// kernel and classes): each kernel's plan holds its own program's functions, never another's.
TEST(PlanCommandProgramsTest, EachProgramsKernelPlansOnlyItsOwnFunctions) {
  testing::TempTree tree;
  auto program = [](const std::string& extra) {
    return "#include \"kernel_operator.h\"\nusing namespace AscendC;\n"
           "class Router {\n public:\n"
           "  __aicore__ inline void Init(GM_ADDR x) { xGm.SetGlobalBuffer((__gm__ float*)x); }\n"
           "  __aicore__ inline void Process() {\n    for (int i = 0; i < 8; ++i) { CopyIn(i); " + extra + "CopyOut(i); }\n  }\n"
           "  __aicore__ inline void CopyIn(int i) { DataCopy(xLocal, xGm[i], 64); }\n"
           "  __aicore__ inline void CopyOut(int i) { DataCopy(xGm[i], xLocal, 64); }\n"
           "  __aicore__ inline void Compute(int i) { Adds(xLocal, xLocal, 1.0f, 64); }\n"
           " private:\n  GlobalTensor<float> xGm;\n  LocalTensor<float> xLocal;\n};\n"
           "__global__ __aicore__ __vector__ void Route(GM_ADDR x) {\n  Router r;\n  r.Init(x);\n  r.Process();\n}\n";
  };
  tree.Write("src/0_native.asc", program(""));
  tree.Write("src/1_compute.asc", program("Compute(i); "));
  auto r = RunCli({"plan", "--op", tree.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t second = r.out.find("\nkernel Route (src/1_compute.asc");
  ASSERT_NE(second, std::string::npos) << r.out;
  std::string first_plan = r.out.substr(0, second), second_plan = r.out.substr(second);
  EXPECT_THAT(first_plan, HasSubstr("src/0_native.asc"));
  EXPECT_THAT(first_plan, ::testing::Not(HasSubstr("src/1_compute.asc"))) << first_plan;
  EXPECT_THAT(second_plan, ::testing::Not(HasSubstr("src/0_native.asc"))) << second_plan;
}

// cann-samples' layout: the kernel file includes "router.h" by name and the build's
// target_include_directories names include/kernel. Without -I the plan still reads the header it
// holds (once, unambiguously), says so, and plans the kernel's code rather than only its root.
TEST(PlanCommandIncludesTest, AHeaderTheBuildFindsByItsIncludeFoldersIsPlannedWithoutDashI) {
  testing::TempTree tree;
  tree.Write("include/kernel/router.h",
             "class Router {\n public:\n"
             "  __aicore__ inline void Process() {\n    for (int i = 0; i < 8; ++i) { CopyIn(i); CopyOut(i); }\n  }\n"
             "  __aicore__ inline void CopyIn(int i) { DataCopy(xLocal, xGm[i], 64); }\n"
             "  __aicore__ inline void CopyOut(int i) { DataCopy(xGm[i], xLocal, 64); }\n"
             " private:\n  GlobalTensor<float> xGm;\n  LocalTensor<float> xLocal;\n};\n");
  tree.Write("src/0_naive.asc",
             "#include \"kernel_operator.h\"\n#include \"router.h\"\n"
             "__global__ __aicore__ __vector__ void Route(GM_ADDR x) {\n  Router r;\n  r.Process();\n}\n");
  auto r = RunCli({"plan", "--op", tree.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Router::Process  include/kernel/router.h:3")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("note: 1 #include \"...\" found by file name in the tree, not beside the file or in a "
                               "-I directory (router.h -> include/kernel/router.h)"));
  // With the build's own -I the header is on the search path: the same plan, no note.
  auto with_i = RunCli({"plan", "--op", tree.path(), "-I", tree.path("include/kernel")});
  ASSERT_EQ(with_i.exit_code, 0) << with_i.err;
  EXPECT_THAT(with_i.out, HasSubstr("Router::Process  include/kernel/router.h:3"));
  EXPECT_THAT(with_i.out, ::testing::Not(HasSubstr("found by file name")));
}

TEST(PlanCommandErrorsTest, MissingOperatorDirectoryExits2AndNamesIt) {
  auto r = RunCli({"plan", "--op", "/nonexistent/op"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/op: not a directory"));
}

TEST(PlanCommandErrorsTest, OperatorWithoutKernelEntryExits2) {
  testing::TempTree tree({{"op_kernel/a.h", "inline void F() {}\n"}});
  auto r = RunCli({"plan", "--op", tree.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no kernel entry found"));
}

TEST(PlanCommandErrorsTest, MissingOpFlagIsAUsageError) {
  auto r = RunCli({"plan"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--op"));
}

TEST_F(PlanCommandTest, MalformedPlanExits2AndNamesTheFile) {
  tree_.Write("bad.json", "{not json");
  auto r = RunCli({"instrument", "--op", tree_.path(), "--plan", tree_.path("bad.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("bad.json: not valid JSON"));
}

TEST_F(PlanCommandTest, PlanSiteWithoutLabelExits2AndNamesTheSite) {
  tree_.Write("p.json", R"({"schema_version": 1, "sites": [{"id": 7, "kind": "function", "file": "op_kernel/kern.cpp",
                             "line": 3, "decision": "phase"}]})");
  auto r = RunCli({"instrument", "--op", tree_.path(), "--plan", tree_.path("p.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("p.json: site 7 (op_kernel/kern.cpp:3): decision \"phase\" needs a \"label\""));
}

TEST_F(PlanCommandTest, EditedLabelBreakingLabelStyleExits2AndNamesPlanAndLabel) {
  auto r = RunCli({"plan", "--op", tree_.path(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  for (auto& s : j["sites"])
    if (s["name"] == "Stage::CubeWork") s["label"] = "Stage_Cube \"aic\"";
  tree_.Write("plan.json", j.dump());
  std::string before = tree_.Read("op_kernel/stage/stage.h");
  auto ins = RunCli({"instrument", "--op", tree_.path(), "--plan", tree_.path("plan.json")});
  EXPECT_EQ(ins.exit_code, 2);
  EXPECT_THAT(ins.err, HasSubstr("plan.json: site "));
  EXPECT_THAT(ins.err, HasSubstr("label \"Stage_Cube \"aic\"\" breaks the label-style rule"));
  EXPECT_EQ(tree_.Read("op_kernel/stage/stage.h"), before);
}

TEST_F(PlanCommandTest, EntryRelativeToOpIsAcceptedByPlanAndInstrument) {
  auto r = RunCli({"plan", "--op", tree_.path(), "--entry", "op_kernel/kern.cpp"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kern  op_kernel/kern.cpp:3"));
  auto ins = RunCli({"instrument", "--op", tree_.path(), "--entry", "op_kernel/kern.cpp", "--dry-run"});
  EXPECT_EQ(ins.exit_code, 0) << ins.err;
  EXPECT_THAT(ins.err, HasSubstr("would instrument"));
}

TEST_F(PlanCommandTest, EntryFoundNeitherInCwdNorUnderOpExits2) {
  auto r = RunCli({"plan", "--op", tree_.path(), "--entry", "op_kernel/none.cpp"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("op_kernel/none.cpp: no such entry file"));
}

TEST_F(PlanCommandTest, PlanWithoutSchemaVersionExits2) {
  tree_.Write("p.json", R"({"sites": []})");
  auto r = RunCli({"instrument", "--op", tree_.path(), "--plan", tree_.path("p.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no \"schema_version\""));
}

TEST_F(PlanCommandTest, MissingPlanFileExits2) {
  auto r = RunCli({"instrument", "--op", tree_.path(), "--plan", tree_.path("none.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("none.json"));
}

TEST_F(PlanCommandTest, RevertWithAPlanIsAUsageError) {
  auto r = RunCli({"instrument", "--op", tree_.path(), "--revert", "--plan", "x.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--revert takes no --plan"));
}

}  // namespace
}  // namespace optrace::cli
