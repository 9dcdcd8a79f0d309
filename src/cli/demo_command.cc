// optrace demo [-o DIR]: the whole trace loop on built-in data. Runs the example MoE operator
// in the AscendC emulator for 2 ranks, saves the dumps, writes and scans the kernel sources for
// the point map, collects, and prints the statistics and where everything is.
#include <fmt/format.h>

#include <ostream>

#include "cli/cli_parse.h"
#include "cli/collect_common.h"
#include "cli/commands.h"
#include "collect/collect_job.h"
#include "core/file_io.h"
#include "core/point_map.h"
#include "source/scan/scanner.h"

#ifdef OPTRACE_HAVE_EXAMPLE_MOE
#include "moe_dispatch_combine/runner/moe_runner.h"
#endif

namespace optrace::cli {
namespace {

namespace fs = std::filesystem;

#ifdef OPTRACE_HAVE_EXAMPLE_MOE
Status WriteDemoInputs(const fs::path& dir, const examples::MoeRunResult& run,
                       const std::vector<std::pair<std::string, std::string>>& sources) {
  for (size_t r = 0; r < run.rank_buffers.size(); ++r) {
    const std::vector<int64_t>& buf = run.rank_buffers[r];
    std::string_view bytes(reinterpret_cast<const char*>(buf.data()), buf.size() * sizeof(int64_t));
    OPTRACE_RETURN_IF_ERROR(EnsureDirectory(dir / "dumps"));
    OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "dumps" / fmt::format("rank{}.bin", r), bytes));
  }
  for (const auto& [rel, text] : sources) {
    const fs::path p = dir / "src" / rel;
    OPTRACE_RETURN_IF_ERROR(EnsureDirectory(p.parent_path()));
    OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(p, text));
  }
  return Status::Ok();
}
#endif

}  // namespace

int RunDemoCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Run the example MoE dispatch -> grouped matmul -> combine operator in the AscendC emulator for 2 "
               "ranks, then scan its sources and collect its trace: the whole optrace loop on built-in data.",
               "optrace demo"};
  std::string out_dir = "optrace-demo";
  int ranks = 2;
  app.add_option("-o,--output", out_dir, "directory for the dumps, sources, map, trace and stats (default "
                                         "./optrace-demo)");
  app.add_option("--ranks", ranks, "ranks to run (default 2)")->check(CLI::Range(1, 16));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
#ifndef OPTRACE_HAVE_EXAMPLE_MOE
  return ReportError("demo", UsageError("this build has no example operator (examples/ was not built)"), io);
#else
  const fs::path dir = ResolveAgainstCwd(out_dir);
  examples::MoeRunOptions run_opt;
  run_opt.ranks = ranks;
  io.err << fmt::format("optrace demo: running the example MoE operator for {} ranks in the emulator...\n", ranks);
  Result<examples::MoeRunResult> run = examples::RunMoeExample(run_opt);
  if (!run.ok()) return ReportError("demo", run.status(), io);
  if (Status st = WriteDemoInputs(dir, *run, examples::MoeExampleSources()); !st.ok()) {
    return ReportError("demo", st, io);
  }
  Result<source::ScanResult> scan = source::ScanSources({dir / "src"}, source::ScanOptions{});
  if (!scan.ok()) return ReportError("demo", scan.status(), io);
  const fs::path map_path = dir / "point_map.json";
  if (Status st = WriteFileAtomic(map_path, SerializePointMap(scan->map)); !st.ok()) return ReportError("demo", st, io);

  collect::CollectJob job;
  job.options.inputs = {(dir / "dumps").string()};
  job.options.map = &scan->map;
  job.options.map_origin = map_path.string();
  job.options.progress = MakeProgress("demo", io);
  job.trace_path = dir / "chrome_trace.json";
  job.stats_path = dir / "stats.json";
  job.settings.map_origin = map_path.string();
  job.settings.mode = "default";
  Result<collect::CollectReport> rep = collect::RunCollectJob(job);
  if (!rep.ok()) return ReportError("demo", rep.status(), io);
  PrintCollectSummary(*rep, job.trace_path.string(), job.stats_path->string(), io);
  io.out << fmt::format("dumps: {}/rank0.bin .. rank{}.bin\n", (dir / "dumps").string(), ranks - 1);
  io.out << fmt::format("point map: {} ({} points from {} files under {})\n", map_path.string(),
                        scan->map.points.size(), scan->files.size(), (dir / "src").string());
  io.out << "open the trace in https://ui.perfetto.dev or chrome://tracing\n";
  return kExitOk;
#endif
}

}  // namespace optrace::cli
