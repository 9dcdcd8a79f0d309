// Issue 11 regressions for what optrace reads besides dumps: bytes that are not UTF-8, JSON of
// the wrong shape, regexes and lines long enough to exhaust std::regex. Each test holds the
// minimised input the fuzzing campaign found.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using nlohmann::json;
using testing::RunCli;
using testing::TempTree;
namespace fs = std::filesystem;

// A label with a Latin-1 byte (0xe9, "é" in ISO-8859-1): not UTF-8.
const std::string kLatin1Kernel =
    "extern \"C\" __global__ void moe() {\n"
    "  MoeTracing(TRACE_POINT(\"caf\xe9\", \"B\"));\n"
    "  MoeTracing(TRACE_POINT(\"caf\xe9\", \"E\"));\n"
    "}\n";

bool IsJson(const std::string& text) { return json::accept(text); }

TEST(RobustInputs, Latin1LabelGivesValidJsonFromScanAndLint) {
  TempTree t({{"op/moe.cpp", kLatin1Kernel}});
  auto scan = RunCli({"scan", t.path("op"), "-o", t.path("map.json"), "--format", "json"});
  EXPECT_NE(scan.exit_code, -1);
  EXPECT_TRUE(IsJson(scan.out)) << scan.out;
  if (fs::exists(t.path("map.json"))) {
    std::ifstream in(t.path("map.json"));
    EXPECT_TRUE(json::accept(in));
  }
  for (const char* format : {"json", "sarif"}) {
    auto lint = RunCli({"lint", t.path("op"), "--format", format});
    EXPECT_TRUE(IsJson(lint.out)) << format << ": " << lint.out;
  }
}

TEST(RobustInputs, Latin1DirectoryNameGivesValidJsonFromPlanAndInspect) {
  TempTree t({{"op\xe9/op_kernel/k.cpp", "extern \"C\" __global__ void k(GM_ADDR x)\n{\n    Work(x);\n}\n"},
              {"dumps\xe9/rank0.bin", std::string(64, '\0')}});
  auto plan = RunCli({"plan", "--op", t.path("op\xe9"), "--format", "json"});
  EXPECT_TRUE(IsJson(plan.out)) << plan.err;
  auto inspect = RunCli({"inspect", t.path("dumps\xe9"), "--format", "json"});
  EXPECT_EQ(inspect.exit_code, 1);
  EXPECT_TRUE(IsJson(inspect.out)) << inspect.out;
}

TEST(RobustInputs, PointMapFieldsOfTheWrongTypeAreBadInput) {
  for (const char* doc : {R"({"format": 1, "points": {}})", R"({"id_scheme": [], "points": {}})",
                          R"({"source_root": {}, "points": {}})",
                          R"({"points": {"5": {"label": "x", "event_type": 66}}})"}) {
    TempTree t({{"map.json", doc}, {"dumps/rank0.bin", std::string(64, '\0')}});
    auto r = RunCli({"collect", t.path("dumps"), "--map", t.path("map.json"), "-o", t.path("t.json")});
    EXPECT_EQ(r.exit_code, 2) << doc;
    EXPECT_THAT(r.err, HasSubstr("must be")) << doc << "\n" << r.err;
  }
}

TEST(RobustInputs, PlanSitesOfTheWrongShapeAreBadInput) {
  TempTree t({{"op/op_kernel/k.cpp", "extern \"C\" __global__ void k(GM_ADDR x)\n{\n    Work(x);\n}\n"}});
  for (const char* sites : {R"(["not an object"])", R"([{"id": "7", "kind": "function", "decision": "skip",
                                                          "file": "op_kernel/k.cpp", "line": 2}])"}) {
    std::string plan = std::string(R"({"schema_version": 2, "kernels": [], "sites": )") + sites + "}";
    std::ofstream(t.path("plan.json")) << plan;
    auto r = RunCli({"instrument", "--op", t.path("op"), "--plan", t.path("plan.json")});
    EXPECT_EQ(r.exit_code, 2) << sites << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr("site 1")) << r.err;
  }
}

