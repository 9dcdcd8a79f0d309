#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "source/lint.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

const std::string kCorpus = std::string(OPTRACE_TEST_DATA_DIR) + "/lint/moe_dispatch_combine";

constexpr const char* kBad =
    "#include \"optrace/trace.h\"\n"
    "__global__ void k(GM_ADDR prof) { OPTRACE_KERNEL_BEGIN();\n"
    "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
    "  MoeTracing(TRACE_POINT(\"Bad_Label\", \"B\"));\n"
    "  MoeTracing(TRACE_POINT(\"Bad_Label\", \"E\"));\n"
    "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
    "  OPTRACE_KERNEL_END(prof);\n"
    "}\n";

TEST(LintCommandTest, CleanOperatorExitsZeroWithSummary) {
  auto r = RunCli({"lint", "--op", kCorpus});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("optrace lint: 0 error(s), 0 warning(s) in 13 file(s), 86 trace point(s); entry "
                               "op_kernel/moe_dispatch_combine.cpp; AIC 17 labels, AIV 27 labels"));
}

TEST(LintCommandTest, ErrorsPrintFileLineColumnRuleAndExitOne) {
  TempTree t({{"k.cpp", kBad}});
  auto r = RunCli({"lint", t.path()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("k.cpp:4:14: error: label \"Bad_Label\" must be lowercase words"));
  EXPECT_THAT(r.out, HasSubstr("[label-style]\n"));
  EXPECT_THAT(r.out, HasSubstr("optrace lint: 2 error(s), 1 warning(s)"));
}

TEST(LintCommandTest, WarningsExitZeroUnlessStrict) {
  TempTree t;
  t.Write("op_kernel/op.cpp",
          "#include \"optrace/trace.h\"\n"
          "extern \"C\" __global__ void op(GM_ADDR prof) {\n  OPTRACE_KERNEL_BEGIN();\n"
          "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
          "  if ASCEND_IS_AIV {\n    MoeTracing(TRACE_POINT(\"v\", \"B\"));\n    MoeTracing(TRACE_POINT(\"v\", \"E\"));\n  }\n"
          "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n  OPTRACE_KERNEL_END(prof);\n}\n");
  auto r = RunCli({"lint", t.path()});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("warning: 2 distinct label(s) reachable on AIV paths; expected 10 to 30"));
  EXPECT_EQ(RunCli({"lint", "--strict", t.path()}).exit_code, 1);
}

TEST(LintCommandTest, JsonHasSchemaSummaryDensityAndDiagnostics) {
  TempTree t({{"k.cpp", kBad}});
  auto r = RunCli({"lint", t.path(), "--format", "json"});
  EXPECT_EQ(r.exit_code, 1);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["summary"]["errors"], 2);
  EXPECT_EQ(j["summary"]["warnings"], 1);
  ASSERT_EQ(j["diagnostics"].size(), 3u);
  EXPECT_EQ(j["diagnostics"][0]["rule"], "density-aiv");
  EXPECT_EQ(j["diagnostics"][1]["rule"], "label-style");
  EXPECT_EQ(j["diagnostics"][1]["line"], 4);
  EXPECT_EQ(j["diagnostics"][1]["column"], 14);
  EXPECT_EQ(j["density"]["split"], false);
}

TEST(LintCommandTest, SarifIsVersion210WithRulesAndLocations) {
  TempTree t({{"k.cpp", kBad}});
  auto r = RunCli({"lint", t.path(), "--format", "sarif"});
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], "2.1.0");
  const auto& run = j["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "optrace-lint");
  EXPECT_EQ(run["tool"]["driver"]["rules"].size(), source::AllLintRules().size());
  EXPECT_TRUE(run["tool"]["driver"]["rules"][0]["properties"].contains("gate"));
  const auto& res = run["results"][1];
  EXPECT_EQ(res["ruleId"], "label-style");
  EXPECT_EQ(res["level"], "error");
  EXPECT_EQ(run["tool"]["driver"]["rules"][res["ruleIndex"].get<size_t>()]["id"], "label-style");
  EXPECT_EQ(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "k.cpp");
  EXPECT_EQ(res["locations"][0]["physicalLocation"]["region"]["startLine"], 4);
}

