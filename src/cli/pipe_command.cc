// optrace pipe: per-role summaries of msprof op (OPPROF) per-core metric CSVs.
#include <fmt/format.h>

#include <ostream>

#include "cli/cli_parse.h"
#include "core/json_text.h"
#include "cli/commands.h"
#include "evidence/pipe/opprof.h"
#include "evidence/pipe/pipe_summary.h"

namespace optrace::cli {

int RunPipeCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Per-role summaries (mean, min, max, spread) of msprof op metrics: PipeUtilization.csv and siblings",
               "optrace pipe"};
  std::vector<std::string> inputs, compare;
  std::string roles_path, format = "text";
  app.add_option("input", inputs, "OPPROF_* directory or msprof op CSV files of one run")->required();
  app.add_option("--roles", roles_path, "roles file: one 'name: aic|aiv A-B[,C]' per line (default: one role per core kind)");
  app.add_option("--compare", compare, "a second run (directory or CSVs): per-role deltas of the means");
  app.add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;

  std::optional<RoleMap> roles;
  if (!roles_path.empty()) {
    auto r = LoadRoles(roles_path);
    if (!r.ok()) return ReportError("pipe", r.status(), io);
    roles = std::move(*r);
  }
  auto load = [](const std::vector<std::string>& paths) {
    return evidence::LoadOpprof(std::vector<std::filesystem::path>(paths.begin(), paths.end()));
  };
  auto base_run = load(inputs);
  if (!base_run.ok()) return ReportError("pipe", base_run.status(), io);
  evidence::PipeSummary base = evidence::SummarizePipe(*base_run, roles ? &*roles : nullptr);
  if (Status st = evidence::CheckEveryTableYields(base); !st.ok()) return ReportError("pipe", st, io);
  std::optional<evidence::PipeSummary> other;
  std::vector<evidence::MetricDelta> deltas;
  if (!compare.empty()) {
    auto run = load(compare);
    if (!run.ok()) return ReportError("pipe", run.status().WithContext("--compare"), io);
    other = evidence::SummarizePipe(*run, roles ? &*roles : nullptr);
    if (Status st = evidence::CheckEveryTableYields(*other); !st.ok()) {
      return ReportError("pipe", st.WithContext("--compare"), io);
    }
    deltas = evidence::ComparePipe(base, *other);
  }
  if (format == "json") {
    io.out << JsonText(evidence::PipeJson(base, other ? &*other : nullptr, other ? &deltas : nullptr)) << "\n";
  } else {
    evidence::WritePipeText(base, other ? &deltas : nullptr, io.out);
  }
  for (const evidence::RoleInfo& r : base.roles) {
    if (!r.missing.empty()) {
      io.err << fmt::format("optrace pipe: warning: role '{}' declares {} but the export has no rows for them\n", r.name,
                            r.missing);
    }
  }
  return kExitOk;
}

}  // namespace optrace::cli
