// Runs the optrace command line in-process for tests: exit code, stdout and stderr.
//
//   CliResult r = RunCli({"collect", dir, "-o", out});
//   EXPECT_EQ(r.exit_code, 2);
//   EXPECT_THAT(r.err, HasSubstr("rank3.bin"));
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/command.h"

namespace optrace::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline CliResult RunCli(const std::vector<std::string>& argv) {
  std::ostringstream out, err;
  cli::CommandIo io{out, err};
  CliResult r;
  r.exit_code = cli::RunOptrace(argv, io);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace optrace::testing