TEST(LintCommandTest, ListRulesPrintsEveryRuleWithAFix) {
  auto r = RunCli({"lint", "--list-rules"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("binding-required-null"));
  EXPECT_THAT(r.out, HasSubstr("fix: "));
}

TEST(LintCommandTest, MissingPathExitsTwoNamingIt) {
  auto r = RunCli({"lint", "/nonexistent/optrace/op"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/optrace/op: no such file or directory"));
}

TEST(LintCommandTest, MissingOperatorDirectoryExitsTwo) {
  auto r = RunCli({"lint", "--op", "/nonexistent/optrace/op"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("operator directory not found"));
}

TEST(LintCommandTest, NothingToLintIsUsageError) {
  auto r = RunCli({"lint"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("give files or directories to lint"));
}

TEST(LintCommandTest, MissingEntryFileExitsTwo) {
  TempTree t({{"k.cpp", kBad}});
  auto r = RunCli({"lint", t.path(), "--entry", t.path("nope.cpp")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("nope.cpp"));
}

TEST(LintCommandTest, GatesWithoutAHookExitOneNamingG1) {
  TempTree t;
  std::filesystem::copy(kCorpus, t.path(), std::filesystem::copy_options::recursive);
  auto r = RunCli({"lint", "--op", t.path(), "--gates"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("G1 build hook      not satisfied"));
  EXPECT_THAT(r.out, HasSubstr("compile_ascend_proj.sh:1: error [hook-installed]"));
  EXPECT_THAT(r.out, HasSubstr("G3 full build      not checkable statically"));
  EXPECT_THAT(r.out, HasSubstr("optrace lint --gates: 3 satisfied, 1 not satisfied, 1 not checkable statically"));
}

TEST(LintCommandTest, GatesPassOnceTheHookIsInstalled) {
  TempTree t;
  std::filesystem::copy(kCorpus, t.path(), std::filesystem::copy_options::recursive);
  ASSERT_EQ(RunCli({"hook", "install", "--script", t.path("compile_ascend_proj.sh"), "--optrace", OPTRACE_BINARY})
                .exit_code,
            0);
  auto r = RunCli({"lint", "--op", t.path(), "--gates"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("4 satisfied, 0 not satisfied, 1 not checkable statically"));
  auto j = nlohmann::json::parse(RunCli({"lint", "--op", t.path(), "--gates", "--format", "json"}).out);
  ASSERT_EQ(j["gates"].size(), 5u);
  EXPECT_EQ(j["gates"][0]["id"], "G1");
  EXPECT_EQ(j["gates"][0]["state"], "satisfied");
  EXPECT_EQ(j["gates"][2]["state"], "not checkable statically");
}

TEST(LintCommandTest, JsonAndSarifCarryTheGateOfEveryFinding) {
  TempTree t({{"k.cpp", kBad}});
  auto j = nlohmann::json::parse(RunCli({"lint", t.path(), "--format", "json"}).out);
  for (const auto& d : j["diagnostics"]) EXPECT_EQ(d["gate"], source::GateOfRule(d["rule"].get<std::string>()));
  auto s = nlohmann::json::parse(RunCli({"lint", t.path(), "--format", "sarif"}).out);
  for (const auto& res : s["runs"][0]["results"])
    EXPECT_EQ(res["properties"]["gate"], source::GateOfRule(res["ruleId"].get<std::string>()));
}

TEST(LintCommandTest, BuildScriptWithoutGatesIsAUsageError) {
  auto r = RunCli({"lint", "--op", kCorpus, "--build-script", kCorpus + "/compile_ascend_proj.sh"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--gates"));
}

}  // namespace
}  // namespace optrace
