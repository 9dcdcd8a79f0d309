// Markdown table writing shared by the report.md sections (internal to src/analyze/report).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/report/table.h"

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

// `<`, `>` and `&` outside code spans as entities: operator names, keys and paths come from the
// capture, and a viewer that renders inline HTML would otherwise run them. A code span (a run
// of N backticks up to the next run of exactly N on the line) is literal in Markdown: kept.
inline std::string EscapeMarkdownHtml(std::string_view md) {
  std::string out;
  out.reserve(md.size() + md.size() / 32);
  size_t i = 0;
  auto run_at = [&](size_t p) {
    size_t q = p;
    while (q < md.size() && md[q] == '`') ++q;
    return q - p;
  };
  while (i < md.size()) {
    char c = md[i];
    if (c == '`') {
      size_t n = run_at(i);
      size_t eol = md.find('\n', i);
      if (eol == std::string_view::npos) eol = md.size();
      size_t close = std::string_view::npos;
      for (size_t p = i + n; p < eol;) {
        if (md[p] != '`') {
          ++p;
          continue;
        }
        size_t m = run_at(p);
        if (m == n) {
          close = p;
          break;
        }
        p += m;
      }
      if (close != std::string_view::npos) {
        out.append(md.substr(i, close + n - i));
        i = close + n;
        continue;
      }
      out.append(md.substr(i, n));  // no closing run: literal backticks
      i += n;
      continue;
    }
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
    ++i;
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
