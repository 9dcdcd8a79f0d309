// optrace plan --op DIR [--entry FILE] [-I DIR] [--format text|json] [-o FILE]
// Thin layer over source::BuildPlan: flags, printing, exit codes (1 when density is not met).
#include <fmt/format.h>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "source/plan/plan.h"

namespace optrace::cli {

int RunPlanCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Plan trace points: the call tree from the kernel entry with a decision and label per node",
               "optrace plan"};
  std::string op_dir, entry, format = "text", output;
  std::vector<std::string> includes;
  app.add_option("--op", op_dir, "operator directory (holds op_kernel/)")->required();
  app.add_option("--entry", entry, "one kernel entry file (default: every .cpp/.cc/.cu/.asc with __global__)");
  app.add_option("-I", includes, "include directory the build uses (repeatable)");
  app.add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("-o,--output", output, "write the plan here instead of stdout");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  {
    std::vector<std::string> ins{op_dir, entry};
    ins.insert(ins.end(), includes.begin(), includes.end());
    if (auto rc = RefuseOutputsThatAreInputs("plan", {{"-o", output}}, ins, io)) return *rc;
  }
  source::PlanOptions options;
  options.op_dir = op_dir;
  options.entry = entry;
  for (const std::string& i : includes) options.include_dirs.push_back(ResolveAgainstCwd(i));
  Result<source::Plan> plan = source::BuildPlan(options);
  if (!plan.ok()) return ReportError("plan", plan.status(), io);
  std::string text = format == "json" ? source::PlanToJson(*plan) : source::FormatPlanText(*plan);
  if (!output.empty()) {
    Status st = WriteFileAtomic(ResolveAgainstCwd(output), text);
    if (!st.ok()) return ReportError("plan", st, io);
    size_t sites = 0;
    for (const source::PlanSite& s : plan->sites) sites += source::Inserts(s.decision) && !s.label.empty();
    io.err << fmt::format("optrace plan: wrote {} ({} kernel(s), {} site(s) to instrument)\n", output,
                          plan->kernels.size(), sites);
  } else {
    io.out << text;
  }
  // The text plan carries its warnings; elsewhere they go to stderr.
  if (format == "json" || !output.empty())
    for (const std::string& w : plan->warnings) io.err << "optrace plan: warning: " << w << "\n";
  return kExitOk;
}

}  // namespace optrace::cli
