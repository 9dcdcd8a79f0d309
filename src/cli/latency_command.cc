// optrace latency: per-iteration, per-rank latency statistics (seed 003 baseline).
#include <fmt/format.h>

#include <ostream>
#include <sstream>

#include "cli/cli_parse.h"
#include "core/json_text.h"
#include "cli/commands.h"
#include "cli/latency_flags.h"
#include "core/file_io.h"
#include "evidence/latency/latency.h"
#include "evidence/latency/latency_compare.h"
#include "evidence/latency/latency_writers.h"

namespace optrace::cli {
namespace {

// `optrace latency --compare BEFORE AFTER`: the same flags read both files.
int RunCompare(const std::vector<std::string>& files, const evidence::LatencyOptions& opt, const std::string& format,
               const std::string& out_dir, bool strict, CommandIo& io) {
  auto before = evidence::ReadLatencyCsvFiles({std::filesystem::path(files[0])}, opt);
  if (!before.ok()) return ReportError("latency", before.status(), io);
  auto after = evidence::ReadLatencyCsvFiles({std::filesystem::path(files[1])}, opt);
  if (!after.ok()) return ReportError("latency", after.status(), io);
  auto c = evidence::CompareLatency(*before, *after, opt);
  if (!c.ok()) return ReportError("latency", c.status(), io);
  if (format == "json") {
    io.out << JsonText(evidence::LatencyComparisonJson(*c)) << "\n";
  } else {
    evidence::WriteLatencyComparisonText(*c, io.out);
  }
  if (!out_dir.empty()) {
    std::filesystem::path dir = ResolveAgainstCwd(out_dir);
    Status st = EnsureDirectory(dir);
    if (st.ok()) st = WriteFileAtomic(dir / "latency_compare.svg", evidence::RenderLatencyComparisonSvg(*c));
    if (!st.ok()) return ReportError("latency", st, io);
    io.err << fmt::format("wrote {}\n", (dir / "latency_compare.svg").string());
  }
  size_t problems = c->before.report.problems.size() + c->after.report.problems.size();
  if (problems > 0) {
    io.err << fmt::format("optrace latency: warning: {} data problem(s) (before {}, after {})\n", problems,
                          c->before.report.problems.size(), c->after.report.problems.size());
    if (strict) return kExitFindings;
  }
  return kExitOk;
}

}  // namespace

int RunLatencyCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Per-iteration max over ranks and per-rank latency distributions (microseconds)", "optrace latency"};
  std::vector<std::string> inputs, compare;
  LatencyFlags flags;
  std::string format = "text", out_dir;
  bool strict = false;
  app.add_option("csv", inputs, "dispatch_latency.csv or any CSV with rank/iteration/value columns");
  app.add_option("--compare", compare,
                 "compare two runs (before, after): median/P95 with 95% bootstrap CIs (text or json; -o writes "
                 "latency_compare.svg)")
      ->expected(2);
  AddLatencyFlags(app, flags);
  app.add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  app.add_option("-o,--output", out_dir,
                 "directory for latency.svg and latency_per_iteration.csv (with --compare: latency_compare.svg)");
  app.add_flag("--strict", strict, "exit 1 when data problems (missing pairs, unequal counts) are found");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  if (!out_dir.empty()) {
    std::vector<std::pair<std::string, std::string>> outs;
    for (const char* name : {"", "latency.svg", "latency_per_iteration.csv", "latency_compare.svg"})
      outs.push_back({"-o", *name ? (std::filesystem::path(out_dir) / name).string() : out_dir});
    std::vector<std::string> ins = inputs;
    ins.insert(ins.end(), compare.begin(), compare.end());
    if (auto rc = RefuseOutputsThatAreInputs("latency", outs, ins, io)) return *rc;
  }
  if (!compare.empty()) {
    if (!inputs.empty()) {
      io.err << "optrace latency: error: --compare BEFORE AFTER takes no other CSV argument\n";
      return kExitBadInput;
    }
    if (format == "csv") {
      io.err << "optrace latency: error: --compare writes text or json, not csv\n";
      return kExitBadInput;
    }
    return RunCompare(compare, flags.Options(), format, out_dir, strict, io);
  }
  if (inputs.empty()) {
    io.err << "optrace latency: error: give a CSV, or --compare BEFORE AFTER\n";
    return kExitBadInput;
  }

  const evidence::LatencyOptions opt = flags.Options();
  std::vector<std::filesystem::path> paths;
  for (const std::string& p : inputs) paths.push_back(p);  // relative to the cwd; messages keep the given name
  auto table = evidence::ReadLatencyCsvFiles(paths, opt);
  if (!table.ok()) return ReportError("latency", table.status(), io);
  evidence::LatencyReport report = evidence::AnalyzeLatency(*table, opt);

  if (format == "json") {
    io.out << JsonText(evidence::LatencyJson(*table, report)) << "\n";
  } else if (format == "csv") {
    evidence::WriteLatencyCsv(report, io.out);
  } else {
    evidence::WriteLatencyText(*table, report, io.out);
  }
  if (!out_dir.empty()) {
    std::filesystem::path dir = ResolveAgainstCwd(out_dir);
    std::ostringstream per_iter;
    evidence::WritePerIterationCsv(*table, report, per_iter);
    Status st = EnsureDirectory(dir);
    if (st.ok()) st = WriteFileAtomic(dir / "latency.svg", evidence::RenderLatencySvg(*table, report));
    if (st.ok()) st = WriteFileAtomic(dir / "latency_per_iteration.csv", per_iter.str());
    if (!st.ok()) return ReportError("latency", st, io);
    io.err << fmt::format("wrote {} and {}\n", (dir / "latency.svg").string(),
                          (dir / "latency_per_iteration.csv").string());
  }
  if (!report.problems.empty()) {
    io.err << fmt::format("optrace latency: warning: {} data problem(s): {}{}\n", report.problems.size(),
                          report.problems.front().message, report.problems.size() > 1 ? " ..." : "");
    if (strict) return kExitFindings;
  }
  return kExitOk;
}

}  // namespace optrace::cli
