#include "analyze/report/analyze_run.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyze/report/summary_json.h"
#include "core/file_io.h"
#include "core/process_memory.h"

namespace optrace::analyze::report {
namespace {
using Json = nlohmann::ordered_json;

Json RootsJson(const AnalyzeOptions& a) {
  Json roots = Json::array();
  for (const auto& r : a.roots) roots.push_back(ResolveAgainstCwd(r).string());
  return roots;
}
}  // namespace

Result<AnalyzeRun> RunAnalyzeAndReport(const AnalyzeRunOptions& opt) {
  AnalyzeRun run;
  OPTRACE_ASSIGN_OR_RETURN(run.result, RunAnalysis(opt.analyze));
  if (opt.analyze.to != Stage::kReport) return run;
  if (opt.analyze.progress) opt.analyze.progress->OnStage({Stage::kReport, "started", 0, {}, ""});
  ResetPeakRss();
  ReportOptions ropt;
  ropt.out_dir = ResolveAgainstCwd(opt.analyze.out_dir);
  ropt.full = opt.analyze.mode == Mode::kFull;
  ropt.generator = opt.generator;
  auto written = WriteReport(run.result, ropt);
  if (!written.ok()) {
    if (opt.analyze.progress) opt.analyze.progress->OnStage({Stage::kReport, "failed", 0, {}, written.status().message()});
    return written.status();
  }
  run.report = std::move(written).value();
  if (opt.analyze.progress) {
    StageEvent done{Stage::kReport, "done", run.report->seconds,
                    {{"artifacts", static_cast<double>(run.report->artifacts.size())}}, ""};
    if (auto m = ReadProcessMemory()) {
      done.rss_mb = m->rss_mb;
      done.peak_rss_mb = m->peak_rss_mb;
    }
    opt.analyze.progress->OnStage(done);
  }
  return run;
}

Json AnalyzeRunJson(const AnalyzeRun& run, const AnalyzeRunOptions& opt) {
  const AnalysisResult& r = run.result;
  std::filesystem::path out = ResolveAgainstCwd(opt.analyze.out_dir);
  Json timings = Json::array();
  for (const StageTiming& t : r.timings) timings.push_back({{"stage", t.stage}, {"status", t.status}, {"seconds", t.seconds}});
  if (run.report) timings.push_back({{"stage", "report"}, {"status", "ran"}, {"seconds", run.report->seconds}});
  Kpis kpis = run.report ? run.report->kpis : ComputeKpis(r);
  Json findings = Json::array();
  for (const Finding& f : r.findings)
    findings.push_back({{"id", f.id}, {"severity", SeverityName(f.severity)}, {"type", f.type}, {"summary", f.summary}});
  Json artifacts = Json::object();
  Json j{{"status", "ok"},
         {"schema_version", kAnalyzeResultSchemaVersion},
         {"out_dir", out.string()},
         {"mode", opt.analyze.mode == Mode::kFull ? "full" : "fast"},
         {"roots", RootsJson(opt.analyze)},
         {"stage_timings", timings},
         {"rank_count", r.ranks.size()},
         {"event_count", kpis.event_count},
         {"step_count", r.steps.size()},
         {"layer_count", r.layers.size()},
         {"diagnosis_counts", kpis.finding_counts},
         {"findings", findings},
         {"report_md", nullptr},
         {"report_html", nullptr},
         {"report_xlsx", nullptr},
         {"artifacts", artifacts}};
  if (run.report) {
    for (const WrittenArtifact& a : run.report->artifacts) j["artifacts"][a.key] = (out / a.file).string();
    j["report_md"] = (out / "report.md").string();
    j["report_html"] = (out / "report.html").string();
    if (opt.analyze.mode == Mode::kFull) j["report_xlsx"] = (out / "report.xlsx").string();
    // The same object as analysis_summary.json, so one call gives an agent the conclusions.
    std::ifstream in(out / "analysis_summary.json");
    std::stringstream text;
    text << in.rdbuf();
    j["analysis_summary"] = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  }
  return j;
}

Json AnalyzeFailureJson(const Status& status, const AnalyzeRunOptions& opt) {
  return Json{{"status", "failed"},
              {"schema_version", kAnalyzeResultSchemaVersion},
              {"out_dir", opt.analyze.out_dir.empty() ? "" : ResolveAgainstCwd(opt.analyze.out_dir).string()},
              {"roots", RootsJson(opt.analyze)},
              {"error", status.message()}};
}

}  // namespace optrace::analyze::report
