#include <gtest/gtest.h>

#include <new>
#include <sstream>
#include <stdexcept>

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

// Issue 53.8: no uncaught exception in any command. Out of memory is exit 3 with a message.
TEST(AppTest, OutOfMemoryInACommandIsExit3WithAMessage) {
  std::ostringstream out, err;
  CommandIo io{out, err, false};
  const int rc = RunGuarded("analyze", [](const CommandArgs&, CommandIo&) -> int { throw std::bad_alloc(); }, {}, io);
  EXPECT_EQ(rc, kExitInternal);
  EXPECT_NE(err.str().find("optrace analyze: error: out of memory"), std::string::npos) << err.str();
}

TEST(AppTest, AnyOtherExceptionIsExit3AskingForAReport) {
  std::ostringstream out, err;
  CommandIo io{out, err, false};
  const int rc =
      RunGuarded("scan", [](const CommandArgs&, CommandIo&) -> int { throw std::runtime_error("boom"); }, {}, io);
  EXPECT_EQ(rc, kExitInternal);
  EXPECT_NE(err.str().find("optrace scan: internal error: boom; please report it"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace optrace::cli
