// One `optrace analyze` run as a library call: the pipeline (RunAnalysis) and, when the stage
// range reaches `report`, the report set (WriteReport); plus the one JSON object the command
// prints on stdout. `optrace analyze` and `optrace sweep` both use it.
//
//   AnalyzeRunOptions opt;
//   opt.analyze.roots = {"prof"};  opt.analyze.out_dir = "out";  opt.analyze.to = Stage::kReport;
//   OPTRACE_ASSIGN_OR_RETURN(AnalyzeRun run, RunAnalyzeAndReport(opt));
//   std::cout << JsonText(AnalyzeRunJson(run, opt), -1) << "\n";
#pragma once

#include <nlohmann/json.hpp>
#include <filesystem>
#include <optional>
#include <string>

#include "analyze/pipeline/pipeline.h"
#include "analyze/report/report_writer.h"

namespace optrace::analyze::report {

inline constexpr int kAnalyzeResultSchemaVersion = 1;

struct AnalyzeRunOptions {
  AnalyzeOptions analyze;  // analyze.to == Stage::kReport writes the report set into analyze.out_dir
  std::string generator = "optrace";
  // Hardware peaks of the efficiency sections, first that applies: a profile file, a part of the
  // bundled table, the capture's own device name when it names one part, the CANN platform_config
  // of this host (unless cann_scan is off). Resolved before the analysis runs, so a bad name fails fast.
  std::string hardware_model;
  std::filesystem::path hardware_profile;
  std::filesystem::path model_config;   // config.json: cross-check of the model fingerprint
  std::string model_id;                 // a model of the rules' model_catalog.json, in place of model_config
  bool cann_scan = true;
  std::string kernel;   // --kernel NAME: every call of that kernel (kernel_focus.h); "" none
};

struct AnalyzeRun {
  AnalysisResult result;
  std::optional<ReportResult> report;  // set when the report stage ran
  std::optional<KernelFocus> kernel_focus;  // --kernel
};

// Runs the stages; reports the report stage to analyze.progress like the others.
Result<AnalyzeRun> RunAnalyzeAndReport(const AnalyzeRunOptions& options);

// The stdout object of a successful run: status, out_dir, mode, stage_timings, counts,
// diagnosis_counts, findings (id/severity/type/summary), artifacts (absolute paths),
// report_md/report_html/report_xlsx, analysis_summary (when the report was written).
nlohmann::ordered_json AnalyzeRunJson(const AnalyzeRun& run, const AnalyzeRunOptions& options);

// The stdout object of a failed run: status "failed", the phase (the stage that failed, e.g.
// "discover"; "setup" before any stage) and the error.
nlohmann::ordered_json AnalyzeFailureJson(const Status& status, const AnalyzeRunOptions& options,
                                          std::string_view phase);

}  // namespace optrace::analyze::report
