// The file set of `optrace explain -o DIR`: explain.md, explain.json (schema_version 1, see
// docs/explain.md), explain.html (self-contained, SVG charts), explain_phases.csv,
// explain_categories.csv, explain_overlaps.csv, explain_critical.csv, explain_findings.csv.
//
//   OPTRACE_RETURN_IF_ERROR(WriteExplainFiles(explanation, "out/"));
#pragma once

#include <filesystem>

#include "core/status.h"
#include "explain/explain.h"

namespace optrace::explain {

Status WriteExplainFiles(const Explanation& e, const std::filesystem::path& dir);

}  // namespace optrace::explain
