// Writes the whole report set of one analysis into a directory:
//   report.md, analysis_summary.json, diagnosis_findings.json, report.html, the summary CSVs
//   (summary_tables.h), manifest.json (stage and writer timings, artifact list), and with
//   `full`: report.xlsx (one sheet per summary), the full-size CSVs and normalized_event_index.csv.
//
//   ReportOptions opt{.out_dir = "out", .full = false, .generator = "optrace 0.1.0"};
//   OPTRACE_ASSIGN_OR_RETURN(ReportResult written, WriteReport(result, opt));
//
// Every file is written to a temporary name and renamed into place. Never prints.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analyze/efficiency/efficiency.h"
#include "analyze/efficiency/kernel_focus.h"
#include "analyze/model/model.h"
#include "analyze/report/kpis.h"
#include "core/status.h"

namespace optrace::analyze::report {

struct ReportOptions {
  std::filesystem::path out_dir;
  bool full = false;
  std::string generator = "optrace";
  size_t html_table_rows = 0;  // rows per table embedded in report.html; 0: 2000 (fast) / 20000 (full)
  // Hardware peaks, model config and rules of the efficiency sections (efficiency.h); without
  // hardware the FLOPs / bytes are written and MFU / roofline say which option gives them.
  EfficiencyOptions efficiency;
  // --kernel NAME: every call of that kernel (kernel_calls.csv, kernel_iterations.csv and
  // kernel_latency.csv in `optrace latency`'s input format).
  std::optional<KernelFocus> kernel_focus;
  // > 1: the efficiency model is built on a second thread while the summary tables are built and
  // written (the files are the same).
  int threads = 1;
};

struct WrittenArtifact {
  std::string key;   // "report_md", "operator_summary_csv", ...
  std::string file;  // relative to out_dir
  std::string what;
  uint64_t bytes = 0;
  double seconds = 0;
  std::optional<uint64_t> rows;  // data rows, for tables
};

struct ReportResult {
  std::vector<WrittenArtifact> artifacts;  // manifest.json last
  Kpis kpis;
  Efficiency efficiency;
  double seconds = 0;
};

Result<ReportResult> WriteReport(const AnalysisResult& result, const ReportOptions& options);

}  // namespace optrace::analyze::report
