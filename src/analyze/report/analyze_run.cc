#include "analyze/report/analyze_run.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyze/diagnose/diagnose.h"
#include "analyze/report/summary_json.h"
#include "core/file_io.h"
#include "core/parallel_for.h"
#include "core/process_memory.h"

namespace optrace::analyze::report {
namespace {
using Json = nlohmann::ordered_json;

Json RootsJson(const AnalyzeOptions& a) {
  Json roots = Json::array();
  for (const auto& r : a.roots) roots.push_back(ResolveAgainstCwd(r).string());
  return roots;
}

// The hardware the user named, or std::nullopt (then the capture and the host are asked).
Result<std::optional<HardwarePeaks>> UserHardware(const AnalyzeRunOptions& opt, const Rules& rules) {
  if (!opt.hardware_profile.empty()) {
    OPTRACE_ASSIGN_OR_RETURN(HardwarePeaks h, LoadHardwareProfile(opt.hardware_profile));
    return std::optional<HardwarePeaks>(std::move(h));
  }
  if (!opt.hardware_model.empty()) {
    OPTRACE_ASSIGN_OR_RETURN(HardwarePeaks h, HardwareByName(rules.hardware, opt.hardware_model));
    return std::optional<HardwarePeaks>(std::move(h));
  }
  return std::optional<HardwarePeaks>();
}

// Without a user choice: the capture's device name when it names one part of the table, else the
// CANN platform_config of this host; `note` says why there is none.
std::optional<HardwarePeaks> DetectedHardware(const AnalysisResult& r, const AnalyzeRunOptions& opt, const Rules& rules,
                                              std::string& note) {
  const std::string& device = r.identity.device_name;
  if (!device.empty()) {
    auto h = HardwareByName(rules.hardware, device);
    if (h.ok()) {
      h->source = fmt::format("the capture's device name ({})", device);
      h->provenance = "named by the capture itself";
      return *h;
    }
  }
  std::string capture = device.empty() ? "the capture does not name its device"
                                       : fmt::format("the capture names its device '{}', not one part of the table "
                                                     "(the parts of a family differ in cores and clock)",
                                                     device);
  if (!opt.cann_scan) {
    note = fmt::format("no --hardware-model / --hardware-profile; {}; the CANN scan is off (--no-cann-hardware-scan)",
                       capture);
    return std::nullopt;
  }
  std::vector<std::filesystem::path> dirs = CannConfigDirs();
  if (auto h = ScanCannPlatformConfig(rules.hardware, dirs, dirs.empty() ? "" : HostSocFromNpuSmi())) return h;
  note = fmt::format("no --hardware-model / --hardware-profile; {}; {}", capture,
                     dirs.empty() ? "no CANN platform_config on this host"
                                  : "CANN platform_config found, but npu-smi does not say which of its parts this host has");
  return std::nullopt;
}
std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// --model-id: the catalog's model of that id (case aside), or of that name after the owner
// ("Qwen2.5-7B"); an id it lacks is refused with the ones like it.
Result<ModelConfig> CatalogModelConfig(const Rules& rules, const std::string& id) {
  const std::string want = Lower(id);
  std::vector<const CatalogModel*> hits;
  for (const CatalogModel& m : rules.model_catalog) {
    std::string have = Lower(m.id);
    std::string name = have.substr(have.find('/') == std::string::npos ? 0 : have.find('/') + 1);
    if (have == want || name == want) hits.push_back(&m);
  }
  if (hits.size() == 1) {
    ModelConfig c;
    c.path = "model_catalog.json:" + hits[0]->id;
    c.values = hits[0]->values;
    return c;
  }
  std::vector<std::string> like;
  for (const CatalogModel& m : rules.model_catalog)
    if (Lower(m.id).find(want.substr(want.find('/') == std::string::npos ? 0 : want.find('/') + 1)) != std::string::npos)
      like.push_back(m.id);
  if (like.empty())
    for (const CatalogModel& m : rules.model_catalog) like.push_back(m.id);
  return BadInputError("--model-id {}: {} in the model catalog ({}); pass --model-config config.json for a model the "
                       "catalog does not hold. {}: {}",
                       id, hits.empty() ? "not" : "ambiguous", rules.model_catalog.size() == 0 ? "empty" : "model_catalog.json",
                       hits.empty() ? "models it holds like it" : "it matches", fmt::format("{}", fmt::join(like, ", ")));
}

}  // namespace

Result<AnalyzeRun> RunAnalyzeAndReport(const AnalyzeRunOptions& opt) {
  AnalyzeRun run;
  Rules rules;
  std::optional<HardwarePeaks> hardware;
  std::optional<ModelConfig> model_config;
  if (opt.analyze.to == Stage::kReport) {  // checked first: a typo must not cost a whole analysis
    OPTRACE_ASSIGN_OR_RETURN(rules, LoadRules(opt.analyze.rules_dir));
    OPTRACE_ASSIGN_OR_RETURN(hardware, UserHardware(opt, rules));
    if (!opt.model_config.empty()) {
      OPTRACE_ASSIGN_OR_RETURN(ModelConfig c, LoadModelConfig(opt.model_config));
      model_config = std::move(c);
    } else if (!opt.model_id.empty()) {
      OPTRACE_ASSIGN_OR_RETURN(ModelConfig c, CatalogModelConfig(rules, opt.model_id));
      model_config = std::move(c);
    }
  }
  OPTRACE_ASSIGN_OR_RETURN(run.result, RunAnalysis(opt.analyze));
  if (opt.analyze.to != Stage::kReport) return run;
  if (!opt.kernel.empty()) {
    OPTRACE_ASSIGN_OR_RETURN(KernelFocus focus, FocusKernel(run.result, opt.kernel));
    run.kernel_focus = std::move(focus);
  }
  if (opt.analyze.progress) opt.analyze.progress->OnStage({Stage::kReport, "started", 0, {}, ""});
  ResetPeakRss();
  ReportOptions ropt;
  ropt.out_dir = ResolveAgainstCwd(opt.analyze.out_dir);
  ropt.full = opt.analyze.mode == Mode::kFull;
  ropt.generator = opt.generator;
  ropt.kernel_focus = run.kernel_focus;
  ropt.threads = WorkerCount(opt.analyze.threads);
  ropt.efficiency.rules = &rules;
  ropt.efficiency.model_config = model_config;
  ropt.efficiency.hardware = hardware ? hardware : DetectedHardware(run.result, opt, rules, ropt.efficiency.hardware_note);
  // The one finding that needs the device: made here, where the device is known.
  AddMemoryLimitFinding(run.result, run.result.summaries.memory, ropt.efficiency.hardware, rules.thresholds);
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
         {"block_count", r.blocks.size()},
         // Every segment the capture was cut into: steps, layers and blocks (seed 002's count).
         {"segment_count", r.steps.size() + r.layers.size() + r.blocks.size()},
         {"diagnosis_counts", kpis.finding_counts},
         {"findings", findings},
         {"report_md", nullptr},
         {"report_html", nullptr},
         {"report_xlsx", nullptr},
         {"artifacts", artifacts}};
  if (run.kernel_focus) {
    const KernelFocus& f = *run.kernel_focus;
    Json per_rank = Json::object(), slowest = Json::object();
    for (const auto& [rank, n] : f.calls_per_rank) per_rank[std::to_string(rank)] = n;
    for (const auto& [rank, n] : f.slowest_count) slowest[std::to_string(rank)] = n;
    j["kernel_focus"] = {{"query", f.query},          {"matched_by", f.matched_by},
                         {"names", f.names},          {"calls_per_rank", per_rank},
                         {"iterations", f.iterations.size()}, {"slowest_rank_count", slowest}};
  }
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

Json AnalyzeFailureJson(const Status& status, const AnalyzeRunOptions& opt, std::string_view phase) {
  return Json{{"status", "failed"},
              {"phase", phase.empty() ? "setup" : phase},
              {"schema_version", kAnalyzeResultSchemaVersion},
              {"out_dir", opt.analyze.out_dir.empty() ? "" : ResolveAgainstCwd(opt.analyze.out_dir).string()},
              {"roots", RootsJson(opt.analyze)},
              {"error", status.message()}};
}

}  // namespace optrace::analyze::report
