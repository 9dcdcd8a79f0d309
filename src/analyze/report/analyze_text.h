// What `optrace analyze` prints for a person (the default; `--format json` prints the object
// itself): at most about 20 lines, the capture, the step, the top findings and where the report
// is. Made from the same JSON object the machine output is (AnalyzeRunJson), so the two never
// disagree.
#ifndef OPTRACE_ANALYZE_REPORT_ANALYZE_TEXT_H_
#define OPTRACE_ANALYZE_REPORT_ANALYZE_TEXT_H_

#include <nlohmann/json.hpp>
#include <string>

namespace optrace::analyze::report {

// The most findings the summary lists; the rest are counted ("and N more in report.md").
inline constexpr int kSummaryFindings = 8;
// A finding's summary is cut to this many bytes (at a character boundary) on the terminal.
inline constexpr size_t kSummaryFindingWidth = 150;

// `run`: AnalyzeRunJson's object (status "ok", or "failed" with phase and error when the reports
// were written but the cut is not lossless). Lines end with '\n'.
std::string AnalyzeRunText(const nlohmann::ordered_json& run);

}  // namespace optrace::analyze::report

#endif  // OPTRACE_ANALYZE_REPORT_ANALYZE_TEXT_H_
