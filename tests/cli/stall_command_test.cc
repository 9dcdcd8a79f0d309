#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/cli_runner.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/stall/" + name; }

TEST(StallCommandTest, TextLabelsBothDenominators) {
  auto r = RunCli({"stall", Data("stalls.csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"of all\" = samples / all samples (200); \"of not issued\" = samples / not-issued "
                               "samples (130), active excluded"));
  EXPECT_THAT(r.out, HasSubstr("Stall_IBuf_Empty                       40    20.0%          30.8%"));
  EXPECT_THAT(r.out, HasSubstr("elastic_dispatch.cpp:150"));
}

TEST(StallCommandTest, JsonCarriesBothSharesAndNullForActive) {
  auto r = RunCli({"stall", Data("stalls.csv"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["overall"]["all_samples"], 200);
  EXPECT_EQ(j["overall"]["not_issued_samples"], 130);
  const auto& active = j["overall"]["reasons"][7];
  EXPECT_EQ(active["reason"], "active");
  EXPECT_TRUE(active["share_of_not_issued_samples"].is_null());
  EXPECT_DOUBLE_EQ(j["overall"]["reasons"][2]["share_of_not_issued_samples"].get<double>(), 40.0 / 130);
  EXPECT_EQ(j["per_core"].size(), 2u);
  EXPECT_EQ(j["per_location"][0]["location"], "elastic_dispatch.cpp:120");
  EXPECT_DOUBLE_EQ(j["per_location"][0]["share_of_file_samples"].get<double>(), 0.5);
}

TEST(StallCommandTest, UnknownReasonWarnsOnStderr) {
  auto r = RunCli({"stall", Data("file_line_unknown.csv")});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("unknown stall reason 'Stall_Mystery'"));
}

TEST(StallCommandTest, BadCountExitsTwo) {
  auto r = RunCli({"stall", Data("bad_count.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("bad_count.csv:3: count 'many'"));
}

TEST(StallCommandTest, MissingColumnExitsTwo) {
  auto r = RunCli({"stall", Data("no_count.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no count (or samples) column"));
}

TEST(StallCommandTest, EmptyFileExitsTwo) {
  auto r = RunCli({"stall", std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/latency/empty.csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("empty.csv: empty file"));
}

}  // namespace
}  // namespace optrace
