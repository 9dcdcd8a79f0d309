// optrace stall: PC-sampling stall reason shares over all samples and over not-issued samples.
#include <ostream>

#include "cli/cli_parse.h"
#include "core/json_text.h"
#include "cli/commands.h"
#include "evidence/stall/stall.h"

namespace optrace::cli {

int RunStallCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Stall reason shares from a PC-sampling summary CSV (reason, count[, core, pc, source])",
               "optrace stall"};
  std::string input, format = "text";
  app.add_option("csv", input, "stall CSV: one row per (core, location, reason) with a sample count")->required();
  app.add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  auto table = evidence::ReadStallCsv(input);
  if (!table.ok()) return ReportError("stall", table.status(), io);
  evidence::StallReport report = evidence::AnalyzeStalls(*table);
  if (format == "json") {
    io.out << JsonText(evidence::StallJson(*table, report)) << "\n";
  } else {
    evidence::WriteStallText(*table, report, io.out);
  }
  for (const std::string& w : report.warnings) io.err << "optrace stall: warning: " << w << "\n";
  return kExitOk;
}

}  // namespace optrace::cli
