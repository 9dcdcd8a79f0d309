// The data report.html renders (embedded in the page as JSON, see html_report.h).
//
//   nlohmann::json view = BuildReportView(result, kpis, tables, context, /*max_table_rows=*/2000);
//   RenderHtml(view, out);
//
// Shape (schema_version 1; docs/analyze.md): title, generator, identity, kpis[{key,label,
// value,unit}], findings[{id,severity,type,summary,numbers,evidence[{kind:"rows"|"window",...}]}],
// timeline{origin_unix_ns, ranks[{rank,label,steps[{step,start_us,end_us,...}],gaps[...]}]},
// tables[{id,title,columns,rows,total_rows}]. Timeline times are microseconds from the earliest
// step start over all ranks (absolute clocks: ranks of one run share the Unix-epoch clock).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "analyze/model/model.h"
#include "analyze/report/kpis.h"
#include "analyze/report/report_context.h"
#include "analyze/report/table.h"

namespace optrace::analyze::report {

inline constexpr int kReportViewSchemaVersion = 1;

// Keeps only the rows of `table` the page shows (its first `max_rows` in the page's order; none
// for a table the page does not show), counting the rest in dropped_rows: called once its CSV
// is written, so a table of one row per step is not held whole until the page is built.
void TrimToViewRows(Table& table, size_t max_rows);

nlohmann::json BuildReportView(const AnalysisResult& result, const Kpis& kpis, const std::vector<Table>& tables,
                               const ReportContext& context, size_t max_table_rows);
// The page's step inspector for this context (its mode's event cap, its rules' thresholds):
// what BuildReportView embeds unless context.stream_inspector is set.
nlohmann::json BuildInspector(const AnalysisResult& result, const ReportContext& context);
// The same, as JSON text handed to `out` a piece at a time (what RenderHtml streams into the page
// when context.stream_inspector is set).
void WriteInspector(const AnalysisResult& result, const ReportContext& context,
                    const std::function<void(std::string_view)>& out);
// The same page from tables nothing needs afterwards: each table's rows are released as soon as
// they are in the view, so the cells and their JSON are never both held whole (the report
// stage's memory peak).
nlohmann::json BuildReportView(const AnalysisResult& result, const Kpis& kpis, std::vector<Table>&& tables,
                               const ReportContext& context, size_t max_table_rows);

}  // namespace optrace::analyze::report
