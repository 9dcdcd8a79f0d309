// report --kernel-calls: analyze --kernel's kernel_calls.csv summarised per rank and shown as the
// report's system-timeline evidence (seed 003 section 3.3).
#include "evidence/report/kernel_calls.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "evidence/report/report.h"

namespace optrace::evidence {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path WriteCalls(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("optrace_kernel_calls_" + name + ".csv");
  std::ofstream(p) << text;
  return p;
}

// The columns analyze --kernel writes.
const char* kCalls =
    "rank,call,name,step_id,start_ns,dur_us,launch_gap_us,period_us,source_file,row\n"
    "0,0,MoeDispatch,10,1000,100.0,5.0,,r0/kernel_details.csv,4\n"
    "0,1,MoeDispatch,10,2000,120.0,7.0,1000,r0/kernel_details.csv,9\n"
    "0,2,MoeDispatch,11,3000,300.0,9.0,1000,r0/kernel_details.csv,14\n"
    "1,0,MoeDispatch,10,1000,110.0,,,r1/kernel_details.csv,4\n";

TEST(KernelCallsTest, PerRankCountsMediansAndMaxima) {
  auto k = ReadKernelCalls(WriteCalls("ok", kCalls));
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->calls, 4u);
  EXPECT_EQ(k->names, std::set<std::string>{"MoeDispatch"});
  EXPECT_EQ(k->sources.size(), 2u);
  ASSERT_EQ(k->ranks.size(), 2u);
  EXPECT_EQ(k->ranks[0].calls, 3u);
  EXPECT_DOUBLE_EQ(k->ranks[0].p50_us, 120.0);
  EXPECT_DOUBLE_EQ(k->ranks[0].max_us, 300.0);
  EXPECT_DOUBLE_EQ(k->ranks[0].launch_gap_p50_us, 7.0);
  EXPECT_DOUBLE_EQ(k->ranks[1].launch_gap_p50_us, -1);  // no gap recorded
}

TEST(KernelCallsTest, AFileWithoutTheColumnsSaysWhichCommandWritesIt) {
  auto k = ReadKernelCalls(WriteCalls("bad", "a,b\n1,2\n"));
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("optrace analyze ROOT --kernel NAME"));
  EXPECT_THAT(k.status().message(), HasSubstr("optrace_kernel_calls_bad.csv"));
}

TEST(KernelCallsTest, TheReportsSystemTimelineIsFilledFromThem) {
  auto k = ReadKernelCalls(WriteCalls("report", kCalls));
  ASSERT_TRUE(k.ok());
  EvidenceInputs in;
  in.kernel_calls = *k;
  std::ostringstream md;
  WriteEvidenceReport(in, md);
  EXPECT_THAT(md.str(), HasSubstr("- System timeline (kernel, rank, task): 4 call(s) of MoeDispatch on 2 rank(s)"));
  EXPECT_THAT(md.str(), HasSubstr("| 0 | 3 | 120.000 | 300.000 | 7.000 |"));
  EXPECT_THAT(md.str(), HasSubstr("| 1 | 1 | 110.000 | 110.000 | - |"));
  EvidenceInputs none;
  std::ostringstream blank;
  WriteEvidenceReport(none, blank);
  EXPECT_THAT(blank.str(), HasSubstr("- System timeline (kernel, rank, task): _fill in_"));
}

}  // namespace
}  // namespace optrace::evidence
