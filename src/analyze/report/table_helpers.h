// Helpers shared by the summary table builders (internal to src/analyze/report).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analyze/model/model.h"
#include "analyze/report/table.h"

namespace optrace::analyze::report::internal {

inline double NsToUs(int64_t ns) { return static_cast<double>(ns) / 1e3; }
inline double NsToMs(int64_t ns) { return static_cast<double>(ns) / 1e6; }
inline Cell I(int64_t v) { return Cell(v); }
inline Cell D(double v) { return IsMissing(v) ? Cell() : Cell(v); }
inline Cell S(std::string v) { return Cell(std::move(v)); }
inline Cell S(std::string_view v) { return Cell(std::string(v)); }
// A -1 "unknown" id or gap as an empty cell.
inline Cell KnownI(int64_t v) { return v < 0 ? Cell() : Cell(v); }
inline Cell KnownMs(int64_t ns) { return ns < 0 ? Cell() : Cell(NsToMs(ns)); }
inline Cell Bool(bool b) { return Cell(std::string(b ? "true" : "false")); }
inline double Ratio(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

// The 11 pipeline sum column names (aicore_time_us, ...), in kPipeSumFields order.
std::vector<std::string> PipeSumColumns();
void AppendPipeSums(const PipeSums& sums, std::vector<Cell>& row);
// "name:12.5;other:3" for (interned name, value) pairs.
std::string JoinTopOps(const AnalysisResult& r, const std::vector<std::pair<uint32_t, double>>& ops);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);

}  // namespace optrace::analyze::report::internal
