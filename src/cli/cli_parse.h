// Parsing a subcommand's flags with CLI11, writing help and usage errors to CommandIo.
//
//   CLI::App app{"Collect dumps into a trace", "optrace collect"};
//   app.add_option("-o,--output", out, "trace file")->required();
//   if (auto exit = ParseCommandLine(app, args, io)) return *exit;
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

#include "cli/command.h"

namespace optrace::cli {

// Returns an exit code when the command should stop now (help printed: 0; usage error: 2),
// or nullopt when parsing succeeded.
std::optional<int> ParseCommandLine(CLI::App& app, const CommandArgs& args, CommandIo& io);

// A finite number in [lo, hi]: unlike CLI::Range, rejects nan and inf (`--clock-mhz nan`).
CLI::Validator FiniteRange(double lo, double hi);

// The one rule for every command's outputs: none may be one of its inputs (SPEC section 9). Each
// output is a flag and the file it writes ("" entries are skipped); a directory output lists
// the files it writes inside it. Inputs are every path the command reads. Prints the usage
// error and returns 2, or nullopt.
std::optional<int> RefuseOutputsThatAreInputs(std::string_view command,
                                              const std::vector<std::pair<std::string, std::string>>& outputs,
                                              const std::vector<std::string>& inputs, CommandIo& io);

}  // namespace optrace::cli
