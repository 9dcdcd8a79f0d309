// optrace samples -o DIR [--force]
// Writes the sample inputs the binary carries (an operator tree, its kernel without trace marks,
// profiler captures, dispatch-evidence exports; DIR/README.md says what each is), so every command
// and every skill's example can be tried on a machine with no NPU and no optrace source tree.
#include <fmt/format.h>

#include "bundle/embedded.h"
#include "bundle/install_files.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"

namespace optrace::cli {

int RunSamplesCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Write sample inputs of every kind optrace reads (an AscendC operator, its kernel without trace marks, "
               "torch_npu captures, msprof op exports, latency CSVs) into a folder; its README.md says what each is",
               "optrace samples"};
  std::string out_dir;
  bool force = false;
  app.add_option("-o,--output", out_dir, "folder to write them into (made if missing)")->required();
  app.add_flag("--force", force, "replace files that differ from the shipped ones");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  const std::filesystem::path dir = ResolveAgainstCwd(out_dir);
  Result<bundle::InstallReport> report = bundle::InstallFiles(bundle::SampleFiles(), dir, force);
  if (!report.ok()) return ReportError("samples", report.status(), io);
  io.out << fmt::format("{}: {} files written, {} replaced, {} unchanged; {}/README.md says what each is\n", out_dir,
                        report->written.size(), report->replaced.size(), report->unchanged.size(), out_dir);
  return kExitOk;
}

}  // namespace optrace::cli
