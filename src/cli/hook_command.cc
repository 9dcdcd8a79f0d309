// optrace hook install|verify|remove --script FILE [--after REGEX] [--command CMD] [--optrace PATH] [--modify]
//              [--sources DIR] [--dry-run]
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/cli_parse.h"
#include "core/json_text.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "source/hook/hook.h"
#include "source/scan/modify.h"
#include "source/lexer/trace_define.h"

namespace optrace::cli {

int RunHookCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Insert, check or remove the point-map step in an operator's build script (gate G1)", "optrace hook"};
  std::string action, script, format = "text";
  source::HookSpec spec;
  bool dry_run = false;
  app.add_option("ACTION", action, "install, verify or remove")
      ->required()
      ->check(CLI::IsMember({"install", "verify", "remove"}));
  app.add_option("--script", script, "the build script, e.g. compile_ascend_proj.sh")->required();
  app.add_option("--after", spec.after_regex,
                 "insert after the first line matching this regex (default: after the step that copies operator "
                 "sources, before build.sh)");
  app.add_option("--command", spec.command,
                 "hook body (default: optrace scan <script dir>/op_kernel -o <script dir>/point_map.json)");
  app.add_option("--optrace", spec.optrace_path,
                 "optrace the hook runs when $OPTRACE is unset (default: optrace, looked up on PATH; the hook is "
                 "committed and runs on other machines, so a path of this machine would break there)");
  app.add_flag("--modify", spec.modify,
               "the hook also rewrites TRACE_POINT(...) into ids in the compiled copy (scan --modify); chosen by "
               "itself when the tree's TRACE_POINT is a `0` fallback");
  std::string sources;
  app.add_option("--sources", sources,
                 "operator sources to look for a legacy `#define TRACE_POINT(label, event) 0` in (default: the "
                 "script's directory)");
  app.add_flag("--dry-run", dry_run, "print the change as a unified diff, write nothing");
  app.add_option("--format", format, "verify output format")->check(CLI::IsMember({"text", "json"}));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  std::filesystem::path path = ResolveAgainstCwd(script);
  spec.kind = source::HookKindOf(path);
  if (spec.kind == source::HookKind::kCMake) {
    std::error_code ec;
    spec.cmake_sources = std::filesystem::is_directory(path.parent_path() / "op_kernel", ec) ? "op_kernel" : "";
  }
  if (action == "install" && !spec.optrace_path.empty() && spec.optrace_path.front() == '/')
    io.err << fmt::format("optrace hook: warning: the hook will name {}, a path of this machine; on other machines "
                          "and in CI set OPTRACE or put optrace on PATH (or install without --optrace)\n",
                          spec.optrace_path);
  Result<std::string> text = ReadFileToString(path);
  if (!text.ok()) return ReportError("hook", text.status(), io);

  // A legacy tree (seed 000's `#define TRACE_POINT(label, event) 0`) gets ids only from the rewrite:
  // a hook that just scans would leave every mark 0 in the binary, and no map could match it.
  std::filesystem::path script_dir = sources.empty() ? path.parent_path() : ResolveAgainstCwd(sources);
  Result<std::optional<source::RewriteOnlyDefine>> legacy = source::FindRewriteOnlyDefineUnder(script_dir);
  if (!legacy.ok()) return ReportError("hook", legacy.status(), io);
  std::string legacy_where =
      *legacy ? fmt::format("{}:{}", (script_dir / (*legacy)->file).lexically_relative(ResolveAgainstCwd(".")).generic_string(),
                            (*legacy)->line)
              : "";

  if (action == "verify") {
    source::HookStatus st = source::VerifyHook(*text);
    std::string no_rewrite;
    if (st.present && st.problem.empty() && *legacy && !st.rewrites) {
      no_rewrite = fmt::format("{} defines `{}`: ids come only from rewriting the sources, but the hook never "
                               "rewrites them (every mark would record id 0); reinstall with 'optrace hook install "
                               "--script {} --modify'",
                               legacy_where, (*legacy)->text, script);
    }
    bool ok = st.present && st.problem.empty() && no_rewrite.empty() && st.optrace_found;
    if (format == "json") {
      nlohmann::json j = {{"schema_version", 1}, {"script", script},         {"present", st.present},
                          {"start_line", st.start_line}, {"end_line", st.end_line}, {"optrace", st.optrace_path},
                          {"optrace_found", st.optrace_found}, {"rewrites", st.rewrites},
                          {"problem", st.problem.empty() ? no_rewrite : st.problem}, {"ok", ok}};
      io.out << JsonText(j) << "\n";
      return ok ? kExitOk : kExitFindings;
    }
    if (!st.problem.empty()) {
      io.out << fmt::format("{}: hook markers are broken: {}\n", script, st.problem);
    } else if (!no_rewrite.empty()) {
      io.out << fmt::format("{}: the hook at lines {}-{} does not rewrite the marks: {}\n", script, st.start_line,
                            st.end_line, no_rewrite);
    } else if (!st.present) {
      io.out << fmt::format("{}: no hook ({} ... {} absent); run 'optrace hook install --script {}'\n", script,
                            source::kHookStart, source::kHookEnd, script);
    } else {
      io.out << fmt::format("{}: hook present at lines {}-{}\n", script, st.start_line, st.end_line);
      if (st.optrace_path.empty()) {
        io.out << "  the hook does not name an optrace binary it runs\n";
      } else {
        io.out << fmt::format("  runs {} ({})\n", st.optrace_path,
                              st.optrace_found ? "found"
                                               : "NOT FOUND: put optrace on PATH or set OPTRACE=/path/to/optrace");
        if (st.absolute_path)
          io.out << "  note: the hook names an absolute path: it breaks on machines where optrace lives elsewhere; "
                    "reinstall without --optrace to look optrace up on PATH\n";
      }
    }
    return ok ? kExitOk : kExitFindings;
  }

  bool command_rewrites = spec.command.find("--modify") != std::string::npos;
  if (action == "install" && *legacy && !spec.modify && !command_rewrites) {
    if (!spec.command.empty()) {
      io.err << fmt::format("optrace hook: error: {} defines `{}`, so ids exist only after the build rewrites every "
                            "TRACE_POINT; the --command you gave must do that (add --modify to its optrace scan), "
                            "or drop --command and pass --modify\n",
                            legacy_where, (*legacy)->text);
      return kExitBadInput;
    }
    spec.modify = true;
    io.out << fmt::format("note: {} defines `{}`: ids come only from rewriting the sources, so the hook runs "
                          "'optrace scan --modify' on the copy the build compiles\n",
                          legacy_where, (*legacy)->text);
  }
  Result<std::string> after = action == "install" ? source::InstallHook(*text, script, spec)
                                                  : source::RemoveHook(*text, script);
  if (!after.ok()) return ReportError("hook", after.status(), io);
  if (*after == *text) {
    io.out << (action == "install" ? fmt::format("{}: hook already installed; nothing changed\n", script)
                                   : fmt::format("{}: no hook; nothing to remove\n", script));
    return kExitOk;
  }
  if (dry_run) {
    io.out << source::UnifiedDiff(script, *text, *after);
    return kExitOk;
  }
  Status st = WriteFileAtomic(path, *after);
  if (!st.ok()) return ReportError("hook", st, io);
  source::HookStatus now = source::VerifyHook(action == "install" ? *after : *text);
  io.out << (action == "install"
                 ? fmt::format("{}: hook installed at lines {}-{}\n", script, now.start_line, now.end_line)
                 : fmt::format("{}: hook removed (was lines {}-{})\n", script, now.start_line, now.end_line));
  return kExitOk;
}

}  // namespace optrace::cli
