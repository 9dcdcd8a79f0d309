#include "analyze/report/segment_manifest.h"
#include "analyze/report/sweep.h"

#include "analyze/read/discover.h"
#include "core/directory_lock.h"
#include "core/json_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "analyze/report/analyze_run.h"
#include "core/file_io.h"
#include "core/parallel_for.h"

namespace optrace::analyze::report {
namespace {

using Clock = std::chrono::steady_clock;

// One line per rollup row: a multi-line error ("found instead:\n  a\n  b") becomes "...: a; b".
std::string OneLine(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    if (!out.empty() && out.back() != ':') out += ';';
    out += ' ';
  }
  return out;
}

std::string SafeName(std::string name) {
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  return name.empty() ? "root" : name;
}

// One unit of sweep work: a root, or one capture of a root that holds several.
struct SweepJob {
  size_t index = 0;  // position of the root on the command line
  int run = 0;       // capture number (1-based) when the root holds several, else 0
};

// An earlier run's finished analysis of `root` in `dir`, read back as a row; nullopt when there
// is none (or it is of another root, or unreadable: then the root is analyzed again).
std::optional<SweepRoot> Reused(const std::filesystem::path& root, const std::filesystem::path& dir, SweepRoot row) {
  Result<std::string> manifest = ReadFileToString(dir / "manifest.json");
  if (!manifest.ok()) return std::nullopt;
  nlohmann::json m = nlohmann::json::parse(*manifest, nullptr, false);
  if (m.is_discarded() || m.value("kind", "") != "optrace.analyze_manifest" || !m.contains("roots") ||
      !m["roots"].is_array() || m["roots"].size() != 1 || !m["roots"][0].is_string() ||
      m["roots"][0].get<std::string>() != root.string())
    return std::nullopt;
  Result<Kpis> kpis = RollupKpisFromSummary(dir / "analysis_summary.json");
  Result<std::string> cut = ReadFileToString(dir / "segment_manifest.json");
  if (!kpis.ok() || !cut.ok()) return std::nullopt;
  nlohmann::json c = nlohmann::json::parse(*cut, nullptr, false);
  if (c.is_discarded() || !c.contains("hard_errors") || !c.contains("interior_island_total")) return std::nullopt;
  row.reused = true;
  row.kpis = std::move(*kpis);
  int64_t hard = c.value("hard_errors", int64_t{0}), islands = c.value("interior_island_total", int64_t{0});
  if (hard > 0 || islands > 0) {
    row.error = fmt::format("{} hard data error(s) and {} event(s) between steps that no step holds "
                            "(segment_manifest.json, reused)",
                            hard, islands);
    row.exit_class = 2;
    return row;
  }
  row.ok = true;
  return row;
}

SweepRoot AnalyzeOne(const SweepOptions& opt, const SweepJob& job) {
  SweepRoot out;
  const size_t index = job.index;
  std::filesystem::path root = ResolveAgainstCwd(opt.roots[index]);
  out.root = root.string();
  out.run = job.run;
  out.report_dir = SweepReportDirName(root, index, opt.roots.size());
  if (job.run > 0) {
    out.root += fmt::format(" --run {}", job.run);
    out.report_dir += fmt::format("_run{}", job.run);
  }
  if (opt.reuse_existing)
    if (std::optional<SweepRoot> r = Reused(root, ResolveAgainstCwd(opt.out_dir) / out.report_dir, out)) return *r;
  Clock::time_point t0 = Clock::now();
  AnalyzeRunOptions run_opt;
  run_opt.generator = opt.generator;
  run_opt.analyze.roots = {root};
  run_opt.analyze.out_dir = ResolveAgainstCwd(opt.out_dir) / out.report_dir;
  run_opt.analyze.mode = opt.mode;
  run_opt.analyze.rules_dir = opt.rules_dir;
  run_opt.analyze.run = job.run;
  run_opt.analyze.threads = opt.threads_per_root;
  run_opt.analyze.to = Stage::kReport;
  // The lock `optrace analyze -o` takes: an analyze writing this folder now refuses sweep, and the
  // other way round.
  Result<DirectoryLock> lock = DirectoryLock::Acquire(run_opt.analyze.out_dir, "sweep");
  if (!lock.ok()) {
    out.error = lock.status().message();
    out.exit_class = 2;
    return out;
  }
  auto run = RunAnalyzeAndReport(run_opt);
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!run.ok()) {
    out.error = run.status().message();
    out.exit_class = run.status().code() == StatusCode::kInternal ? 3 : 2;
    return out;
  }
  out.kpis = run->report->kpis;
  // The same failure policy as `optrace analyze` (segment_manifest.json): reports written, root failed.
  SegmentCoverage cut = ComputeSegmentCoverage(run->result);
  if (!cut.ok()) {
    out.error = fmt::format("{} hard data error(s) and {} event(s) between steps that no step holds "
                            "(segment_manifest.json)",
                            cut.hard_errors, cut.interior_island_total);
    out.exit_class = 2;
    return out;
  }
  out.ok = true;
  return out;
}

