// `lint --compile`: the compile check (source/compile/compile_check.h) over the kernel entries
// lint found, its errors as findings (compile-error, compile-inserted), and a note when it
// could not run (compile-unchecked): no SDK, an SDK without CPU-debug headers, no compiler.
#include <fmt/format.h>

#include "source/compile/compile_check.h"
#include "source/index/call_graph.h"
#include "source/index/code_index.h"
#include "source/index/core_types.h"
#include "source/lexer/trace_header.h"
#include "source/lint/lint_context.h"

namespace optrace::source {
namespace fs = std::filesystem;

Status CheckCompiles(LintContext& ctx, const LintOptions& options, LintReport* report) {
  const std::string where = ctx.tree ? ctx.tree->entry->rel : std::string();
  auto unchecked = [&](std::string why) { ctx.Report(where, 0, 0, "compile-unchecked", std::move(why)); };
  if (ctx.trees.empty()) {
    unchecked("compile check: no kernel entry (a file with a __global__ function) to compile");
    return Status::Ok();
  }
  CompileCheckRequest request;
  request.sdk = options.sdk;
  request.cxx = options.cxx;
  request.op_root = ctx.root;
  request.include_dirs = options.include_dirs;
  request.npu_arch = options.npu_arch;
  OPTRACE_ASSIGN_OR_RETURN(PreparedCompileCheck prepared, PrepareCompileCheck(request));
  if (!prepared.options) {
    unchecked(prepared.unchecked + "; G3 stays with the team's full build");
    return Status::Ok();
  }
  // One unit per entry file, on the core types its kernels run on (both when unknown).
  std::vector<CompileUnit> units;
  const std::vector<index::CallGraph>& graphs = ctx.Graphs();
  for (const IncludeTree& t : ctx.trees) {
    unsigned cores = 0;
    for (const index::CallGraph& g : graphs)
      if (g.root().inst.fn && g.root().inst.fn->file == t.entry) cores |= g.kernel_type().cores;
    CompileUnit u;
    u.entry = t.entry->path;
    u.cores = 0;
    if (cores & index::kCoreAic) u.cores |= kCompileAic;
    if (cores & index::kCoreAiv) u.cores |= kCompileAiv;
    if (u.cores == 0) u.cores = kCompileAic | kCompileAiv;
    units.push_back(u);
  }
  const CompileCheckOptions& co = *prepared.options;
  Result<CompileCheckReport> run = RunCompileCheck(co, units);
  if (!run.ok()) return run.status();
  for (const CompileUnitResult& u : run->units) {
    if (u.timed_out) {
      unchecked(fmt::format("compile check of {} ({}) stopped at the {} s limit", u.entry, u.core,
                            static_cast<long>(co.timeout.count())));
    }
    for (const CompileError& e : u.errors) {
      std::string message =
          fmt::format("{} ({} {}, {})", e.message, co.sdk.kind == SdkKind::kEmulator ? "emulator device view" : "CPU-debug",
                      u.core, fs::path(run->compiler).filename().string());
      if (e.optrace_made) {
        message += fs::path(e.file).filename() == kSingleHeaderName ? "; in optrace's device header"
                                                                     : "; on a line optrace inserted or rewrote";
      }
      ctx.Report(e.file, e.line, e.column, e.optrace_made ? "compile-inserted" : "compile-error", std::move(message));
    }
  }
  ctx.facts.compile_check = fmt::format("{} compile(s) in CPU-debug mode against {}{}", run->units.size(), run->sdk,
                                        run->tiling_standin.empty()
                                            ? ""
                                            : fmt::format(", with a stand-in for the generated tiling header ({})",
                                                          run->tiling_standin));
  report->compile = std::move(*run);
  return Status::Ok();
}

}  // namespace optrace::source