TEST(RobustInputs, DixonTableWithBadKeysIsBadInput) {
  for (const char* doc : {R"({"q95": {"three": 0.94}})", R"({"q95": {"99999999999999999999": 0.9}})",
                          R"({"q95": {"3": "x"}})"}) {
    TempTree t({{"rules/dixon_q95.json", doc}});
    auto r = RunCli({"analyze", "--format", "json", t.path("nowhere"), "--rules", t.path("rules"), "-o", t.path("out")});
    EXPECT_EQ(r.exit_code, 2) << doc;
    EXPECT_THAT(r.err, HasSubstr("q95")) << doc << "\n" << r.err;
  }
}

TEST(RobustInputs, HugeRegexInARulesFileIsBadInputNotACrash) {
  std::string pattern(100000, 'a');
  TempTree t({{"rules/op_taxonomy.json", R"({"comm_aiv_fused_name_regex": [")" + pattern + R"("]})"}});
  auto r = RunCli({"analyze", "--format", "json", t.path("nowhere"), "--rules", t.path("rules"), "-o", t.path("out")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("shorten the pattern"));
}

TEST(RobustInputs, HookBlockWithAHugeLineDoesNotCrash) {
  TempTree t({{"build_ops.sh", "#!/bin/bash\nset -e\ncp -r src dst\nbash build.sh\n"}});
  auto install = RunCli({"hook", "install", "--script", t.path("build_ops.sh")});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  // A 30,000-character line inside the installed block.
  std::ifstream in(t.path("build_ops.sh"));
  std::string text((std::istreambuf_iterator<char>(in)), {}), out, line;
  std::istringstream lines(text);
  while (std::getline(lines, line)) {
    out += line + "\n";
    if (line.rfind("# TRACE_PREPROCESSOR_HOOK_START", 0) == 0) out += "echo " + std::string(30000, 'x') + "\n";
  }
  ASSERT_NE(out.find(std::string(30000, 'x')), std::string::npos);
  std::ofstream(t.path("build_ops.sh")) << out;
  auto verify = RunCli({"hook", "verify", "--script", t.path("build_ops.sh")});
  EXPECT_NE(verify.exit_code, -1);
  auto remove = RunCli({"hook", "remove", "--script", t.path("build_ops.sh")});
  EXPECT_EQ(remove.exit_code, 0) << remove.err;
}

TEST(RobustInputs, HookQuotesTheOptracePathForTheShell) {
  // A path holding $(...) was pasted into a double-quoted default and run by the build.
  TempTree t({{"build_ops.sh", "#!/bin/bash\nset -e\ncp -r src dst\nbash build.sh\n"}});
  const std::string bin = "/opt/a$(touch pwned)'b/optrace";
  auto install = RunCli({"hook", "install", "--script", t.path("build_ops.sh"), "--optrace", bin});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  std::ifstream in(t.path("build_ops.sh"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_THAT(text, HasSubstr("OPTRACE_DEFAULT='/opt/a$(touch pwned)'\\''b/optrace'\n"));
  // The shell reads it back literally.
  std::string line = text.substr(text.find("OPTRACE_DEFAULT="), text.find('\n', text.find("OPTRACE_DEFAULT=")) -
                                                                     text.find("OPTRACE_DEFAULT="));
  std::string cmd = "cd " + t.path() + " && bash -c \"" + "$(cat <<'EOS'\n" + line + "\nprintf %s \"$OPTRACE_DEFAULT\"\nEOS\n)\" > out.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream out(t.path("out.txt"));
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(out)), {}), bin);
  EXPECT_FALSE(fs::exists(t.path("pwned")));
}

