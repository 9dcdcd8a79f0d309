// PC-sampling stall summaries (seed 003, step 4) with both denominators labelled.
//
//   OPTRACE_ASSIGN_OR_RETURN(StallTable t, ReadStallCsv("stalls.csv"));
//   StallReport r = AnalyzeStalls(t);
//   r.overall.reasons[i].share_of_all;         // count / all samples
//   r.overall.reasons[i].share_of_not_issued;  // count / (all - active); none for `active`
//
// Accepted input (docs/evidence.md): a CSV in long form, one row per (core, location, reason):
//   reason   (required; aliases stall_reason, Stall Reason): Stall_IBuf_Empty, ..., Stall_Others,
//            active; the Stall_ prefix and case are optional
//   count    (required; aliases samples, sample_count): non-negative integer sample count
//   core     (optional; alias core_id): "aiv 3", "AIV3" or a bare index
//   pc       (optional): instruction address as written (e.g. 0x1a40)
//   source   (optional): "file.cpp:123", or separate file and line columns
// Repeated keys are summed. Unknown reasons are kept under their own name, counted as
// not-issued samples, and reported as a warning.
// Samples are not time: no share here is converted to cycles (the seed warns against it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"

namespace optrace::evidence {

// The reasons the seed names, in report order; kActiveReason is the issued (not stalled) sample.
const std::vector<std::string_view>& KnownStallReasons();
inline constexpr std::string_view kActiveReason = "active";
// Canonical name for a reason as written ("ibuf_empty" -> "Stall_IBuf_Empty"), or "" if unknown.
std::string CanonicalStallReason(std::string_view text);

struct StallRow {
  std::string core;      // "" when the file has no core column
  std::string location;  // "file:line", else the pc, else ""
  std::string pc;
  std::string reason;    // canonical when known
  uint64_t count = 0;
};

struct StallTable {
  std::string input;
  bool has_core = false, has_location = false;
  std::vector<StallRow> rows;
  std::vector<std::string> warnings;
};

Result<StallTable> ReadStallCsv(const std::filesystem::path& path);
Result<StallTable> ReadStallCsvText(std::string text, const std::string& origin);

struct ReasonShare {
  std::string reason;
  uint64_t samples = 0;
  std::optional<double> share_of_all;         // none when the group has no samples
  std::optional<double> share_of_not_issued;  // none for active, or when every sample issued
};

struct StallGroup {
  std::string key;  // core or location; "" for the whole file
  uint64_t all_samples = 0;
  uint64_t active_samples = 0;
  uint64_t not_issued_samples = 0;
  std::vector<ReasonShare> reasons;  // known reasons first (zero included), then unknown ones
  const ReasonShare* TopStall() const;  // the largest non-active reason, or nullptr
};

struct StallReport {
  StallGroup overall;
  std::vector<StallGroup> per_core;      // by core label
  std::vector<StallGroup> per_location;  // by samples, descending
  std::vector<std::string> warnings;
};

// `table` must be non-empty with a positive total (ReadStallCsv guarantees it).
StallReport AnalyzeStalls(const StallTable& table);

void WriteStallText(const StallTable& table, const StallReport& report, std::ostream& out);
nlohmann::ordered_json StallJson(const StallTable& table, const StallReport& report);

}  // namespace optrace::evidence
