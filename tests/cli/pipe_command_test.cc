#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/cli_runner.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/opprof/" + name; }

const nlohmann::json* Metric(const nlohmann::json& j, const std::string& name) {
  for (const auto& m : j["metrics"]) {
    if (m["name"] == name) return &m;
  }
  return nullptr;
}

TEST(PipeCommandTest, JsonGivesSummaryOrNullWithNotProvided) {
  auto r = RunCli({"pipe", Data("synthetic_a"), "--roles", Data("roles.txt"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto* t = Metric(j, "aiv_time(us)");
  ASSERT_NE(t, nullptr);
  EXPECT_DOUBLE_EQ((*t)["per_role"]["recv"]["summary"]["mean"].get<double>(), 23.0);
  EXPECT_DOUBLE_EQ((*t)["per_role"]["recv"]["summary"]["spread"].get<double>(), 6.0);
  const auto* absent = Metric(j, "aiv_vec_bankgroup_cflt_ratio");
  ASSERT_NE(absent, nullptr);
  EXPECT_EQ((*absent)["provided"], false);
  EXPECT_EQ((*absent)["reason"], "not provided");
  EXPECT_TRUE((*absent)["per_role"]["send"]["summary"].is_null());
  EXPECT_EQ((*absent)["per_role"]["send"]["reason"], "not provided");
}

TEST(PipeCommandTest, TextOnRealSampleShowsRolesAndNotProvided) {
  auto r = RunCli({"pipe", Data("minimal")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("op: sanitized_operator_kernel (mix)"));
  EXPECT_THAT(r.out, HasSubstr("aiv_icache_miss_rate"));
  EXPECT_THAT(r.out, HasSubstr("L2Cache: not provided (no L2Cache.csv in the input)"));
}

TEST(PipeCommandTest, CoresMissingFromTheExportArePrintedAndInTheJson) {
  auto r = RunCli({"pipe", Data("coverage_short")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("export coverage problem: PipeUtilization: rows for 2 AIC + 4 AIV cores, OpBasicInfo.csv "
                       "declares 8 AIC + 16 AIV"),
            std::string::npos)
      << r.out;
  auto j = RunCli({"pipe", Data("coverage_short"), "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  const auto& cov = doc.contains("export_coverage") ? doc["export_coverage"] : doc["base"]["export_coverage"];
  EXPECT_EQ(cov["expected_aic"], 8);
  EXPECT_EQ(cov["tables"][0]["missing"], "aic 2-7, aiv 4-15");
}

TEST(PipeCommandTest, CompareInJsonHasDeltas) {
  auto r = RunCli({"pipe", Data("synthetic_a"), "--roles", Data("roles.txt"), "--compare", Data("synthetic_b"),
                   "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& d : j["deltas"]) {
    if (d["name"] == "aiv_time(us)" && d["role"] == "recv") {
      EXPECT_DOUBLE_EQ(d["delta"].get<double>(), -3.0);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(PipeCommandTest, CompareTextShowsDelta) {
  auto r = RunCli({"pipe", Data("synthetic_a"), "--roles", Data("roles.txt"), "--compare", Data("synthetic_b")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("-13.0%"));
  EXPECT_THAT(r.out, HasSubstr("no delta, compare: not provided"));
}

TEST(PipeCommandTest, RoleCoresMissingFromExportWarn) {
  auto r = RunCli({"pipe", Data("synthetic_a"), "--roles", Data("roles_wide.txt")});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("role 'recv' declares aiv 4-7 but the export has no rows"));
  EXPECT_THAT(r.out, HasSubstr("cores no role claims: aic 0-1"));
}

TEST(PipeCommandTest, BadRolesFileExitsTwoNamingTheLine) {
  auto r = RunCli({"pipe", Data("synthetic_a"), "--roles", Data("roles_bad.txt")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("roles_bad.txt:1: no ':' after the role name"));
}

TEST(PipeCommandTest, MissingInputExitsTwo) {
  auto r = RunCli({"pipe", Data("nope")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("nope: no such file or directory"));
}

TEST(PipeCommandTest, NotAMetricCsvExitsTwo) {
  auto r = RunCli({"pipe", std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/latency/dispatch_latency.csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("dispatch_latency.csv:1: no block_id column"));
}

TEST(PipeCommandTest, RenamedPipeUtilizationIsSummarisedFromItsColumns) {
  auto r = RunCli({"pipe", Data("renamed/run1_pipe.csv"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto* m = Metric(j, "aiv_icache_miss_rate");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ((*m)["provided"], true);
  EXPECT_NEAR((*m)["per_role"]["aiv"]["summary"]["mean"].get<double>(), (0.257732 + 0.279070) / 2, 1e-9);
}

TEST(PipeCommandTest, MetricCsvWithoutMetricsExitsTwoSayingWhatWasExpected) {
  std::string path = (std::filesystem::temp_directory_path() / "optrace_pipe_no_metrics.csv").string();
  std::ofstream(path) << "block_id,sub_block_id\n0,vector0\n";
  auto r = RunCli({"pipe", path});
  std::filesystem::remove(path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("optrace_pipe_no_metrics.csv:1: no metric column"));
  EXPECT_THAT(r.err, HasSubstr("expected an msprof op metric CSV"));
}

}  // namespace
}  // namespace optrace