TEST(RobustInputs, PipeBlockIdPastTheCoreRangeIsBadInputNotCoreZero) {
  // A block id >= 2^31 wrapped into AIV 0 of the first role.
  std::ifstream in(std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/opprof/minimal/PipeUtilization.csv");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  size_t row = text.find("\n0,vector0,");
  ASSERT_NE(row, std::string::npos);
  text.replace(row + 1, 1, "2147483648");
  TempTree t({{"run/PipeUtilization.csv", text}});
  auto r = RunCli({"pipe", t.path("run")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("block_id '2147483648' is not an integer from 0 to 65535"));
}

TEST(RobustInputs, AnIncludeThatResolvesNowhereIsSaidNotSkippedSilently) {
  TempTree t({{"op/op_kernel/k.cpp", "#include \"kernel_operator.h\"\n#include \"moe_base.h\"\n"
                                     "extern \"C\" __global__ __aicore__ void k(GM_ADDR x)\n{\n"
                                     "    MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                     "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n"}});
  auto scan = RunCli({"scan", "--entry", t.path("op/op_kernel/k.cpp"), "-o", t.path("map.json")});
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_THAT(scan.err, HasSubstr("2 #include \"...\" not found"));
  EXPECT_THAT(scan.err, HasSubstr("moe_base.h"));
  EXPECT_THAT(scan.err, HasSubstr("k.cpp:1"));
  auto lint = RunCli({"lint", "--op", t.path("op")});
  EXPECT_THAT(lint.out, HasSubstr("not found in the tree or the -I directories"));
}

TEST(RobustInputs, AnIncludeFoundByNameInTheTreeIsSaidInTextAndJson) {
  TempTree t({{"op/src/k.asc", "#include \"kernel_operator.h\"\n#include \"moe_base.h\"\n"
                               "extern \"C\" __global__ __aicore__ void k(GM_ADDR x)\n{\n"
                               "    MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                               "    MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n"},
              {"op/include/moe_base.h", "inline void Helper() {}\n"}});
  auto lint = RunCli({"lint", "--op", t.path("op")});
  EXPECT_THAT(lint.out, HasSubstr("note: 1 #include \"...\" found by file name in the tree"));
  EXPECT_THAT(lint.out, HasSubstr("moe_base.h -> include/moe_base.h"));
  EXPECT_THAT(lint.out, HasSubstr("1 #include \"...\" not found in the tree"));  // kernel_operator.h only
  auto j = RunCli({"lint", "--op", t.path("op"), "--format", "json"});
  ASSERT_TRUE(IsJson(j.out)) << j.out;
  EXPECT_EQ(json::parse(j.out)["includes_found_by_name"][0], "src/k.asc:2: moe_base.h -> include/moe_base.h");
}

TEST(RobustInputs, SarifUrisArePercentEncoded) {
  TempTree t({{"op dir#1/op_kernel/k.cpp", kLatin1Kernel}});
  auto lint = RunCli({"lint", "--op", t.path("op dir#1"), "--format", "sarif"});
  ASSERT_TRUE(IsJson(lint.out)) << lint.out;
  json j = json::parse(lint.out);
  std::string root = j["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"];
  EXPECT_THAT(root, HasSubstr("op%20dir%231/"));
  EXPECT_EQ(root.find(' '), std::string::npos);
}

TEST(RobustInputs, ScanModifyKeepsTheColumnOfASecondMarkOnALine) {
  const std::string two = "void f() {\n  MoeTracing(TRACE_POINT(\"a\", \"B\")); MoeTracing(TRACE_POINT(\"a\", \"E\"));\n}\n";
  TempTree t({{"op/k.cpp", two}});
  ASSERT_EQ(RunCli({"scan", t.path("op"), "-o", t.path("before.json")}).exit_code, 0);
  ASSERT_EQ(RunCli({"scan", t.path("op"), "--modify", "-o", t.path("modify.json")}).exit_code, 0);
  // The rewritten copy scanned again (what a second build's hook does) gives the same places.
  ASSERT_EQ(RunCli({"scan", t.path("op"), "-o", t.path("after.json")}).exit_code, 0);
  std::ifstream b(t.path("before.json")), a(t.path("after.json"));
  json before = json::parse(b), after = json::parse(a);
  ASSERT_EQ(before["points"].size(), 2u);
  for (const auto& [id, p] : before["points"].items()) EXPECT_EQ(after["points"][id]["column"], p["column"]) << id;
}

}  // namespace
}  // namespace optrace
