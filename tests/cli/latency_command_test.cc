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

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/latency/" + name; }

TEST(LatencyCommandTest, JsonHasTheContractKeysInMicroseconds) {
  auto r = RunCli({"latency", Data("dispatch_latency.csv"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["unit"], "us");
  const auto& m = j["per_iteration_max"];
  for (const char* key : {"median", "p95", "p99", "mean", "min", "max", "samples"}) EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_DOUBLE_EQ(m["median"].get<double>(), 14.0);
  EXPECT_NEAR(m["p95"].get<double>(), 15.8, 1e-9);
  EXPECT_EQ(m["samples"], 5);
  ASSERT_EQ(j["per_rank"].size(), 3u);
  for (const char* key : {"rank", "median", "p95", "max", "samples"}) EXPECT_TRUE(j["per_rank"][0].contains(key)) << key;
  EXPECT_NEAR(j["per_rank"][2]["p95"].get<double>(), 15.6, 1e-9);
  EXPECT_TRUE(j["problems"].is_array());
  EXPECT_TRUE(j["problems"].empty());
  EXPECT_NEAR(j["max_of_per_rank_p95"]["value"].get<double>(), 15.6, 1e-9);
  EXPECT_EQ(j["slowest_rank"]["rank"], 1);
  EXPECT_NEAR(j["reference_mean"]["value"].get<double>(), 35.6 / 3, 1e-9);
  EXPECT_EQ(j["warmup"]["rows_excluded"], 6);
}

TEST(LatencyCommandTest, JsonListsMissingPairsAndUnequalCounts) {
  auto r = RunCli({"latency", Data("missing_pair.csv"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  // 4 samples per rank < 5 for the reference mean: one short_reference entry too.
  ASSERT_EQ(j["problems"].size(), 3u);
  EXPECT_EQ(j["problems"][0]["kind"], "missing_pair");
  EXPECT_EQ(j["problems"][0]["rank"], 2);
  EXPECT_EQ(j["problems"][0]["iteration"], 2);
  EXPECT_EQ(j["problems"][1]["kind"], "short_reference");
  EXPECT_EQ(j["problems"][2]["kind"], "unequal_counts");
  EXPECT_EQ(j["iterations"]["incomplete_excluded"], 1);
  EXPECT_THAT(r.err, HasSubstr("warning: 3 data problem(s)"));
}

TEST(LatencyCommandTest, StrictTurnsProblemsIntoExitOne) {
  auto r = RunCli({"latency", Data("missing_pair.csv"), "--strict"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("rank 2 has no sample for iteration 2"));
}

TEST(LatencyCommandTest, TextNamesBothStatistics) {
  auto r = RunCli({"latency", Data("dispatch_latency.csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("per-iteration max over ranks, 5 complete iterations"));
  EXPECT_THAT(r.out, HasSubstr("max over ranks of per-rank P95: 15.600 us (rank 2); a different statistic"));
  EXPECT_THAT(r.out, HasSubstr("warm-up: rows with is_warmup = 1 excluded (6 rows)"));
  EXPECT_THAT(r.out, HasSubstr("Hyndman-Fan type 7"));
}

TEST(LatencyCommandTest, CsvHasOneRowPerScope) {
  auto r = RunCli({"latency", Data("dispatch_latency.csv"), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("per_iteration_max,,5,14,15.8,15.96,13.8,11,16,\n"));
  EXPECT_THAT(r.out, HasSubstr("rank,1,5,11,14.4,"));
}

TEST(LatencyCommandTest, GenericColumnsAndCyclesFromFlags) {
  auto r = RunCli({"latency", Data("cycles.csv"), "--rank-col", "r", "--iter-col", "it", "--value-col", "cycles",
                   "--unit", "cycles", "--clock-hz", "5e7", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["per_iteration_max"]["p95"].get<double>(), 15.8, 1e-9);
}

TEST(LatencyCommandTest, OutputDirGetsSvgAndPerIterationCsv) {
  auto dir = std::filesystem::temp_directory_path() / "optrace_latency_cli_test";
  std::filesystem::remove_all(dir);
  auto r = RunCli({"latency", Data("missing_pair.csv"), "-o", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream svg(dir / "latency.svg");
  std::string text((std::istreambuf_iterator<char>(svg)), {});
  EXPECT_THAT(text, HasSubstr("<svg"));
  EXPECT_THAT(text, HasSubstr("<polyline"));
  EXPECT_THAT(text, HasSubstr("</svg>"));
  std::ifstream csv(dir / "latency_per_iteration.csv");
  std::string rows((std::istreambuf_iterator<char>(csv)), {});
  EXPECT_THAT(rows, HasSubstr("iteration,max_us,slowest_rank,complete,rank0_us,rank1_us,rank2_us\n"));
  EXPECT_THAT(rows, HasSubstr("2,9,1,0,7,9,\n"));
  std::filesystem::remove_all(dir);
}

TEST(LatencyCommandTest, NonNumericCellExitsTwoNamingTheLine) {
  auto r = RunCli({"latency", Data("non_numeric.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("non_numeric.csv:3: elapsed_us 'abc' is not a number"));
}

TEST(LatencyCommandTest, MissingColumnExitsTwo) {
  auto r = RunCli({"latency", Data("dispatch_latency.csv"), "--rank-col", "worker"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no 'worker' column"));
  EXPECT_THAT(r.err, HasSubstr("--rank-col"));
}

TEST(LatencyCommandTest, EmptyFileExitsTwo) {
  auto r = RunCli({"latency", Data("empty.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("empty.csv: empty file"));
}

TEST(LatencyCommandTest, OneRankWarnsAndStillReports) {
  auto r = RunCli({"latency", Data("one_rank.csv")});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("only rank 0 present"));
  EXPECT_THAT(r.out, HasSubstr("only rank 0 present"));
}

TEST(LatencyCommandTest, MissingFileExitsTwo) {
  auto r = RunCli({"latency", Data("nope.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("nope.csv"));
}

TEST(LatencyCommandTest, BadUnitIsAUsageError) {
  auto r = RunCli({"latency", Data("dispatch_latency.csv"), "--unit", "s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--unit"));
}

TEST(LatencyCommandTest, ShortRowExitsTwoNamingTheLine) {
  auto r = RunCli({"latency", Data("short_row.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("short_row.csv:3: 3 fields but the header has 4"));
}

TEST(LatencyCommandTest, AllNaRankCountsAndIsReported) {
  auto r = RunCli({"latency", Data("all_na_rank.csv"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ranks"].size(), 3u);
  EXPECT_EQ(j["iterations"]["complete"], 0);
  EXPECT_TRUE(j["per_iteration_max"].is_null());
  EXPECT_THAT(j["problems"].dump(), HasSubstr("rank_without_values"));
}

TEST(LatencyCommandTest, CsvHasMaxOfPerRankP95AndReferenceMeanRows) {
  auto r = RunCli({"latency", Data("dispatch_latency.csv"), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nmax_of_per_rank_p95,2,5,,15.6,,,,,\n"));
  EXPECT_THAT(r.out, HasSubstr("\nreference_mean,,3,,,,11.86666667,,,\n"));
  EXPECT_THAT(r.out, HasSubstr("\n\nproblem,rank,iteration,message\n"));
}

TEST(LatencyCommandTest, CsvListsProblemsInASecondSection) {
  auto r = RunCli({"latency", Data("missing_pair.csv"), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto section = r.out.find("\n\nproblem,rank,iteration,message\n");
  ASSERT_NE(section, std::string::npos) << r.out;
  std::string problems = r.out.substr(section);
  EXPECT_THAT(problems, HasSubstr("\nmissing_pair,2,2,rank 2 has no sample for iteration 2;"));
  EXPECT_THAT(problems, HasSubstr("\nunequal_counts,,,\"ranks have different sample counts (rank 0: 4, rank 1: 4, "
                                  "rank 2: 3); per-rank"));
}

}  // namespace
}  // namespace optrace
