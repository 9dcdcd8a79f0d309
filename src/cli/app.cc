#include <fmt/format.h>

#include <exception>
#include <new>
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

int RunGuarded(std::string_view command, int (*run)(const CommandArgs&, CommandIo&), const CommandArgs& args,
               CommandIo& io) {
  try {
    return run(args, io);
  } catch (const std::bad_alloc&) {
    io.err << "optrace " << command
           << ": error: out of memory; the input needs more memory than this machine gave: run it on fewer ranks or "
              "files at a time (or with more memory), and report the input if it is small\n";
  } catch (const std::exception& e) {
    io.err << "optrace " << command << ": internal error: " << e.what()
           << "; please report it with the command line\n";
  } catch (...) {
    io.err << "optrace " << command << ": internal error: an unknown exception; please report it with the command line\n";
  }
  return kExitInternal;
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
    if (c.name == name) return RunGuarded(c.name, c.run, CommandArgs(argv.begin() + 1, argv.end()), io);
  }
  io.err << "optrace: unknown command '" << name << "'\n\n";
  PrintUsage(io.err);
  return kExitBadInput;
}

}  // namespace optrace::cli
