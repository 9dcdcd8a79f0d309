// The CSV summaries of `optrace analyze`, built from the analysis model as Tables (table.h);
// every writer (CSV files, report.xlsx sheets, report.html tables, report.md) uses these.
//
//   std::vector<Table> tables = BuildSummaryTables(result, /*full=*/false);
//   for (const Table& t : tables) WriteCsv(t, file_for(t.name + ".csv"));
//
// Fast mode: operator_summary, operator_class_summary, hccl_op_summary, hccl_class_summary,
// step_summary, step_anatomy, rank_summary, step_class_summary, layer_class_summary,
// block_class_summary, cross_rank_step_summary. Full mode adds the full-size tables:
// layer_summary, block_summary, collective_alignment; the per-event normalized_event_index.csv
// is streamed by WriteEventIndexCsv instead (it can hold millions of rows).
// Column meanings: docs/analyze.md. Times: *_us / *_ms; start/end are relative to the rank's
// time base (rank_summary.base_ns, absolute Unix ns); rows are 1-based lines of the source file.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <functional>

#include "analyze/model/model.h"
#include "analyze/report/table.h"

namespace optrace::analyze {
struct Efficiency;
struct KernelFocus;
}  // namespace optrace::analyze

namespace optrace::analyze::report {

std::vector<Table> BuildSummaryTables(const AnalysisResult& result, bool full);
// The same tables, each handed to `sink` as soon as it is built (so a writer can write and drop
// a table of one row per step before the next is built).
void BuildSummaryTables(const AnalysisResult& result, bool full, const std::function<void(Table&&)>& sink);

// normalized_event_index.csv: one row per event with its provenance, written row by row.
void WriteEventIndexCsv(const AnalysisResult& result, std::ostream& out);

// The efficiency tables (efficiency.h): operator_efficiency_summary, operator_roofline_summary,
// operator_not_modelled_summary, mfu_summary, hardware_theoretical_peaks, model_inferred_config,
// model_feature_summary, model_layer_type_summary. Written in both modes.
std::vector<Table> EfficiencyTables(const AnalysisResult& result, const Efficiency& efficiency);

// kernel_calls (one row per call of the focused kernel), kernel_iterations (the k-th call of every
// rank: max, min, slowest rank) and kernel_latency (rank, iteration, elapsed_us, is_warmup,
// in_average, measurement: `optrace latency`'s input format).
std::vector<Table> KernelFocusTables(const AnalysisResult& result, const KernelFocus& focus);

// One table by name, or nullptr.
const Table* FindTable(const std::vector<Table>& tables, const std::string& name);

// The individual builders (tests and the Markdown writer use them directly).
Table OperatorSummaryTable(const AnalysisResult& r);
Table OperatorClassSummaryTable(const AnalysisResult& r);
Table HcclOpSummaryTable(const AnalysisResult& r);
Table HcclClassSummaryTable(const AnalysisResult& r);
Table StepSummaryTable(const AnalysisResult& r);
Table StepAnatomyTable(const AnalysisResult& r);
Table RankSummaryTable(const AnalysisResult& r);
Table StepClassSummaryTable(const AnalysisResult& r);
Table LayerClassSummaryTable(const AnalysisResult& r);
Table BlockClassSummaryTable(const AnalysisResult& r);
Table CrossRankStepSummaryTable(const AnalysisResult& r);
Table LayerSummaryTable(const AnalysisResult& r);
Table BlockSummaryTable(const AnalysisResult& r);
Table CollectiveAlignmentTable(const AnalysisResult& r);
// Written when the capture has communication.json / communication_matrix.json.
Table CommunicationRankTable(const AnalysisResult& r);
Table CommunicationTransportTable(const AnalysisResult& r);
Table CommunicationLinkTable(const AnalysisResult& r);
Table CommunicationGroupTable(const AnalysisResult& r);  // when groups are known (profiler_metadata / communication.json)
Table CommunicationOpTable(const AnalysisResult& r);  // full mode
// The MoE / LLM tables (host launch, expert load, pipeline stages, memory peaks), each only when
// the capture has its inputs (summary_tables_parallel.cc).
void BuildParallelTables(const AnalysisResult& r, const std::function<void(Table&&)>& sink);

// Source rows of an event range: the file of its first event and the min/max row among the
// range's events from that file. file is "" for an empty range.
struct RowSpan {
  std::string file;
  uint32_t first = 0, last = 0;
};
RowSpan RowsOf(const RankTable& rank, EventRange range);

}  // namespace optrace::analyze::report
