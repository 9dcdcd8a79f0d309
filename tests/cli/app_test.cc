#include <gtest/gtest.h>

#include "testing/cli_runner.h"

namespace optrace::cli {
namespace {
using ::optrace::testing::RunCli;

// docs/json-output.md: every command that prints a table offers --format json.
TEST(AppTest, EveryTablePrintingCommandOffersFormatJson) {
  for (const char* cmd : {"lint", "plan", "scan", "collect", "inspect", "explain", "latency", "pipe", "stall",
                          "timeline", "env"}) {
    auto r = RunCli({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("--format"), std::string::npos) << cmd;
    EXPECT_NE(r.out.find("json"), std::string::npos) << cmd;
  }
}

TEST(AppTest, VersionPrintsNameAndVersion) {
  auto r = RunCli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("optrace ", 0), 0u);
}

TEST(AppTest, UnknownCommandIsUsageErrorListingCommands) {
  auto r = RunCli({"frobnicate"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_NE(r.err.find("collect"), std::string::npos);
}

TEST(AppTest, NoArgumentsPrintsUsageAndFails) {
  auto r = RunCli({});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_NE(r.err.find("Usage: optrace <command>"), std::string::npos);
}

}  // namespace
}  // namespace optrace::cli
