#include <fstream>
#include <iterator>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "source/lint/lint.h"
#include "testing/cli_runner.h"
#include "testing/example_tree.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

const std::string kCorpus = testing::SharedExampleOperator();

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

TEST(LintCommandTest, ReadmeRuleTableNamesEveryRuleWithItsSeverity) {
  std::ifstream in(std::string(OPTRACE_TEST_DATA_DIR) + "/../../README.md");
  std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(readme.empty());
  for (const source::LintRule& rule : source::AllLintRules()) {
    size_t row = readme.find(std::string("| `") + rule.id + "` | " + rule.gate + " |");
    ASSERT_NE(row, std::string::npos) << rule.id << " is missing from the README rule table";
    std::string line = readme.substr(row, readme.find('\n', row) - row);
    bool marked = line.find("(warning)") != std::string::npos || line.find("(note)") != std::string::npos;
    EXPECT_EQ(marked, rule.severity != source::Severity::kError) << line;
  }
}

TEST(LintCommandTest, SourceGuideRuleTableNamesEveryRuleWithItsSeverity) {
  std::ifstream in(std::string(OPTRACE_TEST_DATA_DIR) + "/../../docs/source.md");
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty());
  for (const source::LintRule& rule : source::AllLintRules()) {
    std::string severity = rule.severity == source::Severity::kError     ? "error"
                           : rule.severity == source::Severity::kWarning ? "warning"
                                                                         : "note";
    EXPECT_NE(doc.find(std::string("| `") + rule.id + "` | " + rule.gate + " | " + severity + " | " + rule.group + " |"),
              std::string::npos)
        << rule.id << " is missing from the docs/source.md rule table";
  }
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
  testing::CopyExampleOperator(t);
  auto r = RunCli({"lint", "--op", t.path(), "--gates"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("G1 build hook      not satisfied"));
  EXPECT_THAT(r.out, HasSubstr("compile_ascend_proj.sh:1: error [hook-installed]"));
  EXPECT_THAT(r.out, HasSubstr("G3 full build      not checkable statically"));
  EXPECT_THAT(r.out, HasSubstr("optrace lint --gates: 3 satisfied, 1 not satisfied, 1 not checkable statically"));
}

TEST(LintCommandTest, GatesPassOnceTheHookIsInstalled) {
  TempTree t;
  testing::CopyExampleOperator(t);
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

// --- lint --compile (the emulator stands in for a CANN SDK) -----------------------------

const std::string kEmulatorSdk = std::string(OPTRACE_SOURCE_DIR) + "/emu/include";
// The example operator's own build names optrace's include/ (its CMakeLists.txt): its -I.
const std::string kExampleInclude = std::string(OPTRACE_SOURCE_DIR) + "/include";

TEST(LintCompileTest, WithoutAnSdkItIsANoteAndExitsZero) {
  unsetenv("ASCEND_HOME_PATH");
  unsetenv("ASCEND_TOOLKIT_HOME");
  if (std::filesystem::exists("/usr/local/Ascend/ascend-toolkit/latest")) GTEST_SKIP() << "a CANN toolkit is installed";
  TempTree t;
  testing::CopyExampleOperator(t);
  auto r = RunCli({"lint", "--op", t.path(), "--compile"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("note: compile check not run: no CANN SDK (set ASCEND_HOME_PATH or pass --sdk DIR)"));
  EXPECT_THAT(r.out, HasSubstr("[compile-unchecked]"));
}

TEST(LintCompileTest, TheExampleCompilesInBothHalvesAgainstTheEmulator) {
  TempTree t;
  testing::CopyExampleOperator(t);
  auto r = RunCli({"lint", "--op", t.path(), "--compile", "--sdk", kEmulatorSdk, "-I", kExampleInclude});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("2 compile(s)"));
  EXPECT_THAT(r.out, HasSubstr("0 error(s) in the operator, 0 in lines or headers optrace made"));
  auto j = nlohmann::json::parse(RunCli({"lint", "--op", t.path(), "--compile", "--sdk", kEmulatorSdk, "-I", kExampleInclude, "--format",
                                         "json"}).out);
  ASSERT_EQ(j["compile"]["units"].size(), 2u);
  EXPECT_EQ(j["compile"]["units"][0]["core"], "AIC");
  EXPECT_EQ(j["compile"]["units"][1]["core"], "AIV");
  EXPECT_THAT(j["compile"]["units"][1]["command"].get<std::string>(), HasSubstr("-D__DAV_C220_VEC__"));
}

TEST(LintCompileTest, APlantedErrorOnAnInsertedLineIsCompileInserted) {
  TempTree t;
  testing::CopyExampleOperator(t);
  testing::ReplaceInFile(t, "op_kernel/moe_dispatch_combine.cpp", "  op.Process();\n",
                         "  op.Process();\n  MoeTracing(TRACE_POINT(\"tail\", \"B\"), tailIdx);  // optrace:auto:000000\n");
  auto r = RunCli({"lint", "--op", t.path(), "--compile", "--sdk", kEmulatorSdk, "-I", kExampleInclude});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("op_kernel/moe_dispatch_combine.cpp:14:"));
  EXPECT_THAT(r.out, HasSubstr("tailIdx"));
  EXPECT_THAT(r.out, HasSubstr("(emulator device view AIC"));
  EXPECT_THAT(r.out, HasSubstr("; on a line optrace inserted or rewrote [compile-inserted]"));
}

