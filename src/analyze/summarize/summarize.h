// summarize: operator, HCCL, step / layer / block class and rank summaries.
//
//   Summarize(result, rules);   // fills result.summaries
//   Summarize(result, rules, /*block_rows=*/true);   // also one BlockSummary per block (full mode)
//
// Operator summary: per (rank, name, type, op_type) count / total / mean / p50 / p90 / max in
// microseconds (quantiles: core/quantile.h), the 11 pipeline stage-time sums, and the bound
// classification (ComputeBound). HCCL: per (kind, comm_aiv_fused, rank), then across ranks with
// rank_skew_ratio = (max rank avg - min rank avg) / mean rank avg.
#pragma once

#include <string_view>

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {

// Per-block rows (Summaries::blocks) are kept only with `block_rows`: a capture has hundreds of
// thousands of blocks and only the full-mode block_summary table reads them one by one; the
// block class summaries are built either way.
// `threads` > 1 lets independent summaries run at the same time (the result is the same).
void Summarize(AnalysisResult& result, const Rules& rules, bool block_rows = false, int threads = 1);

// Fills Summaries::blocks (a full-mode report from the stage files of a fast run).
void SummarizeBlockRows(AnalysisResult& result, const Rules& rules);

// bound_stage: the largest of the 9 sub-stage sums (aic mac/scalar/mte1/mte2/fixpipe, aiv
// vec/scalar/mte2/mte3; mix_comm_aiv: the 4 AIV ones). bound_family: cube (aic_mac), vector
// (aiv_vec), aic_mte (aic mte1/mte2/fixpipe), aiv_mte (aiv mte2/mte3), scalar; "mixed" when the
// best stage of another family is within bound_mixed_margin of the top; aicpu / communication /
// comm_aiv_mix / dsa by op type; unknown without pipeline data. dominant_core from stage time:
// aic share >= dominant_core_share -> aic, <= 1 - that -> aiv, else mix; none without data.
// `compute_lens` ignores the op type (blocks: "compute-first", never short-cut to communication).
BoundInfo ComputeBound(OpType op_type, const PipeSums& sums, const Thresholds& t, bool compute_lens = false);
// The same as names of static storage: for a caller that classifies many rows and keeps only
// counts or one field (block classes, the step inspector), no string is made.
struct BoundNames {
  std::string_view bound_stage, bound_family, dominant_core;
};
BoundNames ComputeBoundNames(OpType op_type, const PipeSums& sums, const Thresholds& t, bool compute_lens = false);

// Adds the kept pipeline fields of one event (nullptr: none) of `table` to sums (NaN sums become
// numbers on their first value).
void AddPipe(PipeSums& sums, const RankTable& table, const std::optional<PipeView>& p);
PipeSums EmptyPipeSums();
// Adds one set of sums to another (a NaN in `from` adds nothing; a NaN in `into` takes the value).
void AddPipeSums(PipeSums& into, const PipeSums& from);

// Duration stats (us) of a sample of durations in us (sorted in place).
DurationStats StatsOf(std::vector<double>& us);

}  // namespace optrace::analyze
