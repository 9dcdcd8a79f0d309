#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "testing/cli_runner.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;

const std::string kData = std::string(OPTRACE_TEST_DATA_DIR) + "/evidence";

TEST(ReportCommandTest, WritesMarkdownFile) {
  auto path = std::filesystem::temp_directory_path() / "optrace_report_cli_test.md";
  std::filesystem::remove(path);
  auto r = RunCli({"report", "--latency", kData + "/latency/dispatch_latency_kernel.csv", "--pipe",
                   kData + "/opprof/workload128", "--stall", kData + "/stall/stalls.csv", "-o", path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream f(path);
  std::string md((std::istreambuf_iterator<char>(f)), {});
  EXPECT_THAT(md, HasSubstr("# Dispatch kernel evidence report"));
  EXPECT_THAT(md, HasSubstr("| latency measurement | kernel | measurement column |"));
  EXPECT_THAT(md, HasSubstr("| per-iteration max over ranks: P95 | 15.800 |"));
  EXPECT_THAT(md, HasSubstr("| aiv_icache_miss_rate |"));
  std::filesystem::remove(path);
}

TEST(ReportCommandTest, WarmupFlagReachesTheBaseline) {
  auto r = RunCli({"report", "--latency", kData + "/latency/dispatch_latency.csv", "--warmup", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("- Warm-up: --warmup 3"));
}

TEST(ReportCommandTest, BytesFileGivesTheBandwidthLine) {
  std::string bytes = (std::filesystem::temp_directory_path() / ("optrace_bytes_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(bytes) << R"({"kind": "effective_token_bytes", "bytes_per_rank": 14000000, "includes_metadata": false,
    "includes_local_traffic": false, "includes_protocol_overhead": false})";
  auto r = RunCli({"report", "--latency", kData + "/latency/dispatch_latency.csv", "--bytes", bytes});
  std::filesystem::remove(bytes);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| per-iteration max: median | 14.000 | 1000 |"), std::string::npos) << r.out;
}

TEST(ReportCommandTest, UndefinedBytesAreExitTwoNamingTheFile) {
  std::string bytes = (std::filesystem::temp_directory_path() / ("optrace_bytes2_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(bytes) << R"({"kind": "physical_link_bytes", "bytes_per_rank": 1})";
  auto r = RunCli({"report", "--latency", kData + "/latency/dispatch_latency.csv", "--bytes", bytes});
  std::filesystem::remove(bytes);
  EXPECT_EQ(r.exit_code, cli::kExitBadInput);
  EXPECT_NE(r.err.find("'includes_metadata' (true or false) is required"), std::string::npos) << r.err;
}

TEST(ReportCommandTest, NoInputIsAUsageError) {
  auto r = RunCli({"report"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("give at least one of --latency, --pipe, --stall"));
}

TEST(ReportCommandTest, BadRolesFileExitsTwo) {
  auto r = RunCli({"report", "--pipe", kData + "/opprof/synthetic_a", "--roles", kData + "/opprof/roles_bad.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("roles_bad.txt:1:"));
}

TEST(ReportCommandTest, BadLatencyFileExitsTwo) {
  auto r = RunCli({"report", "--latency", kData + "/latency/non_numeric.csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("non_numeric.csv:3:"));
}

TEST(ReportCommandTest, LatencyColumnFlagsReadGenericCsvLikeLatencyDoes) {
  auto r = RunCli({"report", "--latency", kData + "/latency/cycles.csv", "--rank-col", "r", "--iter-col", "it",
                   "--value-col", "cycles", "--unit", "cycles", "--clock-hz", "5e7", "--last-n", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("| per-iteration max over ranks: P95 | 15.800 |"));
  EXPECT_THAT(r.out, HasSubstr("| max over ranks of per-rank P95 (a different statistic) | 15.600 (rank 2) |"));
  EXPECT_THAT(r.out, HasSubstr("each rank's last-2 mean"));
}

TEST(ReportCommandTest, GenericCsvWithoutColumnFlagsNamesTheFlag) {
  auto r = RunCli({"report", "--latency", kData + "/latency/cycles.csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--rank-col"));
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

TEST(EvidenceCommandsTest, HelpExitsZeroForEachCommand) {
  for (const char* cmd : {"latency", "pipe", "stall", "report"}) {
    auto r = testing::RunCli({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_THAT(r.out, ::testing::HasSubstr(std::string("optrace ") + cmd)) << cmd;
  }
}

// Issue 55 (seed 003's second scope): the whole API call beside the main kernel, and the kernel's
// share of it. The API file is the kernel's with 30 us of host work added to every sample.
TEST(ReportCommandTest, TheApiLatencyIsTheBaselinesSecondScopeWithTheKernelsShare) {
  auto api = std::filesystem::temp_directory_path() / "optrace_report_api_latency.csv";
  {
    std::ifstream in(kData + "/latency/dispatch_latency.csv");
    std::ofstream out(api);
    std::string line;
    std::getline(in, line);
    out << line << "\n";  // rank,iteration,elapsed_ms,elapsed_us,is_warmup,in_average
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string c; std::getline(ss, c, ',');) f.push_back(c);
      const double us = std::stod(f[3]) + 30;
      out << f[0] << "," << f[1] << "," << us / 1000 << "," << us << "," << f[4] << "," << f[5] << "\n";
    }
  }
  auto r = RunCli({"report", "--latency", kData + "/latency/dispatch_latency_kernel.csv", "--api-latency", api.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("full dispatch API latency: below (" + api.string() + ")"));
  EXPECT_THAT(r.out, HasSubstr("| per-iteration max over ranks: median | 14.000 | 44.000 |"));
  EXPECT_THAT(r.out, HasSubstr("| per-iteration max over ranks: P95 | 15.800 | 45.800 |"));
  EXPECT_THAT(r.out, HasSubstr("The main kernel is 31.8% of the API call at the median (14.000 of 44.000 us)"));
  auto alone = RunCli({"report", "--api-latency", api.string()});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_THAT(alone.err, HasSubstr("give the main kernel's --latency too"));
  std::filesystem::remove(api);
}

// Section 6 (seed 003's collection commands): the kernel's name and the metric groups the report
// lacks, one msprof op run each with the same command.
TEST(ReportCommandTest, TheCommandsToCollectWhatIsMissingNameTheKernelAndTheMissingGroups) {
  auto r = RunCli({"report", "--pipe", kData + "/opprof/workload128"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("## 6. Commands to collect what this report lacks"));
  EXPECT_THAT(r.out, HasSubstr("Kernel: main_kernel_mix_aic."));
  EXPECT_THAT(r.out, HasSubstr("msprof op --kernel-name=main_kernel_mix_aic --launch-count=1 --warm-up=0 "
                               "--aic-metrics=MemoryL0"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("--aic-metrics=PipeUtilization")));  // the report has it
  EXPECT_THAT(r.out, HasSubstr("msprof --output=")) << "no system timeline given";
  EXPECT_THAT(r.out, HasSubstr("Replay check: one export"));
}

// Seed 003: the capture is kept with hostname, node, global rank, device id and PID. analyze reads
// them; the report shows them from the analyze folder that holds --kernel-calls.
TEST(ReportCommandTest, TheRankMapComesFromTheAnalysisBesideTheKernelCalls) {
  namespace fs = std::filesystem;
  fs::path tmp = fs::temp_directory_path() / ("optrace_report_rank_map_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  const std::string text = std::string(OPTRACE_TEST_DATA_DIR) + "/analyze/tp_l0_text";
  fs::create_directories(tmp / "cap");
  fs::copy(text + "/rank0_ascend_pt", tmp / "cap/node-x_4242_20250101123456789_ascend_pt", fs::copy_options::recursive);
  fs::copy(text + "/rank1_ascend_pt", tmp / "cap/rank1_ascend_pt", fs::copy_options::recursive);
  auto a = RunCli({"analyze", (tmp / "cap").string(), "--kernel", "aclnnMuls_MulAiCore_Mul", "-o",
                   (tmp / "an").string()});
  ASSERT_LE(a.exit_code, 1) << a.err;
  auto r = RunCli({"report", "--kernel-calls", (tmp / "an/kernel_calls.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("| global rank | node (export folder) | device id | hostname | PID | from |"));
  EXPECT_THAT(r.out, HasSubstr("| 0 | node-x_4242_20250101123456789_ascend_pt | "));
  EXPECT_THAT(r.out, HasSubstr("| node-x | 4242 | hostname: folder name (torch_npu's default worker name"));
  EXPECT_THAT(r.out, HasSubstr("| 1 | rank1_ascend_pt | _fill in_ | _fill in_ | _fill in_ | no export file states them |"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("| hostname, node, global rank, device id, PID | _fill in_")));
  fs::remove_all(tmp);
}

TEST(ReportCommandTest, AnAnalysisWithoutRanksIsExitTwoNamingTheCommand) {
  namespace fs = std::filesystem;
  fs::path f = fs::temp_directory_path() / ("optrace_report_bad_summary_" + std::to_string(::getpid()) + ".json");
  std::ofstream(f) << R"({"identity": {}})";
  auto r = RunCli({"report", "--pipe", kData + "/opprof/workload128", "--analysis", f.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no identity.ranks; give the output folder of `optrace analyze ROOT -o DIR`"));
  fs::remove(f);
}

TEST(ReportCommandTest, WithoutAnAnalysisTheRankMapIsOneBlankRowSayingWhereItComesFrom) {
  auto r = RunCli({"report", "--pipe", kData + "/opprof/workload128"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("| hostname, node, global rank, device id, PID | _fill in_ | the capture: "
                               "`optrace analyze ROOT -o DIR`, then `--analysis DIR` |"));
}

}  // namespace
}  // namespace optrace
