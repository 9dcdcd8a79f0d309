// The data of report.html's overview plots (page/breakdown.js, page/comm_matrix.js), built from
// the analysis: what each rank's step is made of, what each step is made of, and who sends how
// much to whom. Each is null when the capture cannot give it, and the page then leaves the plot
// out instead of drawing an empty box.
#ifndef OPTRACE_ANALYZE_REPORT_REPORT_PLOTS_H_
#define OPTRACE_ANALYZE_REPORT_REPORT_PLOTS_H_

#include <nlohmann/json.hpp>

#include "analyze/model/model.h"

namespace optrace::analyze::report {

// At most this many bars in the per-step chart: more steps are shown as consecutive groups.
inline constexpr size_t kStepBreakdownBars = 240;

// Per rank, the mean complete step split into compute, communication not hidden behind compute
// (transfer and, where communication.json gives the rank's wait ratio, its wait part) and free
// time (idle inside the step); ranks ordered by compute, most first; `slow` marks the rank of the
// slow_rank finding. {"ranks": [{rank, steps, wall_ms, compute_ms, comm_ms, wait_ms|null,
// free_ms, slow, low_confidence}], "wait_source"}; null without complete steps.
nlohmann::json RankBreakdownJson(const AnalysisResult& r);

// Per step id (the mean over the ranks that have it), the same split; consecutive ids grouped
// when there are more than kStepBreakdownBars. {"bars": [{first_step, last_step, ranks, wall_ms,
// wall_ms_max, compute_ms, comm_ms, free_ms}], "grouped"}; null without complete steps.
nlohmann::json StepBreakdownJson(const AnalysisResult& r);

// communication_matrix.json's links as a rank x rank matrix: global ranks where the capture's
// parallel groups map them, else the ranks local to each group (one matrix per group).
// {"matrices": [{"group", "global", "ranks": [..], "cells": [{src, dst, size_mb, time_ms,
// bandwidth_gbps, transport}]}]}; null without links.
nlohmann::json CommMatrixJson(const AnalysisResult& r);

}  // namespace optrace::analyze::report

#endif  // OPTRACE_ANALYZE_REPORT_REPORT_PLOTS_H_