TEST(LintCompileTest, AnErrorInTheOperatorsOwnCodeIsCompileError) {
  TempTree t;
  testing::CopyExampleOperator(t);
  testing::ReplaceInFile(t, "op_kernel/moe_dispatch_combine.cpp", "  op.Process();\n", "  op.Proces();\n");
  auto r = RunCli({"lint", "--op", t.path(), "--compile", "--sdk", kEmulatorSdk, "-I", kExampleInclude});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("op_kernel/moe_dispatch_combine.cpp:13:"));
  EXPECT_THAT(r.out, HasSubstr("[compile-error]"));
}

TEST(LintCompileTest, ANamedSdkThatIsNotOneExitsTwo) {
  TempTree t;
  testing::CopyExampleOperator(t);
  auto r = RunCli({"lint", "--op", t.path(), "--compile", "--sdk", t.path("op_host")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no kernel_operator.h"));
}

TEST(LintCompileTest, SdkWithoutCompileIsAUsageError) {
  auto r = RunCli({"lint", "--op", kCorpus, "--sdk", kEmulatorSdk});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--compile"));
}

TEST(LintStackBufferTest, AStackBufferAbove2048WordsIsAWarning) {
  TempTree t;
  testing::CopyExampleOperator(t);
  testing::ReplaceInFile(t, "op_kernel/moe_dispatch_combine_base.h", "#define PROF_SIZE_PER_CORE 2048",
                         "#define PROF_SIZE_PER_CORE 4096");
  auto r = RunCli({"lint", "--op", t.path()});
  EXPECT_THAT(r.out, HasSubstr("op_kernel/moe_dispatch_combine_base.h:10:1: warning: PROF_SIZE_PER_CORE 4096 puts a 32 KiB"));
  EXPECT_THAT(r.out, HasSubstr("[stack-buffer]"));
}

TEST(LintStackBufferTest, TheGmBufferModeNeedsNoStack) {
  TempTree t;
  testing::CopyExampleOperator(t);
  testing::ReplaceInFile(t, "op_kernel/moe_dispatch_combine_base.h", "#define PROF_SIZE_PER_CORE 2048",
                         "#define PROF_SIZE_PER_CORE 8192\n#define ENABLE_MOE_PROFILING_GM_BUFFER 1");
  auto r = RunCli({"lint", "--op", t.path()});
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("[stack-buffer]")));
}

