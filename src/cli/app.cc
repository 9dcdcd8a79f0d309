#include <fmt/format.h>

#include <ostream>

#include "cli/command.h"

#ifndef OPTRACE_VERSION
#define OPTRACE_VERSION "0.0.0"
#endif

namespace optrace::cli {
namespace {

void PrintUsage(std::ostream& os) {
  os << "optrace " OPTRACE_VERSION ": see inside accelerator kernels and runs\n\n"
     << "Usage: optrace <command> [options]   (optrace <command> --help for details)\n\n"
     << "Commands:\n";
  for (const CommandInfo& c : AllCommands()) os << fmt::format("  {:<11} {}\n", c.name, c.summary);
}

}  // namespace

int ReportError(std::string_view command, const Status& status, CommandIo& io) {
  io.err << "optrace " << command << ": error: " << status.message() << "\n";
  return status.code() == StatusCode::kInternal ? kExitFindings + 2 : kExitBadInput;
}

int RunOptrace(const std::vector<std::string>& argv, CommandIo& io) {
  if (argv.empty()) {
    PrintUsage(io.err);
    return kExitBadInput;
  }
  const std::string& name = argv[0];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(io.out);
    return kExitOk;
  }
  if (name == "--version" || name == "version") {
    io.out << "optrace " OPTRACE_VERSION "\n";
    return kExitOk;
  }
  for (const CommandInfo& c : AllCommands()) {
    if (c.name == name) return c.run(CommandArgs(argv.begin() + 1, argv.end()), io);
  }
  io.err << "optrace: unknown command '" << name << "'\n\n";
  PrintUsage(io.err);
  return kExitBadInput;
}

}  // namespace optrace::cli
