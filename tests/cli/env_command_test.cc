#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

const std::string kData = std::string(OPTRACE_TEST_DATA_DIR) + "/evidence";

// Points PATH at `dir` for one test (the command finds npu-smi, msprof, git through PATH).
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) {
    if (const char* p = std::getenv("PATH")) old_ = p;
    setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() {
    if (old_) {
      setenv("PATH", old_->c_str(), 1);
    } else {
      unsetenv("PATH");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(EnvCommandTest, WritesJsonAndMarkdownWithAbsentToolsNotFound) {
  TempTree tree({{"bin/.keep", ""}, {"run.yaml", "nodes: 2\ncards_per_node: 8\n"}});
  ScopedPath path(tree.path("bin"));
  auto r = RunCli({"env", "--fields", tree.path("run.yaml"), "-o", tree.path("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# Environment (optrace env)"));
  EXPECT_THAT(r.out, HasSubstr("| npu-smi | not found | npu-smi not on PATH |"));
  EXPECT_THAT(r.out, HasSubstr("| msprof entry | not found | msprof not on PATH |"));
  EXPECT_THAT(r.out, HasSubstr("| nodes | 2 |"));
  EXPECT_THAT(r.err, HasSubstr("environment.json"));
  EXPECT_EQ(tree.Read("out/environment.md"), r.out);
  auto doc = nlohmann::json::parse(tree.Read("out/environment.json"));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["generator"], "optrace env");
  bool saw_npu = false;
  for (const auto& item : doc["items"]) {
    if (item["key"] == "npu_smi.path") {
      saw_npu = true;
      EXPECT_TRUE(item["value"].is_null());
      EXPECT_EQ(item["from"], "npu-smi not on PATH");
    }
  }
  EXPECT_TRUE(saw_npu);
  EXPECT_EQ(doc["fields"]["values"]["cards_per_node"], "8");
}

TEST(EnvCommandTest, FormatJsonPrintsTheEnvironmentDocument) {
  TempTree tree({{"bin/.keep", ""}, {"run.yaml", "nodes: 2\n"}});
  ScopedPath path(tree.path("bin"));
  auto r = RunCli({"env", "--fields", tree.path("run.yaml"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["generator"], "optrace env");
  EXPECT_EQ(doc["fields"]["values"]["nodes"], "2");
  EXPECT_FALSE(doc["items"].empty());
}

TEST(EnvCommandTest, MissingFieldsFileExitsTwoNamingIt) {
  TempTree tree;
  auto r = RunCli({"env", "--fields", tree.path("no_such_fields.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no_such_fields.yaml"));
}

TEST(EnvCommandTest, MalformedFieldsFileExitsTwoWithLine) {
  TempTree tree({{"bad.yaml", "nodes: 2\nthis is not a field\n"}});
  auto r = RunCli({"env", "--fields", tree.path("bad.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("bad.yaml:2: expected 'key: value'"));
  EXPECT_TRUE(r.out.empty());
}

TEST(EnvCommandTest, BadCompileCommandsExitsTwoNamingIt) {
  TempTree tree({{"cc.json", "{not json"}});
  auto r = RunCli({"env", "--compile-commands", tree.path("cc.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cc.json: not a compile_commands.json"));
  auto missing = RunCli({"env", "--compile-commands", tree.path("gone.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("gone.json"));
}

TEST(EnvCommandTest, CompileCommandsAndBuildLogExcludeEachOther) {
  auto r = RunCli({"env", "--compile-commands", "a.json", "--build-log", "b.log"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(EnvCommandTest, ReportEnvFillsSectionOne) {
  TempTree tree({{"run.yaml", "nodes: 2\ncards_per_node: 8\ntransport: HCCS\naiv_count: 48\n"}});
  tree.Write("bin/npu-smi",
             "#!/bin/sh\necho '| npu-smi 24.1.rc2   Version: 24.1.rc2 |'\n"
             "echo '+====+====+'\necho '| 0     910B3    | OK |'\necho '| 0    | 0000:C1:00.0 |'\n");
  chmod(tree.path("bin/npu-smi").c_str(), 0755);
  {
    ScopedPath path(tree.path("bin"));
    auto env = RunCli({"env", "--fields", tree.path("run.yaml"), "-o", tree.path("out")});
    ASSERT_EQ(env.exit_code, 0) << env.err;
  }
  std::string json = tree.path("out/environment.json");
  auto r = RunCli({"report", "--latency", kData + "/latency/dispatch_latency.csv", "--env", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("| NPU model (exact, e.g. 950PR / 950DT) | 910B3 (1 NPU) | `" + tree.path("bin") +
                               "/npu-smi info` device table |"));
  EXPECT_THAT(r.out, HasSubstr("| nodes x cards, transport, AIV count | 2 x 8, HCCS, AIV 48 | " +
                               tree.path("run.yaml") + " |"));
  EXPECT_THAT(r.out, HasSubstr("| shape T/H/K/E, dtype, routing, seed | _fill in_ | launch script; not found by "
                               "`optrace env` (" +
                               json + ") |"));
  EXPECT_THAT(r.out, HasSubstr("- environment (`optrace env`, probed "));
}

TEST(EnvCommandTest, ReportWithoutEnvKeepsBlanks) {
  auto r = RunCli({"report", "--latency", kData + "/latency/dispatch_latency.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("| NPU model (exact, e.g. 950PR / 950DT) | _fill in_ | `npu-smi info` |"));
}

TEST(EnvCommandTest, ReportWithBadEnvFileExitsTwo) {
  TempTree tree({{"environment.json", "{\"schema_version\": 9}"}});
  auto r =
      RunCli({"report", "--latency", kData + "/latency/dispatch_latency.csv", "--env", tree.path("environment.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("environment.json: schema_version 9 is not 1"));
  auto missing =
      RunCli({"report", "--latency", kData + "/latency/dispatch_latency.csv", "--env", tree.path("nope.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("nope.json"));
}

TEST(EnvCommandTest, HelpExitsZero) {
  auto r = RunCli({"env", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("optrace env"));
}

}  // namespace
}  // namespace optrace
