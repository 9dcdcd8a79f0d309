// Table: one summary (operator_summary, step_summary, ...) as named columns and typed cells,
// built once from the analysis model and written by every writer (CSV, xlsx, HTML, Markdown).
//
//   Table t{"operator_summary", {"name", "rank", "count", "total_us"}, {}};
//   t.rows.push_back({Cell("MatMul"), Cell(int64_t{0}), Cell(int64_t{3}), Cell(12.5)});
//   WriteCsv(t, out_stream);
//
// Writers only format; they never compute. Doubles print with at most 6 decimals, shortest
// form, so files are stable across runs and platforms.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace optrace::analyze::report {

using Cell = std::variant<std::monostate, int64_t, double, std::string>;  // monostate = empty

struct Table {
  std::string name;  // file stem and sheet name: operator_summary -> operator_summary.csv
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  // Rows written to the CSV and then dropped from memory (only the rows the HTML shows are
  // kept): the table had rows.size() + dropped_rows rows.
  uint64_t dropped_rows = 0;

  // Index of `column`, or nullopt.
  std::optional<size_t> Column(const std::string& column) const;
};

// A cell as text: "" for empty, integers exact, doubles rounded to 6 decimals in shortest form.
std::string FormatCell(const Cell& cell);
// A double as FormatCell prints it.
std::string FormatNumber(double value);
// Shorthand for optional numbers: nullopt -> empty cell.
Cell OptionalCell(const std::optional<double>& value);

// RFC 4180: header line, then one line per row; fields with , " CR or LF are quoted.
void WriteCsv(const Table& table, std::ostream& out);
// Only the rows (no header): for tables streamed in pieces.
void WriteCsvRows(const Table& table, std::ostream& out);

}  // namespace optrace::analyze::report