nlohmann::ordered_json SummaryJson(const SweepOptions& opt, const SweepResult& s) {
  using Json = nlohmann::ordered_json;
  Json roots = Json::array(), failed = Json::array();
  for (const SweepRoot& r : s.roots) {
    Json j{{"root", r.root}, {"run", r.run}, {"report_dir", r.report_dir}, {"status", r.ok ? "ok" : "failed"}, {"seconds", r.seconds}};
    if (r.reused) j["reused"] = true;
    if (r.ok) {
      j["rank_count"] = r.kpis.rank_count;
      j["event_count"] = r.kpis.event_count;
      j["step_count"] = r.kpis.step_count;
      j["wall_ms_sum"] = r.kpis.wall_ms_sum;
      j["top_step_class_id"] = r.kpis.top_step_class_id;
      j["hccl_share_of_wall"] = r.kpis.hccl_share_of_wall;
      j["max_step_skew_ratio"] = r.kpis.max_step_skew_ratio;
      j["finding_counts"] = r.kpis.finding_counts;
    } else {
      j["error"] = r.error;
      failed.push_back({{"root", r.root}, {"error", r.error}});
    }
    roots.push_back(std::move(j));
  }
  return Json{{"schema_version", kSweepSummarySchemaVersion},
              {"kind", "optrace.sweep_summary"},
              {"generator", opt.generator},
              {"config", {{"jobs", opt.jobs}, {"mode", opt.mode == Mode::kFull ? "full" : "fast"}}},
              {"root_count", s.roots.size()},
              {"status_counts", {{"ok", s.ok_count}, {"failed", s.failed_count}}},
              {"elapsed_s", s.seconds},
              {"rollup_csv", "sweep_class_rollup.csv"},
              {"roots", roots},
              {"failed_roots", failed}};
}

}  // namespace

std::string SweepReportDirName(const std::filesystem::path& root, size_t index, size_t count) {
  std::filesystem::path p = root;
  if (p.filename().empty()) p = p.parent_path();
  size_t width = std::max<size_t>(2, std::to_string(count).size());
  return fmt::format("{:0{}}_{}", index + 1, width, SafeName(p.filename().string()));
}

Result<Kpis> RollupKpisFromSummary(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.contains("kpis") || !j["kpis"].is_object())
    return BadInputError("{}: not an analysis_summary.json (no kpis object)", path.string());
  const nlohmann::json& k = j["kpis"];
  Kpis out;
  try {
    out.rank_count = k.at("rank_count").get<int>();
    out.event_count = k.at("event_count").get<uint64_t>();
    out.step_count = k.at("step_count").get<int>();
    out.wall_ms_sum = k.at("wall_ms_sum").get<double>();
    out.hccl_total_ms = k.at("hccl_total_ms").get<double>();
    out.hccl_share_of_wall = k.at("hccl_share_of_wall").get<double>();
    out.hccl_top_kind = k.at("hccl_top_kind").get<std::string>();
    out.hccl_max_rank_skew_ratio = k.at("hccl_max_rank_skew_ratio").get<double>();
    out.max_step_skew_ratio = k.at("max_step_skew_ratio").get<double>();
    out.max_collective_skew_ratio = k.at("max_collective_skew_ratio").get<double>();
    const nlohmann::json& top = k.at("top_step_class");
    out.top_step_class_id = top.at("id").get<std::string>();
    out.top_step_wall_ms_mean = top.at("wall_ms_mean").get<double>();
    out.top_step_wall_ms_p90 = top.at("wall_ms_p90").get<double>();
    out.top_step_bubble_ratio_mean = top.at("bubble_ratio_mean").get<double>();
    for (const char* severity : {"high", "medium", "low", "info"})
      out.finding_counts[severity] = j.at("finding_counts").at(severity).get<int>();
  } catch (const nlohmann::json::exception& e) {
    return BadInputError("{}: {}", path.string(), e.what());
  }
  return out;
}

Table SweepRollupTable(const std::vector<SweepRoot>& roots) {
  Table t{"sweep_class_rollup",
          {"root", "status", "report_dir", "rank_count", "event_count", "step_count", "wall_ms_sum",
           "top_step_class_id", "top_step_wall_ms_mean", "top_step_wall_ms_p90", "top_step_bubble_ratio_mean",
           "hccl_total_ms", "hccl_share_of_wall", "hccl_top_kind", "hccl_max_rank_skew_ratio", "max_step_skew_ratio",
           "max_collective_skew_ratio", "findings_high", "findings_medium", "findings_low", "error"},
          {}};
  for (const SweepRoot& r : roots) {
    if (!r.ok) {
      std::vector<Cell> row(t.columns.size());
      row[0] = r.root;
      row[1] = std::string("failed");
      row[2] = r.report_dir;
      row.back() = OneLine(r.error);
      t.rows.push_back(std::move(row));
      continue;
    }
    const Kpis& k = r.kpis;
    t.rows.push_back({r.root, std::string("ok"), r.report_dir, int64_t{k.rank_count},
                      static_cast<int64_t>(k.event_count), int64_t{k.step_count}, k.wall_ms_sum, k.top_step_class_id,
                      k.top_step_wall_ms_mean, k.top_step_wall_ms_p90, k.top_step_bubble_ratio_mean, k.hccl_total_ms,
                      k.hccl_share_of_wall, k.hccl_top_kind, k.hccl_max_rank_skew_ratio, k.max_step_skew_ratio,
                      k.max_collective_skew_ratio, int64_t{k.finding_counts.at("high")},
                      int64_t{k.finding_counts.at("medium")}, int64_t{k.finding_counts.at("low")}, Cell()});
  }
  return t;
}

