#include "core/csv_writer.h"

#include <cstdlib>

namespace optrace {
namespace {

bool IsNumber(std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

bool StartsAFormula(std::string_view text) {
  if (text.empty()) return false;
  switch (text.front()) {
    case '=':
    case '@':
    case '\t':
    case '\r':
      return true;
    case '+':
    case '-':
      return !IsNumber(text);
    default:
      return false;
  }
}

}  // namespace

std::string CsvCell(std::string_view text) {
  std::string cell;
  if (StartsAFormula(text)) cell += '\'';
  cell += text;
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace optrace
