// optrace join LAUNCH... --capture ROOT --kernel NAME -o joined.pftrace: the kernel's phases from
// the dumps inside its own task slices of a profiler capture of the same run (src/join).
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/cli_parse.h"
#include "cli/collect_common.h"
#include "cli/commands.h"
#include "collect/dump_files.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "join/join.h"
#include "join/joined_trace.h"

namespace optrace::cli {
namespace {
namespace fs = std::filesystem;

bool HoldsRankFiles(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && collect::ParseRankFileName(e.path())) return true;
  return false;
}

// "launch10" after "launch9": digits compared as numbers.
bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      std::string x = a.substr(i, ie - i), y = b.substr(j, je - j);
      x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

// Each input is a launch's folder; one that holds no rank files but subfolders that do stands for
// those subfolders, in natural order.
Result<std::vector<fs::path>> LaunchFolders(const std::vector<std::string>& inputs) {
  std::vector<fs::path> out;
  for (const std::string& in : inputs) {
    fs::path p = ResolveAgainstCwd(in);
    std::error_code ec;
    if (!fs::is_directory(p, ec)) return BadInputError("{}: not a folder; give each launch's dump folder", in);
    if (HoldsRankFiles(p)) {
      out.push_back(p);
      continue;
    }
    std::vector<fs::path> subs;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.is_directory(ec) && HoldsRankFiles(e.path())) subs.push_back(e.path());
    if (subs.empty())
      return BadInputError("{}: no rank<N>.bin here nor in its subfolders; give each launch's dump folder", in);
    std::sort(subs.begin(), subs.end(),
              [](const fs::path& a, const fs::path& b) { return NaturalLess(a.filename().string(), b.filename().string()); });
    out.insert(out.end(), subs.begin(), subs.end());
  }
  return out;
}

nlohmann::json SummaryJson(const join::JoinResult& r, const std::vector<fs::path>& launches, const std::string& trace) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["kernel"] = r.kernel;
  j["capture"] = r.capture;
  j["trace"] = trace;
  j["tolerance_ns"] = r.tolerance_ns;
  j["launch_folders"] = nlohmann::json::array();
  for (const fs::path& p : launches) j["launch_folders"].push_back(p.string());
  j["clocks"] = nlohmann::json::array();
  for (const join::JoinedRank& jr : r.ranks)
    j["clocks"].push_back({{"rank", jr.rank},
                           {"counter_mhz", jr.clock.counter_hz / 1e6},
                           {"start_cnt", jr.clock.start_cnt},
                           {"start_monotonic_ns", jr.clock.start_monotonic_ns},
                           {"realtime_offset_ns", jr.clock.realtime_offset_ns},
                           {"source", jr.clock.source}});
  j["launches"] = nlohmann::json::array();
  for (const join::LaunchJoin& l : r.launches)
    j["launches"].push_back({{"rank", l.rank},
                             {"launch", l.launch},
                             {"stream_id", l.stream_id},
                             {"task_id", l.task_id},
                             {"slice_start_ns", l.slice_start_ns},
                             {"slice_dur_ns", l.slice_dur_ns},
                             {"phases_begin_ns", l.phases_begin_ns},
                             {"phases_end_ns", l.phases_end_ns},
                             {"lead_ns", l.lead_ns()},
                             {"tail_ns", l.tail_ns()},
                             {"cores", l.cores},
                             {"phases", l.intervals},
                             {"phases_outside", l.outside},
                             {"worst_outside_ns", l.worst_outside_ns}});
  j["findings_placed"] = r.findings.size();
  j["notes"] = r.notes;
  j["issues"] = r.issues;
  return j;
}

}  // namespace

int RunJoinCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Place a kernel's phases (the dumps of an instrumented run) inside its own task slices of a "
               "profiler capture of the same run: one Perfetto trace with the host, the streams, HCCL and the "
               "kernel's phases per core, and the residual per launch.",
               "optrace join"};
  std::vector<std::string> inputs;
  std::string capture, kernel, map_path, source_dir, analysis, output = "joined.pftrace", summary, format = "text";
  int run = 0;
  bool strict = false;
  app.add_option("launches", inputs,
                 "the dump folder (rank<N>.bin) of each launch, in launch order; a folder of such folders stands for "
                 "them in natural order")
      ->required();
  app.add_option("--capture", capture, "the profiler capture of the same run (what optrace analyze reads)")->required();
  app.add_option("--kernel", kernel, "the kernel's task Name (or Type) in the export, e.g. MoeDispatchCombine")->required();
  auto* map_opt = app.add_option("--map", map_path, "point_map.json of the build that produced the dumps");
  app.add_option("--source", source_dir, "scan this source tree for the point map instead of --map")->excludes(map_opt);
  app.add_option("--run", run, "which capture, when the root holds several (as optrace analyze --run)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--analysis", analysis, "an optrace analyze output folder: its findings go on the trace");
  app.add_option("-o,--output", output, "the joined Perfetto trace (default joined.pftrace)");
  app.add_option("--summary", summary, "also write the per-launch residuals as JSON here");
  app.add_option("--format", format, "text (default) or json on stdout")->check(CLI::IsMember({"text", "json"}));
  app.add_flag("--strict", strict, "exit 1 when a data issue remains (a phase outside its task slice, lost records)");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  {
    std::vector<std::string> ins = inputs;
    for (const std::string& p : {capture, map_path, source_dir, analysis}) ins.push_back(p);
    if (auto rc = RefuseOutputsThatAreInputs("join", {{"-o", output}, {"--summary", summary}}, ins, io)) return *rc;
  }
  Result<std::vector<fs::path>> launches = LaunchFolders(inputs);
  if (!launches.ok()) return ReportError("join", launches.status(), io);
  std::optional<PointMap> map;
  if (!map_path.empty() || !source_dir.empty()) {
    Result<PointMap> m = LoadMapForCollect(map_path, source_dir, io);
    if (!m.ok()) return ReportError("join", m.status(), io);
    map = std::move(*m);
  } else {
    io.err << "optrace join: note: no --map or --source: phases are named by their point ids\n";
  }
  join::JoinOptions opt;
  opt.launches = *launches;
  opt.map = map ? &*map : nullptr;
  opt.capture = ResolveAgainstCwd(capture);
  opt.run = run;
  opt.kernel = kernel;
  if (!analysis.empty()) opt.analysis = ResolveAgainstCwd(analysis);
  Result<join::JoinResult> r = join::JoinKernelPhases(opt);
  if (!r.ok()) return ReportError("join", r.status(), io);

  const fs::path out_path = ResolveAgainstCwd(output);
  if (out_path.has_parent_path())
    if (Status st = EnsureDirectory(out_path.parent_path()); !st.ok()) return ReportError("join", st, io);
  {
    const fs::path tmp = out_path.string() + ".tmp";
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return ReportError("join", IoError("{}: cannot write", tmp.string()), io);
    if (Status st = join::WriteJoinedTrace(*r, out); !st.ok()) return ReportError("join", st, io);
    out.close();
    std::error_code ec;
    fs::rename(tmp, out_path, ec);
    if (ec) return ReportError("join", IoError("{}: cannot write: {}", out_path.string(), ec.message()), io);
  }
  nlohmann::json j = SummaryJson(*r, *launches, out_path.string());
  if (!summary.empty())
    if (Status st = WriteFileAtomic(ResolveAgainstCwd(summary), JsonText(j) + "\n"); !st.ok())
      return ReportError("join", st, io);
  const bool issues = !r->issues.empty();
  if (format == "json") {
    io.out << JsonText(j) << "\n";
    return issues && strict ? kExitFindings : kExitOk;
  }
  size_t ranks = r->ranks.size();
  io.out << fmt::format("joined {} launch(es) of {} on {} rank(s): {} phases\n", launches->size(), kernel, ranks,
                        r->phases.size());
  io.out << fmt::format("capture: {}\n", r->capture);
  for (const join::JoinedRank& jr : r->ranks)
    io.out << fmt::format("rank {}: Unix ns = {} + (ticks - {}) / {:g} MHz + {} ({})\n", jr.rank,
                          jr.clock.start_monotonic_ns, jr.clock.start_cnt, jr.clock.counter_hz / 1e6,
                          jr.clock.realtime_offset_ns, fs::path(jr.clock.source).filename().string());
  io.out << fmt::format("{:>4} {:>6} {:>7} {:>6} {:>14} {:>10} {:>10} {:>10} {:>6} {:>8}\n", "rank", "launch", "stream",
                        "task", "slice (us)", "lead (us)", "tail (us)", "phases", "cores", "outside");
  for (const join::LaunchJoin& l : r->launches)
    io.out << fmt::format("{:>4} {:>6} {:>7} {:>6} {:>14.3f} {:>10.3f} {:>10.3f} {:>10} {:>6} {:>8}\n", l.rank, l.launch,
                          l.stream_id, l.task_id, l.slice_dur_ns / 1e3, l.lead_ns() / 1e3, l.tail_ns() / 1e3,
                          l.intervals, l.cores, l.outside);
  for (const std::string& n : r->notes) io.out << "note: " << n << "\n";
  for (const std::string& i : r->issues) io.out << "data issue: " << i << "\n";
  if (!r->findings.empty()) io.out << fmt::format("{} finding window(s) of the analysis placed\n", r->findings.size());
  io.out << fmt::format("-> {} (open in https://ui.perfetto.dev)\n", out_path.string());
  return issues && strict ? kExitFindings : kExitOk;
}

}  // namespace optrace::cli
