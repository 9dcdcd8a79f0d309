// optrace explain: where the time goes inside a kernel, from dumps (through the collect pipeline)
// or from a Chrome / Perfetto JSON trace (optrace's own or the seed collector's trace.json).
#include <fmt/format.h>

#include <ostream>

#include "cli/cli_parse.h"
#include "cli/collect_common.h"
#include "cli/commands.h"
#include "collect/collector.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "explain/explain.h"
#include "explain/explain_files.h"
#include "explain/spans.h"

namespace optrace::cli {
namespace {

bool IsTraceFile(const std::string& input) {
  std::filesystem::path p(input);
  std::error_code ec;
  return std::filesystem::is_regular_file(ResolveAgainstCwd(p), ec) && p.extension() == ".json";
}

}  // namespace

int RunExplainCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Explain where the time goes inside a kernel: phases and categories (compute, wait, sync, "
               "communication, ...) per core group and rank, as unions of the intervals, with overlap, critical "
               "children and a diagnosis. Input: dumps (with --map or --source, as for collect) or a Chrome / "
               "Perfetto JSON trace.",
               "optrace explain"};
  std::vector<std::string> inputs;
  std::string map_path, source_dir, extra_mode, phase_map, roles_path, format = "text", output;
  double clock_mhz = 50;
  app.add_option("inputs", inputs, "dump files or directories (rank<N>.bin / rank<N>.pt), or one trace .json")
      ->required();
  auto* map_opt = app.add_option("--map", map_path, "point_map.json of the build that produced the dumps");
  app.add_option("--source", source_dir, "scan this source tree for the point map instead of --map")->excludes(map_opt);
  app.add_option("--clock-mhz", clock_mhz, "counter frequency of legacy dumps in MHz (default 50)")
      ->check(FiniteRange(1e-3, 1e6));
  app.add_option("--extra-mode", extra_mode, "pairing of legacy dumps: seq (default) or legacy (FIFO)")
      ->check(CLI::IsMember({"seq", "legacy", "nest"}));
  app.add_option("--phase-map", phase_map,
                 "JSON rules tried before the built-in ones: {\"categories\": [{\"regex\", \"category\"}], "
                 "\"roles\": [{\"regex\", \"group\"}]} and diagnosis thresholds");
  app.add_option("--roles", roles_path, "roles file (send: aiv 0-15 ...): the core groups, instead of label words");
  app.add_option("--format", format, "text (default) or json on stdout")->check(CLI::IsMember({"text", "json"}));
  app.add_option("-o,--output", output,
                 "write explain.md, explain.json, explain.html and the CSV tables into this directory");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  {
    std::vector<std::pair<std::string, std::string>> outs;
    if (!output.empty()) {
      for (const char* name : {"", "explain.md", "explain.json", "explain.html", "explain_phases.csv",
                               "explain_categories.csv", "explain_critical.csv", "explain_overlaps.csv",
                               "explain_findings.csv"})
        outs.push_back({"-o", *name ? (std::filesystem::path(output) / name).string() : output});
    }
    std::vector<std::string> ins = inputs;
    for (const std::string& p : {map_path, source_dir, phase_map, roles_path}) ins.push_back(p);
    if (auto rc = RefuseOutputsThatAreInputs("explain", outs, ins, io)) return *rc;
  }

  auto rules = explain::LoadPhaseRules(phase_map);
  if (!rules.ok()) return ReportError("explain", rules.status(), io);
  std::optional<RoleMap> roles;
  if (!roles_path.empty()) {
    auto r = LoadRoles(ResolveAgainstCwd(roles_path));
    if (!r.ok()) return ReportError("explain", r.status(), io);
    roles = std::move(*r);
  }

  explain::SpanSet spans;
  if (inputs.size() == 1 && IsTraceFile(inputs[0])) {
    if (!map_path.empty() || !source_dir.empty())
      io.err << "optrace explain: warning: --map / --source are for dumps; a trace already has its labels\n";
    auto read = explain::ReadTraceSpans(ResolveAgainstCwd(inputs[0]));
    if (!read.ok()) return ReportError("explain", read.status(), io);
    spans = std::move(*read);
  } else {
    collect::CollectOptions opt;
    opt.inputs = inputs;
    opt.legacy_clock_mhz = clock_mhz;
    opt.legacy_clock_explicit = app.count("--clock-mhz") > 0;
    if (extra_mode == "seq") opt.mode = collect::PairMode::kSeq;
    if (extra_mode == "legacy") opt.mode = collect::PairMode::kFifo;
    if (extra_mode == "nest") opt.mode = collect::PairMode::kNest;
    std::optional<PointMap> map;
    if (!map_path.empty() || !source_dir.empty()) {
      Result<PointMap> loaded = LoadMapForCollect(map_path, source_dir, io);
      if (!loaded.ok()) return ReportError("explain", loaded.status(), io);
      map = std::move(*loaded);
      opt.map = &*map;
      opt.map_origin = map_path.empty() ? source_dir : map_path;
    }
    auto collected = collect::Collect(opt);
    if (!collected.ok()) return ReportError("explain", collected.status(), io);
    spans = explain::SpansFromCollection(collected->collection, inputs);
    if (spans.spans.empty())
      return ReportError("explain",
                         BadInputError("{}: the dumps hold no matched interval to explain (check --map / --source "
                                       "and `optrace collect` on the same inputs)",
                                       fmt::format("{}", fmt::join(inputs, ", "))),
                         io);
  }
  explain::ComputeParents(spans);
  explain::Explanation e = explain::Explain(spans, *rules, roles ? &*roles : nullptr);
  if (format == "json") {
    io.out << JsonText(explain::ExplanationJson(e)) << "\n";
  } else {
    explain::WriteExplainText(e, io.out);
  }
  if (!output.empty()) {
    if (Status st = explain::WriteExplainFiles(e, ResolveAgainstCwd(output)); !st.ok())
      return ReportError("explain", st, io);
    io.err << fmt::format("wrote {}/explain.md, explain.json, explain.html and the explain_*.csv tables\n", output);
  }
  return kExitOk;
}

}  // namespace optrace::cli
