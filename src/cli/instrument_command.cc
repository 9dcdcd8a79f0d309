// optrace instrument --op DIR [--plan FILE] [--entry FILE] [--dry-run] [--revert]
//                    [--check-compile [--sdk DIR] [--cxx COMPILER] [-I DIR]]
// Thin layer over source::Instrument / RevertInstrumentation: flags, diff or atomic writes; with
// --check-compile the compile check runs before and after the edits, which are undone when they
// add a compile error.
#include <fmt/format.h>

#include <optional>
#include <set>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "source/compile/compile_check.h"
#include "source/scan/modify.h"
#include "source/plan/instrument.h"
#include "source/plan/plan.h"

namespace optrace::cli {
namespace {
namespace fs = std::filesystem;

// The file still holds what instrument read (or, to undo, what it wrote): an edit saved since, e.g.
// during a compile check, is never overwritten.
Status CheckUnchanged(const source::FileChange& c, bool undo) {
  using Kind = source::FileChange::Kind;
  const std::string& expected = undo ? c.after : c.before;
  const bool absent_expected = undo ? c.kind == Kind::kRemove : c.kind == Kind::kCreate;
  std::error_code ec;
  if (absent_expected) {
    if (fs::exists(c.path, ec))
      return BadInputError("{}: appeared while instrument ran; nothing of it was changed, run instrument again", c.rel);
  } else {
    Result<std::string> now = ReadFileToString(c.path);
    if (!now.ok()) return now.status();
    if (*now != expected)
      return BadInputError("{}: changed on disk while instrument ran (an editor saved it?); it was left as it is now: "
                           "run instrument again",
                           c.rel);
  }
  return Status::Ok();
}

// Puts `c` into effect (or undoes it): writes the new text, creates the placed header, or removes it.
Status ApplyChange(const source::FileChange& c, bool undo) {
  using Kind = source::FileChange::Kind;
  OPTRACE_RETURN_IF_ERROR(CheckUnchanged(c, undo));
  std::error_code ec;
  const bool remove = undo ? c.kind == Kind::kCreate : c.kind == Kind::kRemove;
  if (remove) {
    if (!fs::remove(c.path, ec) && ec) return IoError("{}: cannot remove: {}", c.path.string(), ec.message());
    return Status::Ok();
  }
  return WriteFileAtomic(c.path, undo ? c.before : c.after);
}

// How the sources reach MoeTracing in the team's build, for the closing lines.
void SayHowTheHeaderReachesTheBuild(const source::InstrumentResult& r, std::ostream& os) {
  if (r.trace_header.empty()) return;
  if (r.tree_defines_tracing) {
    os << fmt::format("optrace instrument: MoeTracing comes from the tree's own {}: marks use its definitions, no "
                      "header of optrace's was added\n",
                      r.trace_header);
    return;
  }
  os << fmt::format("optrace instrument: {} holds optrace's device API (optrace {}, buffer format v{}); the sources "
                    "include it by a relative path, so the operator's build needs no -I for optrace and nothing "
                    "to add. Commit it with the sources; 'optrace instrument --revert' removes it\n",
                    r.trace_header, source::EmbeddedSingleHeaderInfo().version,
                    source::EmbeddedSingleHeaderInfo().format);
}

// "; kernel: ..., host: ..." when host sources were checked too: the two sides compile apart (a host
// source often stops at a header of a framework the machine lacks, while its kernel compiles).
std::string CompileSides(const source::CompileCheckReport& r) {
  if (r.UnitCount(true) == 0) return "";
  auto side = [&](bool host) {
    return fmt::format("{} {} compile(s), {} error(s), {} stopped at a fatal error", host ? "host" : "kernel",
                       r.UnitCount(host), r.ErrorCount(host), r.FatalCount(host));
  };
  return fmt::format(" ({}; {})", side(false), side(true));
}

}  // namespace

int RunInstrumentCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Insert the planned MoeTracing B/E marks into the operator's sources (or remove them with --revert)",
               "optrace instrument"};
  std::string op_dir, plan_file, entry;
  bool dry_run = false, revert = false, check_compile = false;
  std::string sdk, cxx;
  std::vector<std::string> include_dirs;
  int npu_arch = 2201;
  app.add_option("--op", op_dir, "operator directory (holds op_kernel/)")->required();
  app.add_option("--plan", plan_file, "JSON plan from `optrace plan --format json` (default: plan now)");
  app.add_option("--entry", entry, "kernel entry file when planning now");
  app.add_flag("--dry-run", dry_run, "print a unified diff, write nothing");
  app.add_flag("--revert", revert, "remove every line instrument inserted (ending in // optrace:auto:<tag> that matches the line)");
  app.add_flag("--check-compile", check_compile,
               "compile the kernel entries (CANN CPU-debug mode, per core type) and syntax-check the host sources "
               "it edits, before and after; refuse and undo the edits when they add a compile error");
  app.add_option("--sdk", sdk, "with --check-compile: the CANN toolkit folder (default: $ASCEND_HOME_PATH)");
  app.add_option("--cxx", cxx, "with --check-compile: the host compiler (default: $CXX, clang++, g++)");
  app.add_option("-I,--include-dir", include_dirs, "with --check-compile: the operator's include folders");
  app.add_option("--npu-arch", npu_arch, "with --check-compile: __NPU_ARCH__ of the CPU-debug build")
      ->check(CLI::IsMember({2002, 2201, 3510}));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  if (check_compile && (revert || dry_run)) {
    io.err << "optrace instrument: error: --check-compile compiles the instrumented tree; it takes no --revert or "
              "--dry-run\n";
    return kExitBadInput;
  }
  if ((!sdk.empty() || !cxx.empty() || !include_dirs.empty()) && !check_compile) {
    io.err << "optrace instrument: error: --sdk, --cxx and -I only apply to --check-compile\n";
    return kExitBadInput;
  }
  if (revert && !plan_file.empty()) {
    io.err << "optrace instrument: error: --revert takes no --plan (it removes every inserted mark)\n";
    return kExitBadInput;
  }
  source::PlanOptions options;
  options.op_dir = op_dir;
  options.entry = entry;
  Result<source::InstrumentResult> result = InternalError("unset");
  std::vector<source::PlanKernel> plan_kernels;
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
    plan_kernels = plan->kernels;
    result = source::Instrument(*plan);
  }
  if (!result.ok()) return ReportError("instrument", result.status(), io);
  for (const std::string& w : result->warnings) io.err << "optrace instrument: warning: " << w << "\n";
  // --check-compile: the units are the plan's kernels, on their core types.
  std::optional<source::CompileCheckOptions> compile;
  std::vector<source::CompileUnit> units;
  source::CompileCheckReport before;
  if (check_compile) {
    source::CompileCheckRequest request;
    request.sdk = sdk;
    request.cxx = cxx;
    request.op_root = op_dir;
    for (const std::string& d : include_dirs) request.include_dirs.emplace_back(d);
    request.npu_arch = npu_arch;
    Result<source::PreparedCompileCheck> prepared = source::PrepareCompileCheck(request);
    if (!prepared.ok()) return ReportError("instrument", prepared.status(), io);
    if (!prepared->options) {
      io.err << "optrace instrument: note: " << prepared->unchecked << "; the edits are not compile-checked\n";
    } else {
      compile = prepared->options;
      std::set<std::string> seen;
      for (const source::PlanKernel& k : plan_kernels) {
        if (!seen.insert(k.entry).second) {
          for (source::CompileUnit& u : units)
            if (u.entry == compile->op_root / k.entry) u.cores |= k.cores & 3u;
          continue;
        }
        source::CompileUnit u;
        u.entry = compile->op_root / k.entry;
        u.cores = (k.cores & 3u) ? (k.cores & 3u) : 3u;
        units.push_back(u);
      }
      // Host sources the chain edits (launchers, aclnn APIs, adapters, samples' main.cpp): syntax-checked
      // as host code. .cu / .asc / .cce hold device code a host compiler cannot read; headers are
      // checked through the sources that include them.
      for (const source::FileChange& c : result->changes) {
        const std::string ext = c.path.extension().string();
        if (ext != ".cpp" && ext != ".cc" && ext != ".cxx") continue;
        const fs::path abs = compile->op_root / c.rel;
        bool is_entry = false;
        for (const source::CompileUnit& u : units) is_entry = is_entry || u.entry == abs;
        if (!is_entry) units.push_back({abs, source::kCompileHost});
      }
      Result<source::CompileCheckReport> r = source::RunCompileCheck(*compile, units);
      if (!r.ok()) return ReportError("instrument", r.status(), io);
      before = std::move(*r);
    }
  }
  int marks = 0;
  if (!dry_run) {
    // Every file is checked before any is written: a read-only one, or one saved since it was read
    // (during the compile check), must not leave the tree half done.
    for (const source::FileChange& c : result->changes) {
      if (Status st = CheckWritable(c.path); !st.ok()) return ReportError("instrument", st, io);
      if (Status st = CheckUnchanged(c, false); !st.ok()) return ReportError("instrument", st, io);
    }
  }
  for (const source::FileChange& c : result->changes) {
    marks += c.inserted;
    if (dry_run) {
      io.out << source::UnifiedDiff(c.rel, c.before, c.after);
      continue;
    }
    Status st = ApplyChange(c, false);
    if (!st.ok()) return ReportError("instrument", st, io);
  }
  if (compile) {
    Result<source::CompileCheckReport> after = source::RunCompileCheck(*compile, units);
    if (!after.ok()) return ReportError("instrument", after.status(), io);
    std::vector<source::CompileError> fresh = source::NewCompileErrors(before, *after);
    if (!fresh.empty()) {
      for (const source::FileChange& c : result->changes) {
        Status st = CheckUnchanged(c, true);
        if (!st.ok()) return ReportError("instrument", st.WithContext("undoing the edits"), io);
      }
      for (const source::FileChange& c : result->changes) {
        Status st = ApplyChange(c, true);
        if (!st.ok()) return ReportError("instrument", st.WithContext("undoing the edits"), io);
      }
      for (const source::CompileError& e : fresh) {
        io.err << fmt::format("{}:{}:{}: error: {}{}\n", e.file, e.line, e.column, e.message,
                              e.optrace_made ? " [on a line optrace inserted or rewrote]" : "");
      }
      io.err << fmt::format(
          "optrace instrument: refused: the edits add {} compile error(s) ({}); the tree is as it was. Report this, "
          "or instrument without --check-compile and fix by hand\n",
          fresh.size(), after->sdk);
      io.err << fmt::format("optrace instrument: before the edits: {} compile(s), {} error(s){}{}\n", before.units.size(),
                            before.ErrorCount(),
                            before.FatalCount() > 0 ? fmt::format(", {} stopped at a fatal error", before.FatalCount())
                                                    : "",
                            CompileSides(before));
      return kExitFindings;
    }
    io.out << fmt::format("optrace instrument: compile check ({}): {} compile(s), {} error(s) before and after, none "
                          "new{}{}\n",
                          after->sdk, after->units.size(), after->ErrorCount(),
                          after->FatalCount() > 0
                              ? fmt::format("; {} stopped at a fatal error (a missing header: pass -I), so only what "
                                            "precedes it was compared",
                                            after->FatalCount())
                              : "",
                          CompileSides(*after));
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
  if (!revert) SayHowTheHeaderReachesTheBuild(*result, summary);
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
