#include "cli/cli_parse.h"

#include <algorithm>
#include <ostream>

namespace optrace::cli {

std::optional<int> ParseCommandLine(CLI::App& app, const CommandArgs& args, CommandIo& io) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them reversed
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    io.out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    io.out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    io.err << app.get_name() << ": error: " << e.what() << "\n"
           << "Run '" << app.get_name() << " --help' for usage.\n";
    return kExitBadInput;
  }
  return std::nullopt;
}

}  // namespace optrace::cli
