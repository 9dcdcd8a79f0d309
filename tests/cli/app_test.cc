#include <gtest/gtest.h>

#include "testing/cli_runner.h"

namespace optrace::cli {
namespace {
using ::optrace::testing::RunCli;

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
