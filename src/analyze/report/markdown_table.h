// Markdown table writing shared by the report.md sections (internal to src/analyze/report).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/report/table.h"
#include "core/markdown_escape.h"

namespace optrace::analyze::report::internal {

using Row = std::vector<std::string>;

// Numbers as report.md writes them: milliseconds with 3 decimals, a ratio as a percentage, any
// number in its shortest exact form (table.h), ns as ms ("-" when unknown).
inline std::string Ms(double ms) { return fmt::format("{:.3f}", ms); }
inline std::string Pct(double ratio) { return fmt::format("{:.1f}%", ratio * 100.0); }
inline std::string Num(double v) { return FormatNumber(v); }
inline std::string NsMs(int64_t ns) { return ns < 0 ? "-" : Ms(static_cast<double>(ns) / 1e6); }

inline std::string Cellify(std::string s) {
  // A Markdown table cell: no pipes or newlines inside.
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// report.md's escaping of HTML outside code spans (core/markdown_escape.h).
using ::optrace::EscapeMarkdownHtml;

inline void MdTable(std::ostream& out, const Row& header, const std::vector<Row>& rows) {
  out << "|";
  for (const auto& h : header) out << " " << Cellify(h) << " |";
  out << "\n|";
  for (size_t i = 0; i < header.size(); ++i) out << "---|";
  out << "\n";
  for (const Row& r : rows) {
    out << "|";
    for (const auto& c : r) out << " " << Cellify(c) << " |";
    out << "\n";
  }
  out << "\n";
}

}  // namespace optrace::analyze::report::internal
