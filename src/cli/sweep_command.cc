// optrace sweep ROOT... -o OUT [--jobs N]: analyze many roots, one rollup row per root.
// Progress on stderr (a line per finished root, or JSON lines); the result as one JSON object
// on stdout. The work is in analyze/report/sweep.h.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "analyze/report/sweep.h"
#include "core/json_text.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"

#ifndef OPTRACE_VERSION
#define OPTRACE_VERSION "0.0.0"
#endif

namespace optrace::cli {

int RunSweepCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Analyze many profiling roots (each as `optrace analyze` would) and write a rollup CSV with one row "
               "per root plus a report directory per root.",
               "optrace sweep"};
  std::vector<std::string> roots;
  std::string out, mode = "fast", rules, progress = "text";
  int jobs = 1;
  std::string search_root;
  size_t limit = 0;
  bool reuse_existing = false;
  app.add_option("roots", roots, "profiling roots, one analysis each");
  app.add_option("--search-root", search_root,
                 "also sweep every profiling root found below this directory (folders holding *_ascend_pt or PROF_*)");
  app.add_option("--limit", limit, "sweep at most this many roots (the first in order; 0: all)");
  app.add_flag("--reuse-existing", reuse_existing,
               "resume: a root whose OUT/NN_<root>/ holds a finished analysis of it is read back, not analyzed again");
  app.add_option("-o,--output", out, "output directory: sweep_class_rollup.csv, sweep_summary.json, NN_<root>/")
      ->required();
  app.add_option("-j,--jobs", jobs, "roots analyzed in parallel (threads)")->check(CLI::Range(1, 256));
  app.add_option("--mode", mode, "fast or full, as for optrace analyze")->check(CLI::IsMember({"fast", "full"}));
  app.add_option("--rules", rules, "directory with rules files overriding the built-in ones");
  app.add_option("--progress", progress, "progress on stderr: text lines or JSON lines")
      ->check(CLI::IsMember({"text", "json"}));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;

  analyze::report::SweepOptions opt;
  for (const auto& r : roots) opt.roots.emplace_back(r);
  if (!search_root.empty()) {
    auto found = analyze::report::FindProfilingRoots(search_root);
    if (!found.ok()) return ReportError("sweep", found.status(), io);
    opt.roots.insert(opt.roots.end(), found->begin(), found->end());
  }
  if (opt.roots.empty())
    return ReportError("sweep", UsageError("no profiling root: pass roots or --search-root DIR"), io);
  const size_t found_roots = opt.roots.size();
  if (limit > 0 && opt.roots.size() > limit) opt.roots.resize(limit);
  opt.out_dir = out;
  opt.jobs = jobs;
  opt.mode = mode == "full" ? analyze::Mode::kFull : analyze::Mode::kFast;
  opt.rules_dir = rules;
  opt.reuse_existing = reuse_existing;
  opt.generator = "optrace " OPTRACE_VERSION;
  auto on_done = [&](const analyze::report::SweepRoot& r, size_t finished, size_t total) {
    if (progress == "json") {
      nlohmann::ordered_json j{{"event", "root"},    {"root", r.root},         {"status", r.ok ? "ok" : "failed"},
                               {"seconds", r.seconds}, {"finished", finished}, {"total", total}};
      if (r.reused) j["reused"] = true;
      if (!r.ok) j["error"] = r.error;
      io.err << JsonText(j, -1) << "\n";
    } else {
      io.err << fmt::format("sweep: [{}/{}] {} {}{}{}\n", finished, total, r.root, r.ok ? "ok" : "FAILED",
                            r.reused ? " (reused)" : fmt::format(" in {:.2f} s", r.seconds), r.ok ? "" : ": " + r.error);
    }
  };
  auto swept = analyze::report::RunSweep(opt, on_done);
  if (!swept.ok()) return ReportError("sweep", swept.status(), io);

  nlohmann::ordered_json failed = nlohmann::ordered_json::array();
  for (const auto& r : swept->roots)
    if (!r.ok) failed.push_back({{"root", r.root}, {"error", r.error}});
  nlohmann::ordered_json result{{"status", swept->failed_count ? "partial" : "ok"},
                                {"root_count", swept->roots.size()},
                                {"roots_found", found_roots},
                                {"roots_swept", opt.roots.size()},
                                {"status_counts", {{"ok", swept->ok_count}, {"failed", swept->failed_count}}},
                                {"jobs", jobs},
                                {"elapsed_s", swept->seconds},
                                {"rollup_csv", swept->rollup_csv},
                                {"summary_path", swept->summary_json},
                                {"failed_roots", failed}};
  io.out << JsonText(result, -1) << "\n";
  if (swept->failed_count) {
    io.err << fmt::format("optrace sweep: error: {} of {} roots could not be analyzed (see failed_roots); the rollup "
                          "lists them with their error\n",
                          swept->failed_count, swept->roots.size());
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace optrace::cli
