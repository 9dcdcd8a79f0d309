// report.xlsx: one worksheet per summary Table (libxlsxwriter), header row frozen and filtered.
//
//   OPTRACE_RETURN_IF_ERROR(WriteXlsx({&ops, &steps}, out_dir / "report.xlsx"));
//
// Written to a temporary file beside `path` and renamed over it, so a failed run never leaves
// a half-written workbook. Sheets longer than Excel's 1,048,576 rows are cut there and say so
// in their last row; the CSVs keep every row.
#pragma once

#include <filesystem>
#include <vector>

#include "analyze/report/table.h"
#include "core/status.h"

namespace optrace::analyze::report {

inline constexpr size_t kXlsxMaxRows = 1048576;  // rows per worksheet, header included

Status WriteXlsx(const std::vector<const Table*>& tables, const std::filesystem::path& path);

// The sheet name Excel accepts for a table name: at most 31 characters, none of []:*?/\.
std::string XlsxSheetName(const std::string& table_name);

}  // namespace optrace::analyze::report
