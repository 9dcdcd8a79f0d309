// analysis_summary.json: the compact, versioned conclusion of one analysis for agents and
// scripts: identity, step and layer validation, KPIs, findings with evidence, data issues,
// the artifact map and limitations. Schema: docs/analysis-summary-schema.md (consumers ignore
// unknown keys; a breaking change bumps schema_version).
//
//   nlohmann::ordered_json s = BuildAnalysisSummary(result, ComputeKpis(result), context);
//   out << JsonText(s);
#pragma once

#include <nlohmann/json.hpp>

#include "analyze/model/model.h"
#include "analyze/report/kpis.h"
#include "analyze/report/report_context.h"

namespace optrace::analyze::report {

inline constexpr int kAnalysisSummarySchemaVersion = 1;

nlohmann::ordered_json BuildAnalysisSummary(const AnalysisResult& result, const Kpis& kpis, const ReportContext& context);

// The pieces, shared with diagnosis_findings.json and the stdout result of `optrace analyze`.
nlohmann::ordered_json EvidenceJson(const Evidence& evidence);
nlohmann::ordered_json FindingJson(const Finding& finding);
nlohmann::ordered_json KpisJson(const Kpis& kpis);

}  // namespace optrace::analyze::report
