#include "analyze/report/table.h"

#include <fmt/format.h>

#include <cmath>

#include "core/csv_writer.h"

namespace optrace::analyze::report {
namespace {

void WriteCsvField(std::string_view text, std::ostream& out) {
  if (text.find_first_of(",\"\r\n=+-@\t") == std::string_view::npos) {  // the common case, unchanged
    out << text;
    return;
  }
  out << CsvCell(text);
}

}  // namespace

std::optional<size_t> Table::Column(const std::string& column) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == column) return i;
  }
  return std::nullopt;
}

std::string FormatNumber(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  // Rounding to 6 decimals keeps sums like 0.1 + 0.2 from printing 17 digits; beyond 1e9 the
  // value already has fewer than 6 reliable decimals, so it is printed as it is.
  double v = std::fabs(value) < 1e9 ? std::round(value * 1e6) / 1e6 : value;
  if (v == 0) v = 0;  // no "-0"
  return fmt::format("{}", v);
}

std::string FormatCell(const Cell& cell) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return fmt::format("{}", *i);
  if (const auto* d = std::get_if<double>(&cell)) return FormatNumber(*d);
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  return "";
}

Cell OptionalCell(const std::optional<double>& value) {
  return value ? Cell(*value) : Cell();
}

void WriteCsv(const Table& table, std::ostream& out) {
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (i) out << ',';
    WriteCsvField(table.columns[i], out);
  }
  out << '\n';
  WriteCsvRows(table, out);
}

void WriteCsvRows(const Table& table, std::ostream& out) {
  for (const auto& row : table.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out << ',';
      WriteCsvField(FormatCell(row[i]), out);
    }
    out << '\n';
  }
}

}  // namespace optrace::analyze::report
