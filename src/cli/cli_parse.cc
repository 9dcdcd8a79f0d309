#include "cli/cli_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

CLI::Validator FiniteRange(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) {
          return fmt::format("{} is not a number from {} to {}", text, lo, hi);
        }
        return {};
      },
      fmt::format("FLOAT in [{} - {}]", lo, hi));
}

}  // namespace optrace::cli
