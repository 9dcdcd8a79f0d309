// optrace join end to end on the README's own data: two runs of the emulator demo as two launches,
// a capture in torch_npu's text layout generated around them (tests/data/join/make_torch_capture.py),
// the joined trace and its per-launch residuals; the refusals a user meets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "core/subprocess.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

const std::string kMakeCapture = std::string(OPTRACE_TEST_DATA_DIR) + "/join/make_torch_capture.py";

// Two demo runs (launch 0 and 1, 2 ranks each), made once for the suite.
const TempTree& Demos() {
  static TempTree* t = [] {
    auto* tree = new TempTree;
    for (const char* d : {"d0", "d1"}) {
      auto r = RunCli({"demo", "-o", tree->path(d)});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    return tree;
  }();
  return *t;
}

ProcessRun MakeCapture(const std::string& out, std::vector<std::string> extra = {}) {
  const TempTree& d = Demos();
  std::vector<std::string> args{kMakeCapture, d.path("d0/dumps"), d.path("d1/dumps"), "--kernel", "MoeDispatchCombine",
                                "-o", out};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunProcess("/usr/bin/env", [&] {
    std::vector<std::string> a{"python3"};
    a.insert(a.end(), args.begin(), args.end());
    return a;
  }(), std::chrono::seconds(60), true);
}

std::vector<std::string> JoinArgs(const TempTree& t, const std::string& capture) {
  const TempTree& d = Demos();
  return {"join", d.path("d0/dumps"), d.path("d1/dumps"), "--capture", capture, "--kernel", "MoeDispatchCombine",
          "--map", d.path("d0/point_map.json"), "-o", t.path("joined.pftrace"), "--summary", t.path("join.json")};
}

TEST(JoinCommand, TheDemosPhasesLandInsideTheirKernelSlicesOnEveryRankAndLaunch) {
  TempTree t;
  ProcessRun made = MakeCapture(t.path("cap"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  std::vector<std::string> args = JoinArgs(t, t.path("cap"));
  args.push_back("--strict");
  auto r = RunCli(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("joined 2 launch(es) of MoeDispatchCombine on 2 rank(s)"));
  EXPECT_THAT(r.out, HasSubstr("(open in https://ui.perfetto.dev)"));
  nlohmann::json j = nlohmann::json::parse(t.Read("join.json"));
  ASSERT_EQ(j["launches"].size(), 4u);
  for (const auto& l : j["launches"]) {
    EXPECT_EQ(l["phases_outside"], 0) << l.dump();
    // The generator opens each slice 3 us before the earliest slot starts and closes it 2 us after
    // the last event: the first phase begins at or after the slot start, the last ends with the last event.
    EXPECT_GE(l["lead_ns"].get<int64_t>(), 3000) << l.dump();
    EXPECT_EQ(l["tail_ns"].get<int64_t>(), 2000) << l.dump();
    EXPECT_GT(l["phases"].get<int>(), 100);
  }
  EXPECT_GT(std::filesystem::file_size(t.path("joined.pftrace")), 1000u);
}

TEST(JoinCommand, AClockThatDoesNotLineUpIsADataIssueAndFailsStrict) {
  TempTree t;
  // Rank 1's second slice 5 us early: the generator ends every slice 2 us after the last event,
  // so that launch's last phases end 3 us past its slice (the lead before the first phase is the
  // emulator's own and varies from run to run: it cannot be the side that is made to fail).
  ASSERT_EQ(MakeCapture(t.path("cap"), {"--skew-us", "1:1:-5"}).exit_code, 0);
  std::vector<std::string> args = JoinArgs(t, t.path("cap"));
  args.push_back("--strict");
  auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("data issue: rank 1 launch 1:"));
  EXPECT_THAT(r.out, HasSubstr("outside the task slice"));
}

TEST(JoinCommand, ALaunchWithoutItsDumpsIsRefusedNotMatchedByGuess) {
  TempTree t;
  ASSERT_EQ(MakeCapture(t.path("cap"), {"--extra-slice"}).exit_code, 0);
  auto r = RunCli(JoinArgs(t, t.path("cap")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("2 launch(es) in the dumps, 3 task slice(s) of 'MoeDispatchCombine'"));
  EXPECT_FALSE(std::filesystem::exists(t.path("joined.pftrace")));
}

}  // namespace
}  // namespace optrace
