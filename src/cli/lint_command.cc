// optrace lint PATH... [--op DIR] [--entry FILE] [-I DIR] [--strict] [--gates [--build-script FILE]]
//              [--compile [--sdk DIR] [--cxx COMPILER] [--npu-arch N]] [--format text|json|sarif]
#include <fmt/format.h>

#include <ostream>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "source/lint/lint.h"

namespace optrace::cli {

int RunLintCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Check instrumentation and operator binding statically (rule ids: docs/source.md)", "optrace lint"};
  std::vector<std::string> paths, include_dirs;
  std::string op_dir, entry, format = "text", output;
  bool strict = false, list_rules = false, gates = false, compile = false;
  std::string build_script, sdk, cxx;
  int npu_arch = 2201;
  app.add_option("PATH", paths, "source files or directories (C/C++/CUDA/AscendC and Python samples)");
  app.add_option("--op", op_dir, "operator project (op_host/, op_kernel/, pybind/, examples/): adds binding rules");
  app.add_option("--entry", entry, "kernel entry file (default: the op_kernel/*.cpp with a __global__ function)");
  app.add_option("-I,--include-dir", include_dirs, "directory searched for #include after the including file's");
  app.add_flag("--strict", strict, "exit 1 on warnings too");
  app.add_flag("--gates", gates,
               "judge the delivery gates G1-G5 (satisfied / not satisfied / not checkable statically); exit 1 when "
               "one is not satisfied");
  app.add_option("--build-script", build_script,
                 "with --gates: the team's build script (default: compile*.sh or build*.sh in the --op tree)");
  app.add_flag("--compile", compile,
               "also compile each kernel entry per core type in CANN's CPU-debug mode against the SDK (rules "
               "compile-*); without an SDK this is a note and exit 0");
  app.add_option("--sdk", sdk, "with --compile: the CANN toolkit folder (default: $ASCEND_HOME_PATH)");
  app.add_option("--cxx", cxx, "with --compile: the host compiler (default: $CXX, clang++, g++)");
  app.add_option("--npu-arch", npu_arch, "with --compile: __NPU_ARCH__ of the CPU-debug build (2201: Atlas A2/A3)")
      ->check(CLI::IsMember({2002, 2201, 3510}));
  app.add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json", "sarif"}));
  app.add_flag("--list-rules", list_rules, "print every rule id with its check and fix, then exit");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  if (list_rules) {
    for (const source::LintRule& r : source::AllLintRules()) {
      io.out << fmt::format("{:<22} {:<8} {:<9} {} {}\n{:<44} fix: {}\n", r.id, source::SeverityName(r.severity),
                            r.group, r.gate, r.summary, "", r.fix);
    }
    return kExitOk;
  }
  source::LintOptions options;
  for (const auto& p : paths) options.paths.emplace_back(p);
  options.op_dir = op_dir;
  options.entry = entry;
  for (const auto& d : include_dirs) options.include_dirs.emplace_back(d);
  options.gates = gates;
  options.build_script = build_script;
  if ((!sdk.empty() || !cxx.empty()) && !compile) {
    io.err << "optrace lint: error: --sdk and --cxx only apply to --compile\n";
    return kExitBadInput;
  }
  options.compile = compile;
  options.sdk = sdk;
  options.cxx = cxx;
  options.npu_arch = npu_arch;
  if (!build_script.empty() && !gates) {
    io.err << "optrace lint: error: --build-script only applies to --gates\n";
    return kExitBadInput;
  }
  Result<source::LintReport> report = source::RunLint(options);
  if (!report.ok()) return ReportError("lint", report.status(), io);
  if (format == "json") {
    io.out << source::FormatLintJson(*report);
  } else if (format == "sarif") {
    io.out << source::FormatLintSarif(*report);
  } else {
    io.out << source::FormatLintText(*report);
  }
  size_t errors = report->Count(source::Severity::kError);
  size_t warnings = report->Count(source::Severity::kWarning);
  bool gate_failed = false;
  for (const source::GateVerdict& g : report->gates) gate_failed = gate_failed || g.state == source::GateState::kNotSatisfied;
  return errors > 0 || gate_failed || (strict && warnings > 0) ? kExitFindings : kExitOk;
}

}  // namespace optrace::cli
