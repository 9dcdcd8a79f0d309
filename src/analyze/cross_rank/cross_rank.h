// cross_rank: align steps and collectives across ranks; skew, slow-rank votes, compute imbalance.
//
//   CrossRankAnalyze(result, rules);   // fills result.cross_rank
//
// Steps align by step id (or by ordinal when a rank has no step ids). Collectives (communication
// ops, send/recv excluded) match by (step, name, occurrence in the step). Skew = (max - min) /
// mean. Slow rank, the msprof-analyze way: the rank whose matching collective is shortest arrived
// last (the others waited for it). The shortest value is tested as an outlier: Dixon's Q (r10,
// alpha 0.05, dixon_q95.json) for 3..100 ranks, mean - k*sigma above 100 ranks, and for two ranks
// a skew above slow_rank_two_rank_skew; a flagged collective must also have skew >= rank_skew_ratio.
// Each flag is one vote for that rank.
#pragma once

#include <vector>

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {

void CrossRankAnalyze(AnalysisResult& result, const Rules& rules);

struct OutlierTest {
  bool low_outlier = false;
  std::string test;
  double statistic = 0, critical = 0;
};
// Tests whether the smallest of `values` is a low outlier (see above).
OutlierTest TestLowOutlier(std::vector<double> values, const Rules& rules);

}  // namespace optrace::analyze
