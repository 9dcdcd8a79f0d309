// optrace instrument --op DIR [--plan FILE] [--entry FILE] [--dry-run] [--revert]
// Thin layer over source::Instrument / RevertInstrumentation: flags, diff or atomic writes.
#include <fmt/format.h>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "source/modify.h"
#include "source/plan/instrument.h"
#include "source/plan/plan.h"

namespace optrace::cli {

int RunInstrumentCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Insert the planned MoeTracing B/E marks into the operator's sources (or remove them with --revert)",
               "optrace instrument"};
  std::string op_dir, plan_file, entry;
  bool dry_run = false, revert = false;
  app.add_option("--op", op_dir, "operator directory (holds op_kernel/)")->required();
  app.add_option("--plan", plan_file, "JSON plan from `optrace plan --format json` (default: plan now)");
  app.add_option("--entry", entry, "kernel entry file when planning now");
  app.add_flag("--dry-run", dry_run, "print a unified diff, write nothing");
  app.add_flag("--revert", revert, "remove every line instrument inserted (ending in // optrace:auto:<tag> that matches the line)");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  if (revert && !plan_file.empty()) {
    io.err << "optrace instrument: error: --revert takes no --plan (it removes every inserted mark)\n";
    return kExitBadInput;
  }
  source::PlanOptions options;
  options.op_dir = op_dir;
  options.entry = entry;
  Result<source::InstrumentResult> result = InternalError("unset");
  if (revert) {
    std::filesystem::path dir = ResolveAgainstCwd(op_dir);
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      return ReportError("instrument", NotFoundError("{}: not a directory; pass the operator directory", op_dir), io);
    result = source::RevertInstrumentation(dir);
  } else {
    Result<source::Plan> plan = InternalError("unset");
    if (plan_file.empty()) {
      plan = source::BuildPlan(options);
    } else {
      Result<std::string> text = ReadFileToString(ResolveAgainstCwd(plan_file));
      if (!text.ok()) return ReportError("instrument", text.status(), io);
      plan = source::PlanFromJson(*text, plan_file);
      if (plan.ok()) {
        // The plan's paths are relative to the operator directory given here.
        plan->op_dir = ResolveAgainstCwd(op_dir).lexically_normal();
        if (plan->kernels.empty()) {
          Result<source::Plan> fresh = source::BuildPlan(options);
          if (fresh.ok()) plan->kernels = fresh->kernels;
        }
      }
    }
    if (!plan.ok()) return ReportError("instrument", plan.status(), io);
    result = source::Instrument(*plan);
  }
  if (!result.ok()) return ReportError("instrument", result.status(), io);
  for (const std::string& w : result->warnings) io.err << "optrace instrument: warning: " << w << "\n";
  int marks = 0;
  if (!dry_run) {
    // Every file is checked before any is written: a read-only one must not leave the tree half done.
    for (const source::FileChange& c : result->changes)
      if (Status st = CheckWritable(c.path); !st.ok()) return ReportError("instrument", st, io);
  }
  for (const source::FileChange& c : result->changes) {
    marks += c.inserted;
    if (dry_run) {
      io.out << source::UnifiedDiff(c.rel, c.before, c.after);
      continue;
    }
    Status st = WriteFileAtomic(c.path, c.after);
    if (!st.ok()) return ReportError("instrument", st, io);
  }
  std::ostream& summary = dry_run ? io.err : io.out;
  if (!revert && !result->chain_done.empty()) {
    summary << "optrace instrument: profiling chain (the operator had no profiling output):\n";
    for (const std::string& d : result->chain_done) summary << "  " << d << "\n";
  }
  if (!revert && !result->chain_manual.empty()) {
    summary << "optrace instrument: to finish by hand:\n";
    for (const std::string& m : result->chain_manual) summary << "  " << m << "\n";
  }
  if (revert) {
    summary << fmt::format("optrace instrument: {} {} line(s) in {} file(s)\n", dry_run ? "would remove" : "removed",
                           marks, result->changes.size());
  } else {
    summary << fmt::format("optrace instrument: {} {} site(s), {} mark(s) in {} file(s){}\n",
                           dry_run ? "would instrument" : "instrumented", result->sites, marks,
                           result->changes.size(), result->changes.empty() ? " (already up to date)" : "");
  }
  return kExitOk;
}

}  // namespace optrace::cli
