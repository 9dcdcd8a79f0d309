// segment_manifest.json: how the capture's events were cut into steps, per rank and step, with the
// source rows of each step, so the cut can be checked against the export (seed 002's
// segment_manifest). Events outside every step are counted: at the capture's edges (before the
// first step, after the last) they are leading / trailing; between steps they are interior islands,
// which a lossless cut must not leave. hard_errors counts data issues of severity "error".
#pragma once

#include <nlohmann/json.hpp>

#include "analyze/model/model.h"

namespace optrace::analyze::report {

struct SegmentCoverage {
  uint64_t hard_errors = 0;
  uint64_t interior_island_total = 0;  // events between steps of their rank that no step holds
  uint64_t outside_total = 0;          // every event no step holds (edges included)
  bool ok() const { return hard_errors == 0 && interior_island_total == 0; }
};

SegmentCoverage ComputeSegmentCoverage(const AnalysisResult& r);
nlohmann::ordered_json SegmentManifestJson(const AnalysisResult& r);

}  // namespace optrace::analyze::report
