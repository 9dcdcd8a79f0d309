#include "source/lexer/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace optrace::source {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kNote: return "note";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

std::string FormatDiagnostic(const Diagnostic& d) {
  std::string where = d.file;
  if (d.line > 0) where += fmt::format(":{}:{}", d.line, d.column > 0 ? d.column : 1);
  return fmt::format("{}: {}: {} [{}]", where, SeverityName(d.severity), d.message, d.rule);
}

void SortDiagnostics(std::vector<Diagnostic>* v) {
  auto key = [](const Diagnostic& d) { return std::tie(d.file, d.line, d.column, d.rule, d.message); };
  std::stable_sort(v->begin(), v->end(), [&](const Diagnostic& a, const Diagnostic& b) { return key(a) < key(b); });
  v->erase(std::unique(v->begin(), v->end(), [&](const Diagnostic& a, const Diagnostic& b) { return key(a) == key(b); }),
           v->end());
}

}  // namespace optrace::source
