#include "evidence/report/report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "core/file_io.h"

namespace optrace::evidence {
namespace {

const std::string kData = std::string(OPTRACE_TEST_DATA_DIR) + "/evidence";

EvidenceInputs AllInputs() {
  EvidenceInputs in;
  auto lat = ReadLatencyCsvFiles({kData + "/latency/missing_pair.csv"}, {});
  EXPECT_TRUE(lat.ok());
  LatencyReport lr = AnalyzeLatency(*lat, {});
  in.latency = LatencyEvidence{*lat, lr};
  auto run = LoadOpprof({kData + "/opprof/synthetic_a"});
  auto roles = LoadRoles(kData + "/opprof/roles.txt");
  EXPECT_TRUE(run.ok() && roles.ok());
  in.pipe = SummarizePipe(*run, &*roles);
  in.roles_path = kData + "/opprof/roles.txt";
  auto st = ReadStallCsv(kData + "/stall/stalls.csv");
  EXPECT_TRUE(st.ok());
  StallReport sr = AnalyzeStalls(*st);
  in.stall = StallEvidence{*st, sr};
  return in;
}

std::string Normalize(std::string text) {  // paths differ between checkouts
  for (size_t p; (p = text.find(kData)) != std::string::npos;) text.replace(p, kData.size(), "DATA");
  return text;
}

// Golden: tests/data/evidence/report_golden.md; OPTRACE_UPDATE_GOLDENS=1 rewrites it.
TEST(ReportTest, FullReportMatchesGolden) {
  std::ostringstream out;
  WriteEvidenceReport(AllInputs(), out);
  std::string got = Normalize(out.str());
  std::string golden_path = kData + "/report_golden.md";
  if (std::getenv("OPTRACE_UPDATE_GOLDENS")) {
    ASSERT_TRUE(WriteFileAtomic(golden_path, got).ok());
  }
  auto want = ReadFileToString(golden_path);
  ASSERT_TRUE(want.ok()) << want.status().message();
  EXPECT_EQ(got, *want);
}

TEST(ReportTest, BothLatencyStatisticsAreNamed) {
  std::ostringstream out;
  WriteEvidenceReport(AllInputs(), out);
  EXPECT_NE(out.str().find("| per-iteration max over ranks: P95 | 8.800 |"), std::string::npos);
  EXPECT_NE(out.str().find("| max over ranks of per-rank P95 (a different statistic) | 8.800 (rank 2) |"),
            std::string::npos);
}

TEST(ReportTest, OpenBoundariesListMissingPairsAndNotProvidedMetrics) {
  std::ostringstream out;
  WriteEvidenceReport(AllInputs(), out);
  std::string md = out.str();
  std::string open = md.substr(md.find("## 5. Open boundaries"));
  EXPECT_NE(open.find("rank 2 has no sample for iteration 2"), std::string::npos);
  EXPECT_NE(open.find("aiv_vec_bankgroup_cflt_ratio (ResourceConflictRatio)"), std::string::npos);
  EXPECT_NE(open.find("msprof op tables not provided: ArithmeticUtilization"), std::string::npos);
}

TEST(ReportTest, MissingInputsLeaveSectionsSayingSo) {
  EvidenceInputs in;
  auto st = ReadStallCsv(kData + "/stall/stalls.csv");
  ASSERT_TRUE(st.ok());
  StallReport sr = AnalyzeStalls(*st);
  in.stall = StallEvidence{*st, sr};
  std::ostringstream out;
  WriteEvidenceReport(in, out);
  EXPECT_NE(out.str().find("No latency samples given"), std::string::npos);
  EXPECT_NE(out.str().find("No msprof op metrics given"), std::string::npos);
  EXPECT_NE(out.str().find("- No latency baseline in this report."), std::string::npos);
}

TEST(ReportTest, EnvironmentIsFilledFromOpBasicInfo) {
  EvidenceInputs in;
  auto run = LoadOpprof({kData + "/opprof/workload128"});
  ASSERT_TRUE(run.ok());
  in.pipe = SummarizePipe(*run, nullptr);
  std::ostringstream out;
  WriteEvidenceReport(in, out);
  EXPECT_NE(out.str().find("| kernel name | main_kernel_mix_aic |"), std::string::npos);
  EXPECT_NE(out.str().find("| frequency (current / rated, MHz) | 1800 / 1800 |"), std::string::npos);
  EXPECT_NE(out.str().find("| NPU model (exact, e.g. 950PR / 950DT) | _fill in_ |"), std::string::npos);
}

}  // namespace
}  // namespace optrace::evidence
