// report --join: the --summary JSON of `optrace join` shown as the report's system-timeline
// evidence (seed 003 section 3.3): the kernel's phases inside its own task slices.
#include "evidence/report/join_evidence.h"

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

fs::path WriteSummary(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("optrace_join_" + name + ".json");
  std::ofstream(p) << text;
  return p;
}

// The fields `optrace join --summary` writes (a subset: the report reads these).
const char* kSummary = R"({"schema_version": 1, "kernel": "MoeDispatchCombine", "trace": "/r/joined.pftrace",
 "capture": "2 rank folders", "launches": [
  {"rank": 0, "launch": 0, "slice_dur_ns": 812000, "lead_ns": 3000, "tail_ns": 2000, "phases": 474, "phases_outside": 0},
  {"rank": 1, "launch": 0, "slice_dur_ns": 790500, "lead_ns": -900, "tail_ns": 2000, "phases": 474, "phases_outside": 3}],
 "issues": ["rank 1 launch 0: 3 phase(s) outside the task slice"]})";

TEST(JoinEvidenceTest, TheLaunchesAndTheirResidualsAreRead) {
  auto j = ReadJoinEvidence(WriteSummary("ok", kSummary));
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ(j->kernel, "MoeDispatchCombine");
  ASSERT_EQ(j->launches.size(), 2u);
  EXPECT_EQ(j->launches[1].lead_ns, -900);
  EXPECT_EQ(j->launches[1].outside, 3u);
  EXPECT_EQ(j->issues.size(), 1u);
}

TEST(JoinEvidenceTest, AnotherJsonSaysWhichCommandWritesTheSummary) {
  auto j = ReadJoinEvidence(WriteSummary("bad", R"({"findings": []})"));
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.status().message(), HasSubstr("optrace join ... --summary FILE"));
}

TEST(JoinEvidenceTest, TheReportsSystemTimelineShowsThePhasesInTheirSlices) {
  auto j = ReadJoinEvidence(WriteSummary("report", kSummary));
  ASSERT_TRUE(j.ok());
  EvidenceInputs in;
  in.join = *j;
  std::ostringstream md;
  WriteEvidenceReport(in, md);
  EXPECT_THAT(md.str(), HasSubstr("- Kernel phases on the model's timeline: 2 launch(es) of MoeDispatchCombine on 2 rank(s)"));
  EXPECT_THAT(md.str(), HasSubstr("3 phase(s) outside their slice"));
  EXPECT_THAT(md.str(), HasSubstr("| 1 | 0 | 790.500 | -0.900 | 2.000 | 474 | 3 |"));
}

}  // namespace
}  // namespace optrace::evidence
