// report.md: the human report of one analysis, sections adapted from seed 002 (v0.4 layout):
// Executive Summary, Capture And Segmentation, Macro Step Timeline, Pipeline Coverage And Bound
// Families, Step Class View, Layer And Block View, Operator View, Step Inventory, Cross-Rank And
// Anomaly Findings, Model Fingerprint / Hardware Peaks / Roofline, Finding Inventory, Evidence Chain, Data Issues, Limitations, Artifacts.
//
//   WriteMarkdownReport(result, ComputeKpis(result), context, out_stream);
//
// Every claim in it is a number from the model or a finding with its evidence (file + rows, or
// rank + time window); what the model cannot support is listed under Limitations.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analyze/model/model.h"
#include "analyze/report/kpis.h"
#include "analyze/report/report_context.h"

namespace optrace::analyze::report {

void WriteMarkdownReport(const AnalysisResult& result, const Kpis& kpis, const ReportContext& context, std::ostream& out);

// One evidence item as a line of text: "rank1/kernel_details.csv rows 2-90 (rank 1, step 3)".
std::string EvidenceText(const AnalysisResult& result, const Evidence& evidence);

// Section 9, "Cross-Rank And Anomaly Findings" (markdown_cross_rank.cc); link_min_mb: the slow_link
// byte floor the slowest-links table applies too.
void CrossRankSection(const AnalysisResult& result, double link_min_mb, std::ostream& out);

// Section 10, "Model Fingerprint, Hardware Peaks And Roofline" (markdown_efficiency.cc); says
// what is missing when `efficiency` is null or has no hardware.
void EfficiencySection(const AnalysisResult& result, const Efficiency* efficiency, std::ostream& out);

// The --kernel focus (kernel_focus.h) at the end of the Operator View; nothing when null.
void KernelFocusSection(const AnalysisResult& result, const KernelFocus* focus, std::ostream& out);

// Limitations the report itself adds (sections of seed 002 this version does not compute).
std::vector<std::string> ReportLimitations();

}  // namespace optrace::analyze::report
