// optrace env: what this machine, its Ascend install, the profilers and the build say about a run,
// each value with its source; Markdown on stdout, environment.json + environment.md with -o.
#include <fmt/format.h>

#include <ostream>
#include <sstream>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "evidence/environment/environment.h"

namespace optrace::cli {

int RunEnvCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{
      "Record the environment of a run for the evidence report (section 1): OS, CPU, npu-smi, CANN, "
      "driver, firmware, msprof / msopprof, source commit, compile flags and launch fields. Absent tools "
      "are reported as 'not found', never as an error.",
      "optrace env"};
  std::string source, compile_commands, build_log, fields, output;
  double timeout_s = 5;
  app.add_option("--source", source, "source tree: git commit (rev-parse HEAD) and dirty state (status --porcelain)");
  auto* cc = app.add_option("--compile-commands", compile_commands,
                            "compile_commands.json: compiler and -O / -g / -D / --cce-soc-version flags");
  app.add_option("--build-log", build_log, "build log: the same flags from its compiler command lines")->excludes(cc);
  app.add_option("--fields", fields,
                 "launch fields the machine cannot know (JSON object or 'key: value' lines): nodes, cards_per_node, "
                 "transport, aiv_count, T, H, K, E, dtype, routing, seed; other keys are kept");
  app.add_option("--timeout", timeout_s, "seconds each tool (npu-smi, msprof --help, git) may take")
      ->check(FiniteRange(0.1, 600))
      ->capture_default_str();
  app.add_option("-o,--output", output, "also write DIR/environment.json and DIR/environment.md");
  std::string format = "text";
  app.add_option("--format", format, "stdout: text (the Markdown table) or json (environment.json's document)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  if (!output.empty()) {
    std::vector<std::pair<std::string, std::string>> outs{
        {"-o", output},
        {"-o", (std::filesystem::path(output) / "environment.json").string()},
        {"-o", (std::filesystem::path(output) / "environment.md").string()}};
    if (auto rc = RefuseOutputsThatAreInputs("env", outs, {source, compile_commands, build_log, fields}, io)) return *rc;
  }

  evidence::EnvironmentOptions opt = evidence::DefaultEnvironmentOptions();
  opt.tool_timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  if (!source.empty()) opt.source_dir = source;
  if (!compile_commands.empty()) opt.compile_commands = compile_commands;
  if (!build_log.empty()) opt.build_log = build_log;
  if (!fields.empty()) opt.fields_file = fields;
  auto env = evidence::ProbeEnvironment(opt);
  if (!env.ok()) return ReportError("env", env.status(), io);

  std::ostringstream md;
  evidence::WriteEnvironmentMarkdown(*env, md);
  if (format == "json") {
    io.out << evidence::EnvironmentJsonText(*env);
  } else {
    io.out << md.str();
  }
  if (!output.empty()) {
    std::filesystem::path dir = ResolveAgainstCwd(output);
    if (Status st = EnsureDirectory(dir); !st.ok()) return ReportError("env", st, io);
    if (Status st = WriteFileAtomic(dir / "environment.json", evidence::EnvironmentJsonText(*env)); !st.ok()) {
      return ReportError("env", st, io);
    }
    if (Status st = WriteFileAtomic(dir / "environment.md", md.str()); !st.ok()) return ReportError("env", st, io);
    io.err << fmt::format("wrote {}/environment.json and {}/environment.md\n", output, output);
  }
  return kExitOk;
}

}  // namespace optrace::cli
