#include "cli/collect_common.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <set>

#if __has_include("source/scan/scanner.h")
#include "source/scan/scanner.h"
#define OPTRACE_HAVE_SCANNER 1
#endif

namespace optrace::cli {

Result<PointMap> LoadMapForCollect(const std::string& map_path, const std::string& source_dir, CommandIo& io) {
  if (!map_path.empty()) return LoadPointMap(map_path);
#ifdef OPTRACE_HAVE_SCANNER
  source::ScanOptions opt;
  OPTRACE_ASSIGN_OR_RETURN(source::ScanResult scan, source::ScanSources({source_dir}, opt));
  for (const source::Collision& c : scan.collisions) io.err << "optrace collect: warning: " << source::FormatCollision(c) << "\n";
  if (scan.map.points.empty()) {
    return BadInputError("{}: no TRACE_POINT found in the sources; give the kernel's source tree or --map", source_dir);
  }
  return std::move(scan.map);
#else
  return UsageError("--source {}: this build has no source scanner; run 'optrace scan' and pass --map", source_dir);
#endif
}

std::function<void(size_t, size_t, const std::string&)> MakeProgress(std::string command, CommandIo& io) {
  using Clock = std::chrono::steady_clock;
  auto start = std::make_shared<Clock::time_point>(Clock::now());
  auto last = std::make_shared<Clock::time_point>(Clock::now());
  return [command, &io, start, last](size_t done, size_t total, const std::string& file) {
    const auto now = Clock::now();
    if (now - *start < std::chrono::seconds(1) || now - *last < std::chrono::seconds(1)) return;
    *last = now;
    io.err << fmt::format("optrace {}: [{}/{}] {}\n", command, done, total, file);
  };
}

void PrintCollectSummary(const collect::CollectReport& rep, const std::string& trace_path,
                         const std::string& stats_path, CommandIo& io) {
  const collect::CollectResult& r = rep.result;
  std::set<int32_t> ranks;
  for (const auto& in : r.inputs) ranks.insert(in.rank);
  io.out << collect::FormatStatsTable(rep.stats);
  if (!r.diagnostics.Empty()) io.out << "\nproblems:\n" << collect::FormatDiagnostics(r.diagnostics);
  io.out << fmt::format("\n{} records from {} rank(s): {} intervals, {} unmatched\n", r.records, ranks.size(),
                        r.interval_count, r.collection.instants.size());
  io.out << fmt::format("trace: {}\n", trace_path);
  if (!stats_path.empty()) io.out << fmt::format("stats: {}\n", stats_path);
}

}  // namespace optrace::cli