// Issue 51 (ops-math pad_v3): 24 kernel variants, each one class with a tile loop in its own
// header. The density step used to merge some of them to reach the label target; whether their
// files then needed marks depended on the labels of the rest of the tree, so renaming a range in
// another file made lint report one of them (coverage-file). A main-flow phase that is its file's
// only range is now kept (25 labels, within 10-30), and the rename is only root-label.
TEST(LintCommandTest, ARangeRenamedElsewhereDoesNotFlipCoverageOnAnotherVariantsFile) {
  TempTree t;
  std::string entry = "#include \"kernel_operator.h\"\n";
  for (int i = 0; i < 24; ++i) entry += "#include \"arch/variant_" + std::to_string(i) + ".h\"\n";
  entry += "extern \"C\" __global__ __aicore__ void pad_many(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {\n"
           "  int key = *reinterpret_cast<__gm__ int*>(tiling);\n";
  for (int i = 0; i < 24; ++i) {
    const std::string n = std::to_string(i);
    entry += "  if (key == " + n + ") {\n    PadVariant" + n + " op;\n    op.Init(x, y);\n    op.Process(tiling);\n  }\n";
    t.Write("op_kernel/arch/variant_" + n + ".h",
            "#pragma once\nclass PadVariant" + n + " {\n public:\n"
            "  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {\n    x_ = x;\n    y_ = y;\n  }\n"
            "  __aicore__ inline void Process(GM_ADDR tiling) {\n"
            "    for (int row = 0; row < rows_; ++row) {\n      AscendC::DataCopy(buf_, x_, row);\n"
            "      AscendC::PipeBarrier<PIPE_ALL>();\n      AscendC::DataCopy(y_, buf_, row);\n    }\n  }\n"
            " private:\n  GM_ADDR x_;\n  GM_ADDR y_;\n  int rows_ = " + std::to_string(i + 3) + ";\n  int buf_ = 0;\n};\n");
  }
  t.Write("op_kernel/pad_many.cpp", entry + "}\n");
  ASSERT_EQ(RunCli({"instrument", "--op", t.path()}).exit_code, 0);
  auto clean = RunCli({"lint", "--op", t.path()});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_THAT(clean.out, HasSubstr("AIV 25 labels"));
  std::string v5 = t.Read("op_kernel/arch/variant_5.h");
  for (const char* ev : {"B", "E"}) {
    const std::string from = std::string("\"variant5\", \"") + ev + "\"";
    ASSERT_NE(v5.find(from), std::string::npos) << v5;
    v5.replace(v5.find(from), from.size(), std::string("\"processing\", \"") + ev + "\"");
  }
  t.Write("op_kernel/arch/variant_5.h", v5);
  auto renamed = RunCli({"lint", "--op", t.path()});
  EXPECT_EQ(renamed.exit_code, 1);
  EXPECT_THAT(renamed.out, HasSubstr("[root-label]"));
  EXPECT_THAT(renamed.out, ::testing::Not(HasSubstr("[coverage-file]")));
  EXPECT_THAT(renamed.out, HasSubstr("1 error(s)"));
}

