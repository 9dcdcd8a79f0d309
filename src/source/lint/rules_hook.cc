// Gate G1 rules: the build script (shell or CMake) the operator is compiled with regenerates
// point_map.json on every build (the hook), and in a tree whose TRACE_POINT is seed 000's `0` fallback the hook also
// rewrites the marks into ids.
//   hook-installed  the build script has a well-formed hook block (a missing block is reported
//                   only with --gates: before instrumentation it is expected);
//   hook-modify     a rewrite-only tree's hook rewrites (scan --modify, trace_preprocessor --modify).
#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "core/file_io.h"
#include "source/hook/hook.h"
#include "source/lint/lint_context.h"
#include "source/lexer/trace_define.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace {

// Build scripts of the operator: compile*.sh / build*.sh (or any .sh or CMake file holding a hook
// block) within three levels of the operator directory, and its top CMakeLists.txt when no shell
// script builds it (a CMake-built operator); hidden folders and build output (build_out, a folder
// holding CMakeCache.txt) skipped. A folder named build is searched: CANN's own samples keep their
// build script there.
std::vector<fs::path> FindBuildScripts(const fs::path& dir, std::string* walk_error) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (it.depth() >= 2 || name.empty() || name[0] == '.' || name == "build_out" || name == "__pycache__" ||
          fs::exists(it->path() / "CMakeCache.txt", ec))
        it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    const bool shell = it->path().extension() == ".sh";
    const bool cmake = HookKindOf(it->path()) == HookKind::kCMake;
    if (!shell && !cmake) continue;
    bool named = shell && (name.rfind("compile", 0) == 0 || name.rfind("build", 0) == 0);
    if (!named) {
      Result<std::string> text = ReadFileToString(it->path());
      if (!text.ok() || text->find(kHookStart) == std::string::npos) continue;
    }
    out.push_back(it->path().lexically_normal());
  }
  // A failed step ends the loop with `it` at the end: say so rather than judge on a partial list.
  if (ec && walk_error) *walk_error = fmt::format("{}: {}", dir.string(), ec.message());
  if (out.empty() && fs::is_regular_file(dir / "CMakeLists.txt", ec)) out.push_back((dir / "CMakeLists.txt").lexically_normal());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void CheckHook(LintContext& ctx, const fs::path& build_script) {
  GateFacts& facts = ctx.facts;
  for (const SourceFile* f : ctx.files) {
    if (auto d = FindRewriteOnlyDefine(*f->text, f->rel)) {
      facts.rewrite_only = fmt::format("{}:{} `{}`", d->file, d->line, d->text);
      break;
    }
  }
  std::vector<fs::path> scripts;
  if (!build_script.empty()) {
    scripts.push_back(ResolveAgainstCwd(build_script));
  } else if (!ctx.op_dir.empty()) {
    std::string walk_error;
    scripts = FindBuildScripts(ctx.root, &walk_error);
    if (!walk_error.empty()) {
      ctx.Report(".", 0, 0, "hook-installed",
                 fmt::format("the search for build scripts stopped: {}; G1 is judged on those found before it",
                             walk_error));
    }
  }
  for (const fs::path& path : scripts) {
    std::string rel = ctx.sources->Relative(path);
    facts.build_scripts.push_back(rel);
    Result<std::string> text = ReadFileToString(path);
    if (!text.ok()) {
      ctx.Report(rel, 0, 0, "hook-installed", text.status().message());
      continue;
    }
    HookStatus st = VerifyHook(*text);
    if (!st.problem.empty()) {
      ctx.Report(rel, st.start_line > 0 ? st.start_line : 1, 1, "hook-installed",
                 fmt::format("the hook block is broken: {}; run 'optrace hook remove --script {}' and install it again",
                             st.problem, rel));
      continue;
    }
    if (!st.present) {
      if (ctx.gates) {
        ctx.Report(rel, 1, 1, "hook-installed",
                   fmt::format("{} never regenerates point_map.json, so the map can drift from the binary it "
                               "builds; run 'optrace hook install --script {}'{}",
                               rel, rel, facts.rewrite_only.empty() ? "" : " (it adds --modify: see below)"));
      }
      continue;
    }
    facts.hooked = true;
    if (!facts.rewrite_only.empty() && !st.rewrites) {
      ctx.Report(rel, st.start_line, 1, "hook-modify",
                 fmt::format("{} makes TRACE_POINT a constant, so ids exist only once the build rewrites every mark, "
                             "but this hook only scans: the binary records id 0 and no map matches it; run "
                             "'optrace hook install --script {} --modify'",
                             facts.rewrite_only, rel));
    }
  }
}

}  // namespace optrace::source
