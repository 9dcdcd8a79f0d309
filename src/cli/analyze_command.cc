// optrace analyze ROOT... -o OUT: profiler output -> summaries, findings and the report set.
// Progress on stderr (text lines, or one JSON line per stage with --progress json); on stdout a
// summary of at most about 20 lines (analyze/report/analyze_text.h), or with --format json the
// result as one JSON object. The work is in analyze/report/analyze_run.h.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "analyze/report/collection_manifest.h"
#include "analyze/report/segment_manifest.h"
#include "analyze/report/analyze_run.h"
#include "analyze/report/analyze_text.h"
#include "core/directory_lock.h"
#include "core/json_text.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"

#ifndef OPTRACE_VERSION
#define OPTRACE_VERSION "0.0.0"
#endif

namespace optrace::cli {
namespace {

using analyze::ProgressSink;
using analyze::Stage;
using analyze::StageEvent;

class StderrProgress : public ProgressSink {
 public:
  StderrProgress(std::ostream& err, bool json) : err_(err), json_(json) {}
  void OnStage(const StageEvent& e) override {
    if (e.status == "failed") failed_ = std::string(analyze::StageName(e.stage));
    if (e.status == "started") return;  // one line per stage: its outcome
    if (json_) {
      nlohmann::ordered_json j{{"event", "stage"},
                               {"stage", analyze::StageName(e.stage)},
                               {"status", e.status},
                               {"seconds", e.seconds},
                               {"counts", e.counts}};
      if (e.peak_rss_mb >= 0) {
        j["rss_mb"] = std::round(e.rss_mb * 10) / 10;
        j["peak_rss_mb"] = std::round(e.peak_rss_mb * 10) / 10;
      }
      if (!e.message.empty()) j["message"] = e.message;
      err_ << JsonText(j, -1) << "\n";
      return;
    }
    std::string counts;
    for (const auto& [k, v] : e.counts) counts += fmt::format(" {}={}", k, v);
    std::string memory = e.peak_rss_mb >= 0 ? fmt::format(" {:6.0f} MB peak", e.peak_rss_mb) : "";
    err_ << fmt::format("analyze: {:<10} {:<6} {:8.3f} s{}{}\n", analyze::StageName(e.stage), e.status, e.seconds, memory,
                        counts);
  }
  // The stage that failed ("" when none did: the run stopped before any stage).
  const std::string& failed_stage() const { return failed_; }

