// optrace hook install|verify|remove --script FILE [--after REGEX] [--command CMD] [--optrace PATH] [--dry-run]
#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "source/hook.h"
#include "source/modify.h"

namespace optrace::cli {
namespace {

// This binary's absolute path: the default optrace the hook runs.
std::string SelfPath() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "optrace";
}

}  // namespace

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
  app.add_option("--optrace", spec.optrace_path, "optrace binary the default command runs (default: this one)");
  app.add_flag("--dry-run", dry_run, "print the change as a unified diff, write nothing");
  app.add_option("--format", format, "verify output format")->check(CLI::IsMember({"text", "json"}));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  if (spec.optrace_path.empty()) spec.optrace_path = SelfPath();

  std::filesystem::path path = ResolveAgainstCwd(script);
  Result<std::string> text = ReadFileToString(path);
  if (!text.ok()) return ReportError("hook", text.status(), io);

  if (action == "verify") {
    source::HookStatus st = source::VerifyHook(*text);
    bool ok = st.present && st.problem.empty() && st.optrace_found;
    if (format == "json") {
      nlohmann::json j = {{"schema_version", 1}, {"script", script},         {"present", st.present},
                          {"start_line", st.start_line}, {"end_line", st.end_line}, {"optrace", st.optrace_path},
                          {"optrace_found", st.optrace_found}, {"problem", st.problem}, {"ok", ok}};
      io.out << j.dump(2) << "\n";
      return ok ? kExitOk : kExitFindings;
    }
    if (!st.problem.empty()) {
      io.out << fmt::format("{}: hook markers are broken: {}\n", script, st.problem);
    } else if (!st.present) {
      io.out << fmt::format("{}: no hook ({} ... {} absent); run 'optrace hook install --script {}'\n", script,
                            source::kHookStart, source::kHookEnd, script);
    } else {
      io.out << fmt::format("{}: hook present at lines {}-{}\n", script, st.start_line, st.end_line);
      if (st.optrace_path.empty()) {
        io.out << "  the hook does not name an optrace binary it runs\n";
      } else {
        io.out << fmt::format("  runs {} ({})\n", st.optrace_path,
                              st.optrace_found ? "found" : "NOT FOUND: build optrace or reinstall with --optrace PATH");
      }
    }
    return ok ? kExitOk : kExitFindings;
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
