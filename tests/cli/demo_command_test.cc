// optrace demo: the whole trace loop on built-in data, as the README's first command runs it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "collect/dump_builder.h"
#include "testing/cli_runner.h"

namespace optrace {
namespace {

namespace fs = std::filesystem;
using collect::testing::FreshDir;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using nlohmann::json;
using testing::RunCli;

json ReadJson(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

TEST(DemoCommand, PrintsStatisticsAndWritesTraceStatsDumpsAndMap) {
  fs::path dir = FreshDir("demo");
  auto r = RunCli({"demo", "-o", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("\nprocessing +AIC +8 "));   // 4 AIC cores x 2 ranks
  EXPECT_THAT(r.out, ContainsRegex("\nprocessing +AIV +16 "));  // 8 AIV cores x 2 ranks
  EXPECT_THAT(r.out, HasSubstr("from 2 rank(s)"));
  EXPECT_THAT(r.out, HasSubstr(", 0 unmatched"));
  EXPECT_THAT(r.out, HasSubstr((dir / "chrome_trace.json").string()));
  for (const char* f : {"chrome_trace.json", "stats.json", "point_map.json", "dumps/rank0.bin", "dumps/rank1.bin"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
}

TEST(DemoCommand, TraceHasOneProcessPerRankAndOneThreadPerCore) {
  fs::path dir = FreshDir("demo");
  auto r = RunCli({"demo", "-o", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json trace = ReadJson(dir / "chrome_trace.json");
  std::map<int, std::string> processes;
  std::map<int, std::set<std::string>> threads;  // pid -> thread names
  std::map<int, std::set<int64_t>> tids_with_events;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["pid"]].insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X") tids_with_events[e["pid"]].insert(e["tid"].get<int64_t>());
  }
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0], "rank 0");
  EXPECT_EQ(processes[1], "rank 1");
  // block_dim 4 per rank: 4 AIC cores and 8 AIV cores, each its own thread with events.
  for (int pid : {0, 1}) {
    EXPECT_EQ(threads[pid].size(), 12u);
    EXPECT_EQ(threads[pid].count("AIC 0"), 1u);
    EXPECT_EQ(threads[pid].count("AIV 7"), 1u);
    EXPECT_EQ(tids_with_events[pid].size(), 12u);
  }
}

}  // namespace
}  // namespace optrace
