// Cross-checks between the sources of one rank: kernel rows against step_trace_time.csv
// (Computing, Communication, step time) and communication.json (HCCL op count), per step.
//
//   CheckSources(result, rules);  // fills summaries.coverage, RankSummary::kernel_coverage /
//                                 // low_confidence, and a data issue per rank below the threshold
//
// A kernel export that lost rows (a filtered or truncated kernel_details.csv) still analyzes
// cleanly; only the profiler's own summaries show that the step did more than the rows hold.
#pragma once

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {

void CheckSources(AnalysisResult& result, const Rules& rules);

}  // namespace optrace::analyze
