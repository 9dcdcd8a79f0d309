#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "testing/cli_runner.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/timeline/" + name; }

TEST(TimelineCommandTest, JsonIsVersionedAndGivesOverlapPerCoreAndRole) {
  auto r = RunCli({"timeline", Data("pipe_timeline.json"), Data("instr_timeline.json"), Data("sim"), "--roles",
                   Data("roles.txt"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["cores"].size(), 5u);
  bool found = false;
  for (const auto& c : j["cores"]) {
    if (c["core"] == "core1.cubecore") {
      found = true;
      EXPECT_EQ(c["role"], "gemm");
      EXPECT_DOUBLE_EQ(c["overlap_us"].get<double>(), 3.0);
      EXPECT_DOUBLE_EQ(c["busy"]["MTE1"]["busy_us"].get<double>(), 4.0);
    }
  }
  EXPECT_TRUE(found);
  for (const auto& role : j["roles"]) {
    if (role["role"] == "send" && role["source"] == "PipeTimeline") {
      EXPECT_EQ(role["cores"], 2);
      EXPECT_DOUBLE_EQ(role["mean_overlap_us"].get<double>(), 1.0);  // (2 + 0) / 2
    }
  }
  EXPECT_EQ(j["icache_misses"][0]["location"], "dispatch.cpp:12");
  EXPECT_EQ(j["icache_misses"][0]["count"], 2);
}

TEST(TimelineCommandTest, MergedTraceHasOneProcessPerCoreAndRightEvents) {
  auto out = std::filesystem::temp_directory_path() / "optrace_timeline_merged_test.json";
  auto r = RunCli({"timeline", Data("pipe_timeline.json"), Data("instr_timeline.json"), Data("sim"), "--roles",
                   Data("roles.txt"), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  auto j = nlohmann::json::parse(in);
  std::map<int, std::string> process;
  std::map<std::pair<int, int>, std::string> thread;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") process[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name") thread[{e["pid"], e["tid"]}] = e["args"]["name"];
  }
  ASSERT_EQ(process.size(), 4u);
  EXPECT_EQ(process[1], "core1.cubecore [gemm]");
  EXPECT_EQ(process[4], "core1.veccore0 [recv]");
  std::map<std::string, int> x, instant;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") ++x[process[e["pid"]]];
    if (e["ph"] == "I") ++instant[process[e["pid"]] + "/" + thread[{e["pid"], e["tid"]}]];
  }
  EXPECT_EQ(x["core1.cubecore [gemm]"], 5);
  EXPECT_EQ(x["core0.veccore0 [send]"], 10);  // 5 PipeTimeline intervals + 5 instructions
  EXPECT_EQ(x["core0.veccore1 [send]"], 2);
  EXPECT_EQ(x["core1.veccore0 [recv]"], 5);
  EXPECT_EQ(instant["core1.veccore0 [recv]/CACHEMISS (simulator)"], 4);
  EXPECT_EQ(instant["core0.veccore0 [send]/SCALAR (PipeTimeline)"], 1);  // MarkStamp13
  std::filesystem::remove(out);
}

TEST(TimelineCommandTest, TextShowsMteComputeOverlap) {
  auto r = RunCli({"timeline", Data("pipe_timeline.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("core0.veccore0 [aiv] PipeTimeline  span 0.000-10.000"));
  EXPECT_THAT(r.out, HasSubstr("MTE 8.000  compute 4.000  overlap 2.000  MTE alone 6.000"));
}

TEST(TimelineCommandTest, MissingColumnExitsTwoNamingIt) {
  auto r = RunCli({"timeline", Data("missing_dur.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no 'dur(us)' column"));
}

}  // namespace
}  // namespace optrace