Result<std::vector<std::filesystem::path>> FindProfilingRoots(const std::filesystem::path& dir_in) {
  namespace fs = std::filesystem;
  fs::path dir = ResolveAgainstCwd(dir_in);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return NotFoundError("--search-root {}: not a directory", dir_in.string());
  auto is_capture_dir = [&](const fs::path& p) {
    std::string n = p.filename().string();
    if (fs::is_directory(p / "ASCEND_PROFILER_OUTPUT", ec)) return true;
    return n.rfind("PROF_", 0) == 0 && fs::is_directory(p / "mindstudio_profiler_output", ec);
  };
  std::vector<fs::path> roots;
  std::vector<fs::path> todo = {dir};
  while (!todo.empty()) {
    fs::path d = todo.back();
    todo.pop_back();
    std::vector<fs::path> subdirs;
    bool holds = false;
    for (const auto& e : fs::directory_iterator(d, fs::directory_options::skip_permission_denied, ec)) {
      if (!e.is_directory(ec) || e.is_symlink(ec)) continue;
      if (is_capture_dir(e.path())) holds = true;
      else subdirs.push_back(e.path());
    }
    if (holds) roots.push_back(d);
    else todo.insert(todo.end(), subdirs.begin(), subdirs.end());
  }
  std::sort(roots.begin(), roots.end());
  if (roots.empty())
    return BadInputError("--search-root {}: no profiling root below it (no *_ascend_pt folder with "
                         "ASCEND_PROFILER_OUTPUT, no PROF_* folder with mindstudio_profiler_output)",
                         dir_in.string());
  return roots;
}

Result<SweepResult> RunSweep(const SweepOptions& opt, const SweepProgress& on_root_done) {
  if (opt.roots.empty()) return UsageError("no profiling root given; pass one or more directories");
  if (opt.jobs < 1) return UsageError("--jobs {}: must be at least 1", opt.jobs);
  std::filesystem::path out = ResolveAgainstCwd(opt.out_dir);
  OPTRACE_ASSIGN_OR_RETURN(DirectoryLock out_lock, DirectoryLock::Acquire(out, "sweep"));
  Clock::time_point t0 = Clock::now();
  SweepResult s;
  // A root with several captures becomes one job per capture (discover only: a directory walk
  // and the profiler_info files).
  std::vector<SweepJob> jobs;
  for (size_t i = 0; i < opt.roots.size(); ++i) {
    std::vector<DataIssue> ignored;
    auto d = Discover({ResolveAgainstCwd(opt.roots[i])}, ignored, 1);
    int captures = d.ok() ? d->capture_count : 1;
    if (captures <= 1) jobs.push_back({i, 0});
    else
      for (int k = 1; k <= captures; ++k) jobs.push_back({i, k});
  }
  s.roots.resize(jobs.size());
  // The cores are shared: --jobs roots at a time, each reading and summarizing with its share.
  SweepOptions shared = opt;
  shared.threads_per_root =
      std::max(1, WorkerCount(0) / static_cast<int>(std::min<size_t>(static_cast<size_t>(opt.jobs), jobs.size())));
  std::atomic<size_t> next{0};
  size_t finished = 0;
  std::mutex mu;
  std::exception_ptr failure;  // the first exception of a worker, rethrown here (see ParallelFor)
  auto worker = [&] {
    try {
      for (size_t i = next++; i < jobs.size(); i = next++) {
        SweepRoot r = AnalyzeOne(shared, jobs[i]);
        std::lock_guard<std::mutex> lock(mu);
        s.roots[i] = std::move(r);
        ++finished;
        if (on_root_done) on_root_done(s.roots[i], finished, jobs.size());
      }
    } catch (...) {
      next = jobs.size();
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
    }
  };
  size_t threads = std::min<size_t>(static_cast<size_t>(opt.jobs), jobs.size());
  std::vector<std::thread> pool;
  for (size_t i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  s.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (const SweepRoot& r : s.roots) (r.ok ? s.ok_count : s.failed_count)++;

  std::ostringstream csv;
  WriteCsv(SweepRollupTable(s.roots), csv);
  s.rollup_csv = (out / "sweep_class_rollup.csv").string();
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(s.rollup_csv, csv.str()));
  s.summary_json = (out / "sweep_summary.json").string();
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(
      s.summary_json, JsonText(SummaryJson(opt, s)) + "\n"));
  return s;
}

}  // namespace optrace::analyze::report
