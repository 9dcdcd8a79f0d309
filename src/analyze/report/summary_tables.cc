#include "analyze/report/summary_tables.h"

#include <algorithm>

#include "analyze/report/table_helpers.h"

namespace optrace::analyze::report {
namespace internal {

std::vector<std::string> PipeSumColumns() {
  std::vector<std::string> cols;
  for (Pipe p : kPipeSumFields) cols.push_back(std::string(PipeShortName(p)) + "_us");
  return cols;
}

void AppendPipeSums(const PipeSums& sums, std::vector<Cell>& row) {
  for (double v : sums) row.push_back(D(v));
}

std::string JoinTopOps(const AnalysisResult& r, const std::vector<std::pair<uint32_t, double>>& ops) {
  std::vector<std::string> parts;
  for (const auto& [name, us] : ops) parts.push_back(r.Str(name) + ":" + FormatNumber(us));
  return Join(parts, ";");
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace internal

RowSpan RowsOf(const RankTable& rank, EventRange range) {
  RowSpan span;
  if (range.empty() || range.last > rank.events.size()) return span;
  uint16_t file = rank.events[range.first].file;
  span.file = file < rank.files.size() ? rank.files[file].path : "";
  span.first = UINT32_MAX;
  for (uint32_t i = range.first; i < range.last; ++i) {
    const Event& e = rank.events[i];
    if (e.file != file) continue;
    span.first = std::min(span.first, e.row);
    span.last = std::max(span.last, e.row);
  }
  return span;
}

const Table* FindTable(const std::vector<Table>& tables, const std::string& name) {
  for (const Table& t : tables)
    if (t.name == name) return &t;
  return nullptr;
}

void BuildSummaryTables(const AnalysisResult& r, bool full, const std::function<void(Table&&)>& sink) {
  sink(OperatorSummaryTable(r));
  sink(OperatorClassSummaryTable(r));
  sink(HcclOpSummaryTable(r));
  sink(HcclClassSummaryTable(r));
  sink(StepSummaryTable(r));
  sink(StepAnatomyTable(r));
  sink(RankSummaryTable(r));
  sink(StepClassSummaryTable(r));
  sink(LayerClassSummaryTable(r));
  sink(BlockClassSummaryTable(r));
  sink(CrossRankStepSummaryTable(r));
  const bool comm = !r.summaries.comm_ranks.empty() || !r.summaries.comm_transports.empty() ||
                    !r.summaries.comm_links.empty();
  if (comm) {
    sink(CommunicationRankTable(r));
    sink(CommunicationTransportTable(r));
    sink(CommunicationLinkTable(r));
  }
  if (!r.summaries.groups.empty() || !r.cross_rank.groups.empty()) sink(CommunicationGroupTable(r));
  BuildParallelTables(r, sink);
  if (full) {
    sink(LayerSummaryTable(r));
    sink(BlockSummaryTable(r));
    sink(CollectiveAlignmentTable(r));
    if (comm) sink(CommunicationOpTable(r));
  }
}

std::vector<Table> BuildSummaryTables(const AnalysisResult& r, bool full) {
  std::vector<Table> tables;
  BuildSummaryTables(r, full, [&](Table&& t) { tables.push_back(std::move(t)); });
  return tables;
}

}  // namespace optrace::analyze::report
