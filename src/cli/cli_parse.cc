#include "cli/cli_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>

#include "core/file_io.h"

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

std::optional<int> RefuseOutputsThatAreInputs(std::string_view command,
                                              const std::vector<std::pair<std::string, std::string>>& outputs,
                                              const std::vector<std::string>& inputs, CommandIo& io) {
  std::vector<std::filesystem::path> in;
  for (const std::string& i : inputs)
    if (!i.empty()) in.push_back(ResolveAgainstCwd(i));
  for (const auto& [flag, path] : outputs) {
    if (path.empty()) continue;
    if (Status st = CheckNotAnInput(flag, ResolveAgainstCwd(path), in); !st.ok())
      return ReportError(std::string(command), st, io);
  }
  return std::nullopt;
}

}  // namespace optrace::cli
