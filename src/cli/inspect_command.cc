// optrace inspect INPUT... [--format json]: per-slot table and a verdict per dump file.
#include <ostream>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "collect/inspect.h"

namespace optrace::cli {

int RunInspectCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Show what each slot of a profiling dump holds, with a verdict per file: valid, empty (never "
               "synchronised?), overflowed, corrupt. Exit 1 when any file is not valid.",
               "optrace inspect"};
  std::vector<std::string> inputs;
  std::string format = "text";
  double clock_mhz = 50;
  app.add_option("inputs", inputs, "dump files or directories holding rank<N>.bin / rank<N>.pt")->required();
  app.add_option("--clock-mhz", clock_mhz, "counter frequency of legacy dumps in MHz (default 50)")
      ->check(FiniteRange(0.001, 100000));
  app.add_option("--format", format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  Result<std::vector<collect::FileReport>> files = collect::InspectDumps(inputs, clock_mhz);
  if (!files.ok()) return ReportError("inspect", files.status(), io);
  io.out << (format == "json" ? collect::InspectToJson(*files) : collect::FormatInspectText(*files));
  for (const collect::FileReport& f : *files) {
    if (f.verdict != collect::Verdict::kValid) return kExitFindings;
  }
  return kExitOk;
}

}  // namespace optrace::cli
