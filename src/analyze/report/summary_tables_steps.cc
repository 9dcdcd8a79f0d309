// Step, anatomy, rank, class, layer, block and cross-rank tables.
#include <fmt/format.h>

#include <algorithm>

#include "analyze/report/summary_tables.h"
#include "analyze/report/table_helpers.h"

namespace optrace::analyze::report {
using namespace internal;

namespace {

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Row span of a step/layer/block on its rank, as three cells: file, first, last.
void AppendRows(const AnalysisResult& r, int rank, EventRange range, std::vector<Cell>& row) {
  const RankTable* rt = r.FindRank(rank);
  RowSpan span = rt ? RowsOf(*rt, range) : RowSpan{};
  row.push_back(span.file.empty() ? Cell() : S(span.file));
  row.push_back(span.file.empty() ? Cell() : I(span.first));
  row.push_back(span.file.empty() ? Cell() : I(span.last));
}

int VotesOf(const AnalysisResult& r, int rank) {
  for (const SlowRankVote& v : r.cross_rank.votes)
    if (v.rank == rank) return v.votes;
  return 0;
}

}  // namespace

Table StepSummaryTable(const AnalysisResult& r) {
  Table t{"step_summary",
          {"rank", "step_id", "step_source", "step_class_id", "complete", "event_count", "start_us", "end_us", "wall_ms",
           "busy_ms", "bubble_ms", "comm_ms", "compute_ms", "comm_share", "exposed_comm_ms", "comm_overlap_ratio",
           "layer_count", "layer_anchor",
           "prelaunch_gap_ms", "tail_gap_ms", "profiler_step_ms", "host_prepare_ms", "host_tail_ms",
           "profiler_step_source", "anomaly_tags", "source_file", "first_row", "last_row"},
          {}};
  for (const Step& s : r.steps) {
    const StepAnatomy& a = s.anatomy;
    std::vector<Cell> row{I(s.rank), KnownI(s.step_id), S(s.step_source), S(s.step_class), Bool(s.complete),
                          I(s.events.size()), D(NsToUs(s.start_ns)), D(NsToUs(s.end_ns)), D(NsToMs(a.wall_ns)),
                          D(NsToMs(a.busy_ns)), D(NsToMs(a.bubble_ns)), D(NsToMs(s.comm_ns)), D(NsToMs(s.compute_ns)),
                          D(Ratio(static_cast<double>(s.comm_ns), static_cast<double>(a.wall_ns))),
                          D(NsToMs(s.exposed_comm_ns())),
                          D(Ratio(static_cast<double>(s.comm_overlap_ns()), static_cast<double>(s.comm_ns))),
                          I(static_cast<int64_t>(s.layers.size())), S(s.layer_anchor), KnownMs(s.prelaunch_gap_ns),
                          KnownMs(s.tail_gap_ns), KnownMs(s.profiler_step_ns), KnownMs(s.host_prepare_ns),
                          KnownMs(s.host_tail_ns), S(s.profiler_step_source), S(Join(s.anomaly_tags, "|"))};
    AppendRows(r, s.rank, s.events, row);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table StepAnatomyTable(const AnalysisResult& r) {
  Table t{"step_anatomy",
          {"rank", "step_id", "source_file", "first_row", "last_row", "start_us", "end_us", "wall_ms", "busy_ms",
           "bubble_ms", "head_ms", "main_ms", "tail_ms", "head_ratio", "main_ratio", "tail_ratio", "bubble_ratio",
           "max_gap_ms", "max_gap_start_us", "bubble_gap_count", "bubble_gap_ms", "has_bubble"},
          {}};
  for (const Step& s : r.steps) {
    const StepAnatomy& a = s.anatomy;
    double wall = static_cast<double>(a.wall_ns);
    std::vector<Cell> row{I(s.rank), KnownI(s.step_id)};
    AppendRows(r, s.rank, s.events, row);
    row.push_back(D(NsToUs(s.start_ns)));
    row.push_back(D(NsToUs(s.end_ns)));
    for (int64_t ns : {a.wall_ns, a.busy_ns, a.bubble_ns, a.head_ns, a.main_ns, a.tail_ns}) row.push_back(D(NsToMs(ns)));
    for (int64_t ns : {a.head_ns, a.main_ns, a.tail_ns, a.bubble_ns}) row.push_back(D(Ratio(static_cast<double>(ns), wall)));
    row.push_back(D(NsToMs(a.max_gap_ns)));
    row.push_back(a.max_gap_start_ns < 0 ? Cell() : D(NsToUs(a.max_gap_start_ns)));
    row.push_back(I(a.bubble_gap_count));
    row.push_back(D(NsToMs(a.bubble_gap_ns)));
    row.push_back(Bool(a.has_bubble));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table RankSummaryTable(const AnalysisResult& r) {
  std::vector<std::string> op_cols;
  for (int i = 0; i < kOpTypeCount; ++i) op_cols.push_back(std::string(OpTypeName(static_cast<OpType>(i))) + "_ms");
  Table t{"rank_summary",
          Concat(Concat({"rank", "input_kind", "base_ns", "event_count", "step_count", "complete_step_count", "wall_ms_sum",
                  "busy_ms_sum", "bubble_ms_sum", "comm_ms_sum", "compute_ms_sum", "step_wall_ms_p50",
                  "step_wall_ms_p90", "bubbling_step_count", "bubble_recurrence_ratio", "dominant_idle_pattern",
                  "recurring_bubble_pattern", "slow_rank_votes"},
                 op_cols), {"event_source", "kernel_coverage", "low_confidence", "node", "device_id", "dir", "pp_stage"}),
          {}};
  for (const RankSummary& s : r.summaries.ranks) {
    const RankTable* rt = r.FindRank(s.rank);
    std::vector<Cell> row{I(s.rank), rt ? S(InputKindName(rt->kind)) : Cell(), rt ? I(rt->base_ns) : Cell(),
                          I(static_cast<int64_t>(s.event_count)), I(s.step_count), I(s.complete_step_count)};
    for (double v : {s.wall_ms_sum, s.busy_ms_sum, s.bubble_ms_sum, s.comm_ms_sum, s.compute_ms_sum, s.step_wall_ms_p50,
                     s.step_wall_ms_p90})
      row.push_back(D(v));
    row.push_back(I(s.bubbling_step_count));
    row.push_back(D(s.bubble_recurrence_ratio));
    row.push_back(S(s.dominant_idle_pattern));
    row.push_back(Bool(s.recurring_bubble_pattern));
    row.push_back(I(VotesOf(r, s.rank)));
    for (double v : s.op_type_ms) row.push_back(D(v));
    row.push_back(S(rt ? rt->event_source : ""));
    row.push_back(D(s.kernel_coverage));
    row.push_back(Bool(s.low_confidence));
    row.push_back(S(rt ? rt->node : ""));
    row.push_back(rt && rt->device_id >= 0 ? I(rt->device_id) : Cell());
    row.push_back(S(rt ? rt->dir : ""));
    row.push_back(KnownI(s.pp_stage));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table StepClassSummaryTable(const AnalysisResult& r) {
  Table t{"step_class_summary",
          {"step_class_id", "members", "wall_ms_sum", "wall_ms_mean", "wall_ms_p50", "wall_ms_p90", "head_ratio_mean",
           "main_ratio_mean", "tail_ratio_mean", "bubble_ratio_mean", "top_layer_classes", "top_ops"},
          {}};
  for (const StepClassSummary& c : r.summaries.step_classes) {
    std::vector<std::string> layers;
    for (const auto& [id, ms] : c.top_layer_classes) layers.push_back(id + ":" + FormatNumber(ms));
    t.rows.push_back({S(c.id), I(c.members), D(c.wall_ms_sum), D(c.wall_ms_mean), D(c.wall_ms_p50), D(c.wall_ms_p90),
                      D(c.head_ratio_mean), D(c.main_ratio_mean), D(c.tail_ratio_mean), D(c.bubble_ratio_mean),
                      S(Join(layers, ";")), S(JoinTopOps(r, c.top_ops))});
  }
  return t;
}

Table LayerClassSummaryTable(const AnalysisResult& r) {
  Table t{"layer_class_summary",
          {"layer_class_id", "members", "companion_layer", "block_kinds", "block_kind_wall_ms_share_mean", "wall_ms_sum",
           "wall_ms_mean", "wall_ms_p50", "wall_ms_p90", "top_ops"},
          {}};
  for (const LayerClassSummary& c : r.summaries.layer_classes) {
    std::vector<std::string> kinds, shares;
    for (size_t i = 0; i < c.block_kinds.size(); ++i) {
      kinds.emplace_back(BlockKindName(c.block_kinds[i]));
      if (i < c.block_kind_wall_share_mean.size())
        shares.push_back(fmt::format("{}={}", BlockKindName(c.block_kinds[i]), FormatNumber(c.block_kind_wall_share_mean[i])));
    }
    t.rows.push_back({S(c.id), I(c.members), Bool(c.companion_layer), S(Join(kinds, "|")), S(Join(shares, "|")),
                      D(c.wall_ms_sum), D(c.wall_ms_mean), D(c.wall_ms_p50), D(c.wall_ms_p90), S(JoinTopOps(r, c.top_ops))});
  }
  return t;
}

Table BlockClassSummaryTable(const AnalysisResult& r) {
  Table t{"block_class_summary",
          Concat(Concat({"block_class_id", "block_kind", "members", "wall_ms_sum", "wall_ms_mean", "wall_ms_p50",
                         "wall_ms_p90", "comm_share_mean"},
                        PipeSumColumns()),
                 {"bound_stage", "bound_family", "dominant_core", "bound_family_member_histogram", "top_ops"}),
          {}};
  for (const BlockClassSummary& c : r.summaries.block_classes) {
    std::vector<Cell> row{S(c.id), S(BlockKindName(c.kind)), I(c.members), D(c.wall_ms_sum), D(c.wall_ms_mean),
                          D(c.wall_ms_p50), D(c.wall_ms_p90), D(c.comm_share_mean)};
    AppendPipeSums(c.pipe_sums, row);
    std::vector<std::string> hist;
    for (const auto& [family, n] : c.bound_family_member_histogram) hist.push_back(fmt::format("{}={}", family, n));
    row.push_back(S(c.bound.bound_stage));
    row.push_back(S(c.bound.bound_family));
    row.push_back(S(c.bound.dominant_core));
    row.push_back(S(Join(hist, "|")));
    row.push_back(S(JoinTopOps(r, c.top_ops)));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table CrossRankStepSummaryTable(const AnalysisResult& r) {
  Table t{"cross_rank_step_summary",
          {"step_id", "rank_count", "wall_ms_min", "wall_ms_max", "wall_ms_mean", "wall_skew_ratio", "compute_skew_ratio",
           "slowest_rank", "fastest_rank", "most_compute_rank", "wall_ms_by_rank", "compute_ms_by_rank"},
          {}};
  for (const AlignedStep& s : r.cross_rank.steps) {
    double lo = 0, hi = 0, sum = 0;
    std::vector<std::string> by_rank, compute_by_rank;
    for (size_t i = 0; i < s.wall_ms.size(); ++i) {
      double v = s.wall_ms[i].value;
      lo = i ? std::min(lo, v) : v;
      hi = i ? std::max(hi, v) : v;
      sum += v;
      by_rank.push_back(fmt::format("{}={}", s.wall_ms[i].rank, FormatNumber(v)));
    }
    // The rank that computes most: in a synchronised job the one the others wait for.
    int most_compute = -1;
    double most = 0;
    for (const RankValue& c : s.compute_ms) {
      compute_by_rank.push_back(fmt::format("{}={}", c.rank, FormatNumber(c.value)));
      if (most_compute < 0 || c.value > most) most_compute = c.rank, most = c.value;
    }
    double mean = s.wall_ms.empty() ? 0 : sum / static_cast<double>(s.wall_ms.size());
    t.rows.push_back({KnownI(s.step_id), I(static_cast<int64_t>(s.wall_ms.size())), D(lo), D(hi), D(mean),
                      D(s.wall_skew_ratio), D(s.compute_skew_ratio), KnownI(s.slowest_rank), KnownI(s.fastest_rank),
                      KnownI(s.compute_ms.size() > 1 ? most_compute : -1), S(Join(by_rank, ";")),
                      S(Join(compute_by_rank, ";"))});
  }
  return t;
}

Table LayerSummaryTable(const AnalysisResult& r) {
  Table t{"layer_summary",
          {"rank", "step_id", "layer_index", "layer_class_id", "companion_layer", "anchor", "block_kinds", "event_count",
           "start_us", "end_us", "wall_ms", "source_file", "first_row", "last_row"},
          {}};
  for (const Layer& l : r.layers) {
    const Step* step = l.step < r.steps.size() ? &r.steps[l.step] : nullptr;
    std::vector<std::string> kinds;
    for (uint32_t b : l.blocks)
      if (b < r.blocks.size()) kinds.emplace_back(BlockKindName(r.blocks[b].kind));
    std::vector<Cell> row{I(l.rank), step ? KnownI(step->step_id) : Cell(), I(l.index_in_step), S(l.layer_class < r.layer_classes.size() ? r.layer_classes[l.layer_class].id : ""),
                          Bool(l.companion_layer), S(r.Str(l.anchor_name)), S(Join(kinds, "|")), I(l.events.size()),
                          D(NsToUs(l.start_ns)), D(NsToUs(l.end_ns)), D(NsToMs(l.end_ns - l.start_ns))};
    AppendRows(r, l.rank, l.events, row);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table BlockSummaryTable(const AnalysisResult& r) {
  Table t{"block_summary",
          Concat(Concat({"rank", "step_id", "layer_index", "block_kind", "block_class_id", "companion_layer", "wall_ms",
                         "comm_share"},
                        PipeSumColumns()),
                 {"bound_stage", "bound_family", "dominant_core", "top_ops", "source_file", "first_row", "last_row"}),
          {}};
  for (const BlockSummary& bs : r.summaries.blocks) {
    if (bs.block >= r.blocks.size()) continue;
    const Block& b = r.blocks[bs.block];
    const Layer* l = b.layer < r.layers.size() ? &r.layers[b.layer] : nullptr;
    const Step* step = l && l->step < r.steps.size() ? &r.steps[l->step] : nullptr;
    std::vector<Cell> row{I(b.rank), step ? KnownI(step->step_id) : Cell(), l ? I(l->index_in_step) : Cell(),
                          S(BlockKindName(b.kind)), S(b.block_class < r.block_classes.size() ? r.block_classes[b.block_class].id : ""), l ? Bool(l->companion_layer) : Cell(),
                          D(bs.wall_ms), D(bs.comm_share)};
    AppendPipeSums(bs.pipe_sums, row);
    row.push_back(S(bs.bound.bound_stage));
    row.push_back(S(bs.bound.bound_family));
    row.push_back(S(bs.bound.dominant_core));
    row.push_back(S(JoinTopOps(r, bs.top_ops)));
    AppendRows(r, b.rank, b.events, row);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace optrace::analyze::report
