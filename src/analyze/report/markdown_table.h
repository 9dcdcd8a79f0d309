// Markdown table writing shared by the report.md sections (internal to src/analyze/report).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace optrace::analyze::report::internal {

using Row = std::vector<std::string>;

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
