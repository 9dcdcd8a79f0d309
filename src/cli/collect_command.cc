// optrace collect INPUT... [--map FILE | --source DIR] -o trace.json [--stats FILE] ...
#include <fmt/format.h>

#include <optional>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/cli_parse.h"
#include "core/json_text.h"
#include "cli/collect_common.h"
#include "cli/commands.h"
#include "collect/collect_job.h"
#include "core/roles.h"

namespace optrace::cli {

int RunCollectCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Turn profiling dumps (rank<N>.bin, legacy rank<NNN>.pt) into a Chrome/Perfetto trace and "
               "per-label statistics.",
               "optrace collect"};
  std::vector<std::string> inputs;
  std::string map_path, source_dir, output = "chrome_trace.json", stats_path, extra_mode, names = "label",
                                    align = "rank", format = "text", roles_path;
  double clock_mhz = 50;
  uint32_t depth = 0;
  bool strict = false;
  app.add_option("inputs", inputs, "dump files or directories holding rank<N>.bin / rank<N>.pt")->required();
  auto* map_opt = app.add_option("--map", map_path, "point_map.json of the build that produced the dumps");
  app.add_option("--source", source_dir, "scan this source tree for the point map instead of --map")
      ->excludes(map_opt);
  app.add_option("-o,--output", output,
                 "trace to write: Chrome JSON (default chrome_trace.json), or Perfetto protobuf for .pftrace");
  app.add_option("--stats", stats_path, "also write the statistics: .json or .csv");
  app.add_option("--clock-mhz", clock_mhz, "counter frequency of legacy dumps in MHz (default 50)")
      ->check(FiniteRange(0.001, 100000));
  app.add_option("--extra-mode", extra_mode,
                 "pairing: seq (B with the next E of the same sequence number), legacy (FIFO per label), "
                 "nest (stack per core); default nest for native, seq for legacy dumps")
      ->check(CLI::IsMember({"seq", "legacy", "nest"}));
  app.add_option("--depth", depth, "keep intervals whose depth counted from the leaves is at most N (0 = all)");
  app.add_option("--names", names, "event names: label (default) or legacy (the reference collector's)")
      ->check(CLI::IsMember({"label", "legacy"}));
  app.add_option("--align", align, "timestamps relative to each rank's first event (rank), the first of all "
                                   "ranks (global), or raw counter values (none)")
      ->check(CLI::IsMember({"rank", "global", "none"}));
  app.add_option("--roles", roles_path, "roles file (send: aiv 0-15 ...): adds per-role statistics");
  app.add_flag("--strict", strict, "exit 1 when data was lost (overflow, unmatched, unmapped records)");
  app.add_option("--format", format, "text (default) or json on stdout")->check(CLI::IsMember({"text", "json"}));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;

  collect::CollectJob job;
  job.options.inputs = inputs;
  job.options.legacy_clock_mhz = clock_mhz;
  job.options.legacy_clock_explicit = app.count("--clock-mhz") > 0;
  job.options.depth = depth;
  if (extra_mode == "seq") job.options.mode = collect::PairMode::kSeq;
  if (extra_mode == "legacy") job.options.mode = collect::PairMode::kFifo;
  if (extra_mode == "nest") job.options.mode = collect::PairMode::kNest;
  job.trace_path = output;
  if (!map_path.empty()) job.other_inputs.push_back(map_path);
  if (!source_dir.empty()) job.other_inputs.push_back(source_dir);
  if (!roles_path.empty()) job.other_inputs.push_back(roles_path);
  if (!stats_path.empty()) job.stats_path = stats_path;
  job.trace.align = align == "global" ? collect::Align::kGlobal
                    : align == "none" ? collect::Align::kNone
                                      : collect::Align::kRank;
  job.trace.names = names == "legacy" ? collect::NameStyle::kLegacy : collect::NameStyle::kLabel;
  job.trace.fifo_names = extra_mode == "legacy";

  std::optional<PointMap> map;
  if (!map_path.empty() || !source_dir.empty()) {
    Result<PointMap> loaded = LoadMapForCollect(map_path, source_dir, io);
    if (!loaded.ok()) return ReportError("collect", loaded.status(), io);
    map = std::move(*loaded);
    job.options.map = &*map;
    job.options.map_origin = map_path.empty() ? source_dir : map_path;
  }
  RoleMap roles;
  if (!roles_path.empty()) {
    Result<RoleMap> r = LoadRoles(roles_path);
    if (!r.ok()) return ReportError("collect", r.status(), io);
    roles = std::move(*r);
    job.roles = &roles;
  }
  job.settings = collect::CollectSettings{job.options.map_origin, clock_mhz, extra_mode.empty() ? "default" : extra_mode,
                                          depth, job.trace.align, job.trace.names, roles_path};
  job.options.progress = MakeProgress("collect", io);

  Result<collect::CollectReport> rep = collect::RunCollectJob(job);
  if (!rep.ok()) return ReportError("collect", rep.status(), io);
  const collect::CollectResult& r = rep->result;
  if (format == "json") {
    nlohmann::json doc = nlohmann::json::parse(collect::StatsToJson(rep->stats, r, job.settings));
    doc["outputs"] = {{"trace", output}, {"stats", stats_path}};
    io.out << JsonText(doc) << "\n";
  } else {
    PrintCollectSummary(rep.value(), output, stats_path, io);
  }
  if (strict && r.diagnostics.HasDataLoss()) {
    io.err << "optrace collect: --strict: data was lost (see the problems above); exiting 1\n";
    return kExitFindings;
  }
  return kExitOk;
}

}  // namespace optrace::cli
