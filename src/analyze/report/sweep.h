// optrace sweep: analyze many profiling roots (in parallel) and roll them up, one row per root.
//
//   SweepOptions opt;
//   opt.roots = {"runs/tp4", "runs/tp8"};  opt.out_dir = "sweep";  opt.jobs = 4;
//   OPTRACE_ASSIGN_OR_RETURN(SweepResult s, RunSweep(opt, [](const SweepRoot& r, size_t done, size_t total) {...}));
//
// Each root gets its own report set in OUT/<NN>_<root name>/ (NN = position on the command
// line, so two roots with the same name never collide). The rollup, OUT/sweep_class_rollup.csv
// (seed 002's name), has one row per root in command-line order: ranks, events, steps, wall,
// top step class, HCCL total / share / top kind / max rank skew, max step and collective skew,
// finding counts, and the error for a root that failed. OUT/sweep_summary.json holds the same
// plus the run's settings. A root that fails does not stop the others. A root holding several
// captures (capture.h) is swept as one row per capture (`ROOT --run N`, report dir
// <NN>_<name>_run<N>), never analyzed as one run.
// Jobs are threads; each analysis is independent (no shared state besides the output dir).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "analyze/pipeline/pipeline.h"
#include "analyze/report/kpis.h"
#include "analyze/report/table.h"
#include "core/status.h"

namespace optrace::analyze::report {

inline constexpr int kSweepSummarySchemaVersion = 1;

struct SweepOptions {
  std::vector<std::filesystem::path> roots;
  std::filesystem::path out_dir;
  int jobs = 1;
  int threads_per_root = 0;  // set by RunSweep: the cores divided among the roots analyzed at once
  Mode mode = Mode::kFast;
  std::filesystem::path rules_dir;
  std::string generator = "optrace";
  // Seed 002's resume: a root whose report folder already holds a finished analysis of that root
  // (manifest.json naming it, analysis_summary.json, segment_manifest.json) is not analyzed again;
  // its row is read back from those files.
  bool reuse_existing = false;
};

struct SweepRoot {
  std::string root;        // as given, resolved against the cwd; "ROOT --run N" for one capture of several
  int run = 0;             // the capture analyzed when the root holds several (one row each), else 0
  std::string report_dir;  // relative to out_dir: "01_tp4"
  bool ok = false;
  std::string error;       // when !ok
  int exit_class = 0;      // 2 for unreadable input / usage, 3 for internal errors
  bool reused = false;     // read back from an earlier run's report folder (--reuse-existing)
  Kpis kpis;               // when ok (reused: the fields the rollup shows)
  double seconds = 0;
};

struct SweepResult {
  std::vector<SweepRoot> roots;  // command-line order
  double seconds = 0;
  int ok_count = 0, failed_count = 0;
  std::string rollup_csv;    // absolute paths
  std::string summary_json;
};

// `on_root_done(root, finished_count, total)` is called (from worker threads, one at a time) as each
// root finishes: the CLI prints progress from it.
using SweepProgress = std::function<void(const SweepRoot& root, size_t finished, size_t total)>;

// The profiling roots under `dir` (seed 002's --search-root): every directory that holds a
// *_ascend_pt / *_ascend_ms folder (one with ASCEND_PROFILER_OUTPUT) or a PROF_* folder with
// mindstudio_profiler_output, not searched below; in path order.
Result<std::vector<std::filesystem::path>> FindProfilingRoots(const std::filesystem::path& dir);

Result<SweepResult> RunSweep(const SweepOptions& options, const SweepProgress& on_root_done);

// The rollup's fields of `kpis` from an analysis_summary.json (what --reuse-existing reads back).
Result<Kpis> RollupKpisFromSummary(const std::filesystem::path& analysis_summary_json);

// The rollup table (sweep_class_rollup.csv).
Table SweepRollupTable(const std::vector<SweepRoot>& roots);

// "01_tp4": the report directory name of the index-th root (0-based) out of `count`.
std::string SweepReportDirName(const std::filesystem::path& root, size_t index, size_t count);

}  // namespace optrace::analyze::report