// The same past the hard maximum of 30 labels (ops-transformer moe_init_routing, 35 AIC labels):
// the batch of merges that brought the plan under 30 took some files' only range, and one label
// fewer elsewhere (a rename) made a smaller batch that left one of them a phase, so lint reported
// its file as an error. Such a file is density-sensitive: a warning (coverage-density).
TEST(LintCommandTest, ARangeRenamedElsewhereDoesNotFlipCoverageAboveTheLimit) {
  TempTree t;
  constexpr int kVariants = 40;
  std::string entry = "#include \"kernel_operator.h\"\n";
  for (int i = 0; i < kVariants; ++i) entry += "#include \"arch/variant_" + std::to_string(i) + ".h\"\n";
  entry += "extern \"C\" __global__ __aicore__ void pad_many(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {\n"
           "  int key = *reinterpret_cast<__gm__ int*>(tiling);\n";
  for (int i = 0; i < kVariants; ++i) {
    const std::string n = std::to_string(i);
    entry += "  if (key == " + n + ") {\n    PadVariant" + n + " op;\n    op.Init(x, y);\n    op.Process(tiling);\n  }\n";
    t.Write("op_kernel/arch/variant_" + n + ".h",
            "#pragma once\nclass PadVariant" + n + " {\n public:\n"
            "  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {\n    x_ = x;\n    y_ = y;\n  }\n"
            "  __aicore__ inline void Process(GM_ADDR tiling) {\n"
            "    for (int row = 0; row < rows_; ++row) {\n      AscendC::DataCopy(buf_, x_, row);\n"
            "      AscendC::PipeBarrier<PIPE_ALL>();\n      AscendC::DataCopy(y_, buf_, row);\n    }\n  }\n"
            " private:\n  GM_ADDR x_;\n  GM_ADDR y_;\n  int rows_ = " + std::to_string(i + 3) + ";\n  int buf_ = 0;\n};\n");
  }
  t.Write("op_kernel/pad_many.cpp", entry + "}\n");
  ASSERT_EQ(RunCli({"instrument", "--op", t.path()}).exit_code, 0);
  auto clean = RunCli({"lint", "--op", t.path()});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_THAT(clean.out, ::testing::Not(HasSubstr("[coverage-file]")));
  EXPECT_THAT(t.Read("op_kernel/arch/variant_12.h"), ::testing::Not(HasSubstr("TRACE_POINT")));  // merged at 41
  // variant 13: one the batch kept; at 40 labels the batch is one smaller and keeps variant 12.
  std::string v13 = t.Read("op_kernel/arch/variant_13.h");
  for (const char* ev : {"B", "E"}) {
    const std::string from = std::string("\"variant13\", \"") + ev + "\"";
    ASSERT_NE(v13.find(from), std::string::npos) << v13;
    v13.replace(v13.find(from), from.size(), std::string("\"processing\", \"") + ev + "\"");
  }
  t.Write("op_kernel/arch/variant_13.h", v13);
  auto renamed = RunCli({"lint", "--op", t.path()});
  EXPECT_EQ(renamed.exit_code, 1);
  EXPECT_THAT(renamed.out, HasSubstr("[root-label]"));
  EXPECT_THAT(renamed.out, ::testing::Not(HasSubstr("[coverage-file]")));
  EXPECT_THAT(renamed.out, HasSubstr("op_kernel/arch/variant_12.h:8:1: warning: op_kernel/arch/variant_12.h holds "
                                     "PadVariant12::Process"));
  EXPECT_THAT(renamed.out, HasSubstr("[coverage-density]"));
  EXPECT_THAT(renamed.out, HasSubstr("1 error(s)"));
}

// w4a8's planted coverage_file: the kernel file emptied of its marks also made lint report the
// helpers it calls (a group loop, a merged loop in other files) as files without marks. They are
// the same gap: the plan's ranges for the emptied caller cover them. Only the caller's file is
// reported; a loop site is "called from" its caller on the plan's tree, not by a name path.
TEST(LintCommandTest, ALoopOfAHelperUnderAnUnmarkedPhaseIsThatPhasesGap) {
  TempTree t;
  t.Write("op_kernel/kern.cpp",
          "#include \"kernel_operator.h\"\n#include \"worker.h\"\n"
          "extern \"C\" __global__ __aicore__ void kern(GM_ADDR x, GM_ADDR profiling_data) {\n"
          "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);\n    OPTRACE_KERNEL_BEGIN();\n"
          "    MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n    Worker w;\n    w.Init(x);\n    w.Process();\n"
          "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n    OPTRACE_KERNEL_END(profiling_data);\n}\n");
  t.Write("op_kernel/worker.h",
          "#include \"experts.h\"\nclass Worker {\npublic:\n"
          "    __aicore__ inline void Init(GM_ADDR x) { xGm.SetGlobalBuffer((__gm__ float*)x); }\n"
          "    __aicore__ inline void Process() {\n        AscendC::SyncAll();\n        Experts e;\n"
          "        e.Run(xGm, 8);\n        AscendC::SyncAll();\n    }\n    AscendC::GlobalTensor<float> xGm;\n};\n");
  t.Write("op_kernel/experts.h",
          "class Experts {\npublic:\n    __aicore__ inline void Run(AscendC::GlobalTensor<float>& g, int n) {\n"
          "        for (int groupIdx = 0; groupIdx < n; ++groupIdx) {\n"
          "            AscendC::DataCopy(buf, g[groupIdx * 64], 64);\n            AscendC::Adds(buf, buf, 1.0f, 64);\n"
          "            AscendC::DataCopy(g[groupIdx * 64], buf, 64);\n        }\n    }\n"
          "    AscendC::LocalTensor<float> buf;\n};\n");
  auto r = RunCli({"lint", "--op", t.path()});
  EXPECT_THAT(r.out, HasSubstr("op_kernel/worker.h:5:1: error: op_kernel/worker.h holds Worker::Process"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("experts.h holds"))) << r.out;
}

}  // namespace
}  // namespace optrace
