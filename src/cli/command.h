// The optrace command line: one binary, one file per subcommand.
//
// main() only calls RunOptrace(); tests call it too, with string streams, so every
// command's output and exit code can be checked in-process.
//
// Exit codes (SPEC section 8): 0 success, 1 the check ran and found problems,
// 2 bad usage or unreadable input, 3 an internal failure (out of memory, a bug): reported with a
// message, never an uncaught exception.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;

struct CommandIo {
  std::ostream& out;  // results
  std::ostream& err;  // diagnostics, progress
  bool err_is_terminal = false;
};

using CommandArgs = std::vector<std::string>;  // arguments after the command name

struct CommandInfo {
  std::string_view name;
  std::string_view summary;
  int (*run)(const CommandArgs& args, CommandIo& io);
};

const std::vector<CommandInfo>& AllCommands();

// argv without the program name: {"collect", "dumps/", "-o", "trace.json"}.
int RunOptrace(const std::vector<std::string>& argv, CommandIo& io);

// run() with what escapes it turned into a message and exit 3: out of memory says so (and what
// to try), any other exception is a bug to report.
int RunGuarded(std::string_view command, int (*run)(const CommandArgs&, CommandIo&), const CommandArgs& args,
               CommandIo& io);

// Prints "optrace <command>: error: <message>" to io.err; returns the exit code for it.
int ReportError(std::string_view command, const Status& status, CommandIo& io);

}  // namespace optrace::cli
