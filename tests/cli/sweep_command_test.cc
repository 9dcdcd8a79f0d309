#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyze/report/sweep.h"
#include "core/file_io.h"
#include "testing/cli_runner.h"

namespace optrace::cli {
namespace {
namespace fs = std::filesystem;
using ::optrace::testing::RunCli;
using ::testing::HasSubstr;

fs::path Sample(const char* name) { return fs::path(OPTRACE_TEST_DATA_DIR) / "analyze" / name; }

class SweepCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("optrace_sweep_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<std::string> Lines(const fs::path& p) {
    std::ifstream in(p);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
  fs::path dir_;
};

TEST_F(SweepCommandTest, RollupHasOneRowPerRootAndEachRootGetsAReport) {
  auto r = RunCli({"sweep", Sample("tp_l0_text").string(), Sample("tp_l1_text").string(), "-o", dir_.string(), "--jobs",
                   "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["root_count"], 2);
  EXPECT_EQ(j["status_counts"]["ok"], 2);
  auto lines = Lines(dir_ / "sweep_class_rollup.csv");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("root,status,report_dir,rank_count,event_count,step_count,wall_ms_sum,top_step_class_id", 0), 0u);
  // Command-line order, whatever order the threads finished in.
  EXPECT_THAT(lines[1], HasSubstr("tp_l0_text,ok,01_tp_l0_text,2,"));
  EXPECT_THAT(lines[2], HasSubstr("tp_l1_text,ok,02_tp_l1_text,2,"));
  EXPECT_TRUE(fs::exists(dir_ / "01_tp_l0_text" / "report.md"));
  EXPECT_TRUE(fs::exists(dir_ / "02_tp_l1_text" / "report.html"));
  EXPECT_TRUE(fs::exists(dir_ / "sweep_summary.json"));
}

TEST_F(SweepCommandTest, AFailingRootIsListedAndTheOthersStillRun) {
  fs::create_directories(dir_ / "empty_root" / "x");
  auto r = RunCli({"sweep", (dir_ / "empty_root").string(), Sample("tp_l0_text").string(), "-o", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("1 of 2 roots could not be analyzed"));
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "partial");
  EXPECT_THAT(j["failed_roots"][0]["root"].get<std::string>(), HasSubstr("empty_root"));
  auto lines = Lines(dir_ / "out" / "sweep_class_rollup.csv");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[1], HasSubstr(",failed,"));
  EXPECT_THAT(lines[2], HasSubstr(",ok,"));
}

TEST_F(SweepCommandTest, ZeroJobsIsUsageError) {
  auto r = RunCli({"sweep", Sample("tp_l0_text").string(), "-o", dir_.string(), "--jobs", "0"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--jobs"));
}

TEST_F(SweepCommandTest, MissingOutputIsUsageError) {
  auto r = RunCli({"sweep", Sample("tp_l0_text").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--output"));
}

TEST(SweepReportDirTest, SameNamedRootsGetDistinctNumberedDirs) {
  using analyze::report::SweepReportDirName;
  EXPECT_EQ(SweepReportDirName("/a/run", 0, 2), "01_run");
  EXPECT_EQ(SweepReportDirName("/b/run/", 1, 2), "02_run");
  EXPECT_EQ(SweepReportDirName("/c/my run", 0, 120), "001_my_run");
}

// Two captures side by side (the TP-L0 and TP-L1 samples, different profiler levels) in one
// folder: one row per capture, never one merged run; the analyze command refuses the folder.
TEST_F(SweepCommandTest, RootWithSeveralCapturesIsSweptOneRowPerCapture) {
  fs::path both = dir_ / "both";
  fs::create_directories(both);
  fs::copy(Sample("tp_l0_text"), both / "l0", fs::copy_options::recursive);
  fs::copy(Sample("tp_l1_text"), both / "l1", fs::copy_options::recursive);
  auto refused = RunCli({"analyze", "--format", "json", both.string(), "-o", (dir_ / "an").string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("holds 2 separate captures"));
  EXPECT_THAT(refused.err, HasSubstr("--run 2: l1: 2 rank dir(s) (rank 0,1)"));
  auto r = RunCli({"sweep", both.string(), "-o", (dir_ / "sw").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("[2/2]"));
  auto lines = Lines(dir_ / "sw" / "sweep_class_rollup.csv");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[1], HasSubstr(" --run 1,ok,01_both_run1,2,"));
  EXPECT_THAT(lines[2], HasSubstr(" --run 2,ok,01_both_run2,2,"));
  EXPECT_TRUE(fs::exists(dir_ / "sw" / "01_both_run2" / "report.md"));
  auto one = RunCli({"analyze", "--format", "json", both.string(), "--run", "2", "-o", (dir_ / "an2").string()});
  EXPECT_EQ(one.exit_code, 0) << one.err;
}

}  // namespace
TEST_F(SweepCommandTest, SearchRootFindsEveryProfilingRootBelowItAndLimitTakesTheFirst) {
  // Three capture folders at different depths; a rank folder's own PROF_* raw data is not a root.
  fs::path base = dir_ / "captures";
  for (const char* d : {"a", "b/deeper"}) fs::create_directories(base / d);
  fs::copy(Sample("tp_l1_text"), base / "a" / "tp1", fs::copy_options::recursive);
  fs::copy(Sample("tp_l0_text"), base / "b" / "deeper" / "tp0", fs::copy_options::recursive);
  fs::copy(Sample("msprof_minimal"), base / "c", fs::copy_options::recursive);
  auto r = RunCli({"sweep", "--search-root", base.string(), "-o", (dir_ / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["roots_found"], 3);
  EXPECT_EQ(j["root_count"], 3);
  auto limited = RunCli({"sweep", "--search-root", base.string(), "--limit", "2", "-o", (dir_ / "out2").string()});
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  auto k = nlohmann::json::parse(limited.out);
  EXPECT_EQ(k["roots_found"], 3);
  EXPECT_EQ(k["roots_swept"], 2);
  EXPECT_THAT(limited.err, HasSubstr("/a/tp1"));  // path order: a, b/deeper, c
  EXPECT_THAT(limited.err, ::testing::Not(HasSubstr("/c ")));
}

TEST_F(SweepCommandTest, ASearchRootWithoutCapturesIsRefusedSayingWhatItLookedFor) {
  fs::create_directories(dir_ / "empty" / "x");
  auto r = RunCli({"sweep", "--search-root", (dir_ / "empty").string(), "-o", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("no profiling root below it"));
}

// Seed 002's resume: a second sweep into the same OUT reads back the roots an earlier one finished
// (same rollup rows) and analyzes only the root whose report folder is gone.
TEST_F(SweepCommandTest, ReuseExistingReadsBackFinishedRootsAndAnalyzesTheRest) {
  fs::path out = dir_ / "out";
  auto first = RunCli({"sweep", Sample("tp_l1_text").string(), Sample("tp_l0_text").string(), "-o", out.string()});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::string rollup = *ReadFileToString(out / "sweep_class_rollup.csv");
  fs::path gone;
  for (const auto& e : fs::directory_iterator(out))
    if (e.is_directory() && e.path().filename().string().starts_with("02_")) gone = e.path();
  ASSERT_FALSE(gone.empty());
  fs::remove_all(gone);
  auto again = RunCli({"sweep", Sample("tp_l1_text").string(), Sample("tp_l0_text").string(), "-o", out.string(), "--reuse-existing"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("tp_l1_text ok (reused)"));
  EXPECT_THAT(again.err, ::testing::Not(HasSubstr("tp_l0_text ok (reused)")));
  EXPECT_TRUE(fs::exists(gone / "analysis_summary.json"));
  EXPECT_EQ(*ReadFileToString(out / "sweep_class_rollup.csv"), rollup);
  auto summary = nlohmann::json::parse(*ReadFileToString(out / "sweep_summary.json"));
  EXPECT_EQ(summary["roots"][0].value("reused", false), true);
  EXPECT_EQ(summary["roots"][1].value("reused", false), false);
}

}  // namespace optrace::cli
