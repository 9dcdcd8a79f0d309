// The diagnose stage's part of the model: findings with their evidence, and data issues.
#pragma once

#include "analyze/model/alignment.h"

namespace optrace::analyze {

enum class Severity : uint8_t { kInfo, kLow, kMedium, kHigh };
std::string_view SeverityName(Severity s);
// "0-3,5,7": sorted rank ids with runs collapsed.
std::string FormatRankList(std::vector<int> ranks);

struct Evidence {
  std::string file;         // source file ("" for a rank/time-window evidence)
  uint32_t row_first = 0;   // row range in that file (inclusive), 0 when not applicable
  uint32_t row_last = 0;
  int rank = -1;
  int64_t step_id = -1;
  int64_t window_start_ns = -1;  // absolute Unix ns; -1 when not applicable
  int64_t window_end_ns = -1;
  std::string note;         // "collective hcom_allReduce__586_0_1 #0 on rank 5"
};

struct Finding {
  std::string id;      // "F001"
  Severity severity = Severity::kInfo;
  std::string type;    // slow_rank, communication_dominated_step, recurring_bubble_pattern, prelaunch_gap_heavy,
                       // tail_gap_heavy, aicpu_on_critical_path, top_operator, rank_step_skew, compute_imbalance,
                       // collective_rank_skew
  std::string summary; // one sentence
  int rank = -1;       // the rank it is about (-1 for all); for a rolled-up finding the worst rank
  std::vector<int> ranks;  // every rank the pattern was seen on (rolled up: one finding per pattern)
  int64_t step_id = -1;
  std::vector<std::pair<std::string, double>> numbers;  // named values ("votes", 7)
  std::vector<Evidence> evidence;
  // How sure the finding is: "high" (measured on complete data), "medium" (a cause inferred from
  // the measurement), "low" (it rests on a rank whose rows are incomplete). Its severity never
  // outranks it: high needs high, medium confidence caps at medium, low at low.
  std::string confidence = "high";
  std::vector<std::pair<std::string, std::string>> knowledge_refs;  // (what to read, what to try)
};

// A data problem: counted, not fatal (the stats table of STYLE.md).
struct DataIssue {
  std::string name;         // "csv_row_unparsable", "rank_without_kernel_data", ...
  std::string severity;     // info, data_loss, error
  std::string description;
  uint64_t count = 0;
  std::string example;      // "file:line" of the first occurrence
};

}  // namespace optrace::analyze
