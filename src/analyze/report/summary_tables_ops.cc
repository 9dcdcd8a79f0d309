// Operator, HCCL, collective and per-event tables.
#include <fmt/format.h>

#include "analyze/report/summary_tables.h"
#include "analyze/report/table_helpers.h"

namespace optrace::analyze::report {
using namespace internal;

namespace {

std::vector<std::string> StatsColumns() { return {"count", "total_us", "mean_us", "p50_us", "p90_us", "max_us", "min_us"}; }

void AppendStats(const DurationStats& s, std::vector<Cell>& row) {
  row.push_back(I(static_cast<int64_t>(s.count)));
  for (double v : {s.total_us, s.mean_us, s.p50_us, s.p90_us, s.max_us, s.min_us}) row.push_back(D(v));
}

void AppendBound(const BoundInfo& b, std::vector<Cell>& row) {
  row.push_back(S(b.bound_stage));
  row.push_back(S(b.bound_family));
  row.push_back(S(b.dominant_core));
}

template <typename... Lists>
std::vector<std::string> Concat(std::vector<std::string> head, const Lists&... rest) {
  (head.insert(head.end(), rest.begin(), rest.end()), ...);
  return head;
}

std::string RankValues(const std::vector<RankValue>& values) {
  std::vector<std::string> parts;
  for (const RankValue& v : values) parts.push_back(fmt::format("{}={}", v.rank, FormatNumber(v.value)));
  return Join(parts, ";");
}

}  // namespace

Table OperatorSummaryTable(const AnalysisResult& r) {
  Table t{"operator_summary",
          Concat({"name", "rank", "type", "op_type"}, StatsColumns(), PipeSumColumns(),
                 std::vector<std::string>{"pipe_event_count", "bound_stage", "bound_family", "dominant_core",
                                          "source_file", "first_row", "last_row"}),
          {}};
  for (const OperatorSummary& o : r.summaries.operators) {
    std::vector<Cell> row{S(r.Str(o.name)), I(o.rank), S(r.Str(o.type)), S(OpTypeName(o.op_type))};
    AppendStats(o.stats, row);
    AppendPipeSums(o.pipe_sums, row);
    row.push_back(I(static_cast<int64_t>(o.pipe_event_count)));
    AppendBound(o.bound, row);
    const RankTable* rank = r.FindRank(o.rank);
    row.push_back(rank && o.file < rank->files.size() ? S(rank->files[o.file].path) : Cell());
    row.push_back(I(o.first_row));
    row.push_back(I(o.last_row));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table OperatorClassSummaryTable(const AnalysisResult& r) {
  Table t{"operator_class_summary",
          Concat({"name", "type", "op_type", "rank_count", "call_count", "duration_sum_us"}, PipeSumColumns(),
                 std::vector<std::string>{"bound_stage", "bound_family", "dominant_core", "rank_duration_min_us",
                                          "rank_duration_max_us", "rank_duration_p50_us", "rank_duration_skew_ratio"}),
          {}};
  for (const OperatorClassSummary& o : r.summaries.operator_classes) {
    std::vector<Cell> row{S(r.Str(o.name)), S(r.Str(o.type)), S(OpTypeName(o.op_type)), I(o.rank_count),
                          I(static_cast<int64_t>(o.call_count)), D(o.duration_sum_us)};
    AppendPipeSums(o.pipe_sums, row);
    AppendBound(o.bound, row);
    for (double v : {o.rank_duration_min_us, o.rank_duration_max_us, o.rank_duration_p50_us, o.rank_duration_skew_ratio})
      row.push_back(D(v));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table HcclOpSummaryTable(const AnalysisResult& r) {
  Table t{"hccl_op_summary", Concat({"hccl_op_kind", "comm_aiv_fused", "rank"}, StatsColumns()), {}};
  for (const HcclSummary& h : r.summaries.hccl) {
    std::vector<Cell> row{S(h.kind), Bool(h.comm_aiv_fused), I(h.rank)};
    AppendStats(h.stats, row);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table HcclClassSummaryTable(const AnalysisResult& r) {
  Table t{"hccl_class_summary",
          {"hccl_op_kind", "comm_aiv_fused", "rank_count", "count", "total_us", "rank_avg_min_us", "rank_avg_max_us",
           "rank_avg_mean_us", "rank_skew_ratio", "min_rank", "max_rank"},
          {}};
  for (const HcclClassSummary& h : r.summaries.hccl_classes) {
    t.rows.push_back({S(h.kind), Bool(h.comm_aiv_fused), I(h.rank_count), I(static_cast<int64_t>(h.count)),
                      D(h.total_us), D(h.rank_avg_min_us), D(h.rank_avg_max_us), D(h.rank_avg_mean_us),
                      D(h.rank_skew_ratio), KnownI(h.min_rank), KnownI(h.max_rank)});
  }
  return t;
}

Table CollectiveAlignmentTable(const AnalysisResult& r) {
  Table t{"collective_alignment",
          {"step_id", "name", "occurrence", "hccl_op_kind", "rank_count", "skew_ratio", "shortest_rank", "outlier_rank",
           "test", "statistic", "critical", "dur_us_by_rank"},
          {}};
  for (const AlignedCollective& c : r.cross_rank.collectives) {
    t.rows.push_back({KnownI(c.step_id), S(r.Str(c.name)), I(c.occurrence), S(c.kind),
                      I(static_cast<int64_t>(c.dur_us.size())), D(c.skew_ratio), KnownI(c.shortest_rank),
                      KnownI(c.outlier_rank), S(c.test), D(c.statistic), D(c.critical), S(RankValues(c.dur_us))});
  }
  return t;
}

void WriteEventIndexCsv(const AnalysisResult& r, std::ostream& out) {
  // Streamed row by row: this table has one row per event and may not fit in memory as a Table.
  Table header{"normalized_event_index",
               {"rank", "event", "source_file", "row", "name", "type", "op_type", "accelerator_core", "step_id",
                "start_us", "dur_us", "wait_us", "stream_id", "task_id", "block_dim", "input_shapes"},
               {}};
  WriteCsv(header, out);
  Table one{"", {}, {{}}};
  for (const RankTable& rank : r.ranks) {
    for (size_t i = 0; i < rank.events.size(); ++i) {
      const Event& e = rank.events[i];
      const int64_t wait_ns = rank.WaitNs(e);
      one.rows[0] = {I(rank.rank), I(static_cast<int64_t>(i)),
                     e.file < rank.files.size() ? S(rank.files[e.file].path) : Cell(), I(e.row), S(r.Str(e.name)),
                     S(r.Str(e.type)), S(OpTypeName(e.op_type)), S(r.Str(e.core)), KnownI(e.step_id),
                     D(NsToUs(e.start_ns)), D(NsToUs(e.dur_ns)), wait_ns < 0 ? Cell() : D(NsToUs(wait_ns)),
                     KnownI(e.stream_id), KnownI(e.task_id), KnownI(e.block_dim), S(r.Str(e.input_shapes))};
      WriteCsvRows(one, out);
    }
  }
}

}  // namespace optrace::analyze::report
