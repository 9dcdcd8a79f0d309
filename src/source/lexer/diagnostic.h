// One finding of scan or lint: where, how bad, which rule, what to do.
//
//   Diagnostic d{"op_kernel/gemm/block.h", 42, 7, Severity::kError, "pairing", "..."};
//   FormatDiagnostic(d) == "op_kernel/gemm/block.h:42:7: error: ... [pairing]"
#pragma once

#include <string>
#include <vector>

namespace optrace::source {

enum class Severity { kNote, kWarning, kError };

struct Diagnostic {
  std::string file;  // relative to the scanned root when it is inside it
  int line = 0;      // 1-based; 0 for whole-file or project findings
  int column = 0;
  Severity severity = Severity::kError;
  std::string rule;
  std::string message;
};

const char* SeverityName(Severity s);
// "file:line:col: error: message [rule]" (line/col omitted when 0).
std::string FormatDiagnostic(const Diagnostic& d);
// Sorted by file, line, column, rule; duplicates removed.
void SortDiagnostics(std::vector<Diagnostic>* diagnostics);

}  // namespace optrace::source