 private:
  std::ostream& err_;
  bool json_;
  std::string failed_;
};

Status ParseStageFlag(const std::string& flag, const std::string& value, Stage& out) {
  auto s = analyze::ParseStage(value);
  if (!s)
    return UsageError("{} {}: unknown stage; use one of discover, normalize, segment, classify, summarize, "
                      "cross_rank, diagnose, report",
                      flag, value);
  out = *s;
  return Status::Ok();
}

}  // namespace

int RunAnalyzeCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Analyze Ascend profiler output (torch_npu text/db export, msprof op_summary) of one or many ranks:\n"
               "step/layer/operator summaries, cross-rank findings with evidence, report.md/.html/.json/.csv "
               "(and .xlsx with --mode full).",
               "optrace analyze"};
  std::vector<std::string> roots;
  std::string out, mode = "fast", rules, from, to, only, progress = "text", format = "text";
  auto* roots_opt =
      app.add_option("roots", roots, "profiling roots (directories holding *_ascend_pt or PROF_* folders)");
  std::string manifest;
  app.add_option("--manifest", manifest,
                 "the collection step's manifest.json: analyze its remote_profile_root, refuse unless its "
                 "analysis_status is ok")
      ->excludes(roots_opt);
  app.add_option("-o,--output", out, "output directory for the report set")->required();
  app.add_option("--mode", mode, "fast: summaries and reports; full: also report.xlsx and the full-size tables")
      ->check(CLI::IsMember({"fast", "full"}));
  int capture_run = 0;
  app.add_option("--run", capture_run, "when the roots hold several captures: analyze capture N of the list the refusal prints")
      ->check(CLI::Range(1, 1000000));
  int threads = 0;
  app.add_option("--threads", threads, "worker threads for reading, segmenting, summarizing and the report (default: every core)")
      ->check(CLI::Range(0, 4096));
  app.add_option("--rules", rules, "directory with rules files overriding the built-in ones (data/analyze/*.json)");
  bool keep_stages = false;
  app.add_flag("--keep-stages", keep_stages,
               "also write OUT/stages/ (the stage files --from-stage / --only-stage reload)");
  auto* from_opt = app.add_option("--from-stage", from, "reuse OUT/stages/ up to this stage and run from it");
  auto* to_opt = app.add_option("--to-stage", to, "stop after this stage (default: report)");
  app.add_option("--only-stage", only, "run just this stage, reusing earlier stages from OUT/stages/")
      ->excludes(from_opt)
      ->excludes(to_opt);
  app.add_option("--format", format,
                 "stdout: text (a summary of at most about 20 lines) or json (the run as one JSON object, "
                 "analysis_summary.json embedded)")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--progress", progress, "progress on stderr: text lines or one JSON line per stage")
      ->check(CLI::IsMember({"text", "json"}));
  std::string hardware_model, hardware_profile, model_config;
  bool no_cann_scan = false;
  auto* hw_model = app.add_option("--hardware-model", hardware_model,
                                  "the capture's device for MFU / roofline (Ascend910B3, ...; docs/hardware-peaks.md)");
  app.add_option("--hardware-profile", hardware_profile,
                 "a JSON file with the capture device's peaks (fields of docs/hardware-peaks.md)")
      ->excludes(hw_model);
  app.add_flag("--no-cann-hardware-scan", no_cann_scan,
               "do not take the peaks from this host's CANN platform_config when no hardware is given");
  std::string kernel;
  app.add_option("--kernel", kernel,
                 "every call of this kernel (exact name or type, or the one name containing it): kernel_calls.csv, "
                 "kernel_iterations.csv, kernel_latency.csv (optrace latency's input)");
  auto* config_opt = app.add_option("--model-config", model_config,
                 "a model config.json to show next to the profile-derived fingerprint (never overrides it)");
  std::string model_id;
  app.add_option("--model-id", model_id,
                 "a model of the bundled catalog (data/analyze/model_catalog.json, e.g. Qwen/Qwen2.5-7B): its config "
                 "is shown next to the fingerprint as --model-config would be; no network is used")
      ->excludes(config_opt);
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  std::optional<analyze::report::CollectionManifest> collection;
  if (!manifest.empty()) {
    auto m = analyze::report::ReadCollectionManifest(manifest);
    if (!m.ok()) return ReportError("analyze", m.status(), io);
    collection = *m;
    roots = {m->profile_root.string()};
  }
  if (roots.empty())
    return ReportError("analyze", UsageError("no profiling root: pass one or more roots, or --manifest FILE"), io);

  analyze::report::AnalyzeRunOptions opt;
  opt.generator = "optrace " OPTRACE_VERSION;
  for (const auto& r : roots) opt.analyze.roots.emplace_back(r);
  opt.analyze.out_dir = out;
  opt.analyze.mode = mode == "full" ? analyze::Mode::kFull : analyze::Mode::kFast;
  opt.analyze.rules_dir = rules;
  opt.analyze.run = capture_run;
  opt.analyze.threads = threads;
  opt.hardware_model = hardware_model;
  opt.hardware_profile = hardware_profile;
  opt.model_config = model_config;
  opt.model_id = model_id;
  opt.cann_scan = !no_cann_scan;
  opt.kernel = kernel;
  opt.analyze.from = Stage::kDiscover;
  opt.analyze.to = Stage::kReport;
  // Stage files are only for reruns: written when asked, and kept current by a rerun (it rewrites
  // the stages it runs and deletes the later ones, so none goes stale).
  opt.analyze.persist_stages = keep_stages || !from.empty() || !only.empty();
  Status flags = Status::Ok();
  if (!only.empty()) {
    flags = ParseStageFlag("--only-stage", only, opt.analyze.from);
    opt.analyze.to = opt.analyze.from;
  } else {
    if (!from.empty()) flags = ParseStageFlag("--from-stage", from, opt.analyze.from);
    if (flags.ok() && !to.empty()) flags = ParseStageFlag("--to-stage", to, opt.analyze.to);
  }
  if (flags.ok() && opt.analyze.from > opt.analyze.to)
    flags = UsageError("--from-stage {} comes after --to-stage {}", from, to);
  if (!flags.ok()) return ReportError("analyze", flags, io);

  // Two runs into one OUT would interleave their files and both exit 0.
  Result<DirectoryLock> lock = DirectoryLock::Acquire(opt.analyze.out_dir, "analyze");
  if (!lock.ok()) return ReportError("analyze", lock.status(), io);
  StderrProgress sink(io.err, progress == "json");
  opt.analyze.progress = &sink;
  auto run = analyze::report::RunAnalyzeAndReport(opt);
  auto print = [&](const nlohmann::ordered_json& j) {
    io.out << (format == "json" ? JsonText(j, -1) + "\n" : analyze::report::AnalyzeRunText(j));
  };
  if (!run.ok()) {
    // Nothing was written: text mode leaves stdout empty, the error goes to stderr.
    if (format == "json")
      io.out << JsonText(analyze::report::AnalyzeFailureJson(run.status(), opt, sink.failed_stage()), -1) << "\n";
    return ReportError("analyze", run.status(), io);
  }
  // Seed 002's failure policy: hard data errors or events between steps that no step holds mean
  // the cut is not lossless; the reports are written, the run is not a success.
  analyze::report::SegmentCoverage cut = analyze::report::ComputeSegmentCoverage(run->result);
  if (!cut.ok()) {
    nlohmann::ordered_json j = analyze::report::AnalyzeRunJson(*run, opt);
    std::string error = fmt::format(
        "{} hard data error(s) and {} event(s) between steps that no step holds (segment_manifest.json); the "
        "reports are written but their step figures miss that work",
        cut.hard_errors, cut.interior_island_total);
    j["status"] = "failed";
    j["phase"] = "segment_validation";
    j["error"] = error;
    print(j);
    return ReportError("analyze", BadInputError("{}", error), io);
  }
  // Seed 002 stops where there is nothing to analyze: no rank holds a device event, a step of the
  // profiler or a communication operator (an empty or unreadable trace_view.json, a kernel export
  // without rows). The reports are written, with their data issues; the run is not a success.
  bool anything = false;
  for (const analyze::RankTable& t : run->result.ranks)
    anything = anything || !t.events.empty() || !t.step_trace.empty() || !t.comm_ops.empty();
  if (!anything) {
    nlohmann::ordered_json j = analyze::report::AnalyzeRunJson(*run, opt);
    const std::string error = fmt::format(
        "no rank holds a device task, a profiler step or a communication operator ({} rank folder(s) read): nothing "
        "was analyzed; see the data issues in {} and give the capture's kernel_details.csv, op_summary or db export",
        run->result.ranks.size(), (opt.analyze.out_dir / "report.md").string());
    j["status"] = "failed";
    j["phase"] = "normalize";
    j["error"] = error;
    print(j);
    return ReportError("analyze", BadInputError("{}", error), io);
  }
  nlohmann::ordered_json done = analyze::report::AnalyzeRunJson(*run, opt);
  if (collection) {
    done["collection_manifest"] = {{"path", manifest},
                                   {"analysis_status", collection->analysis_status},
                                   {"execution_id", collection->execution_id},
                                   {"host", collection->host}};
  }
  print(done);
  return kExitOk;
}

}  // namespace optrace::cli
