// Reading msprof op (OPPROF_*) metric CSVs: PipeUtilization, Memory, L2Cache, ... by column name.
//
//   OPTRACE_ASSIGN_OR_RETURN(OpprofRun run, LoadOpprof({"OPPROF_001/"}));   // or single CSVs
//   for (const MetricTable& t : run.tables) ... t.rows[i].values[c]   // nullopt = NA
//
// One row per block_id x sub_block_id: `cube<k>` is an AIC, `vector<k>` an AIV. The core index
// used for roles: AIC = block_id; AIV = block_id * V + k where V (vectors per block) is the
// largest vector<k> + 1 seen in the run (AscendC's GetBlockIdx() on a vector core of a mixed
// 1C2V kernel). Columns are an open set keyed by name (Ascend 950 drops and adds some); the
// A2/A3 column lists of FORMATS.md section 10 are known so that absent ones can be reported
// as "not provided", never as 0. NA cells stay missing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "optrace/format.h"

namespace optrace::evidence {

struct MetricRow {
  uint32_t block = 0;
  std::string sub_block;  // as written: cube0, vector1
  format::CoreKind kind = format::CoreKind::kUnknown;
  uint32_t sub = 0;                            // k of cube<k> / vector<k>
  std::vector<std::optional<double>> values;   // parallel to MetricTable::columns
  uint64_t line = 0;
};

struct MetricTable {
  std::string name;  // canonical table name ("PipeUtilization"), or the file stem when unknown
  std::string path;
  std::vector<std::string> columns;  // metric columns in file order
  std::vector<MetricRow> rows;
  std::optional<size_t> Column(std::string_view metric) const;
};

struct OpBasicInfo {
  std::string path;
  std::vector<std::pair<std::string, std::string>> fields;  // header name -> first row value
  std::optional<std::string> Get(std::string_view name) const;
};

// Exports of one kernel collected by separate msprof op runs (one metric group each: the PMU
// counts a few events at a time) combine only when they are replays of the same launch: the same
// Op Name, Op Type, Block Dim, Mix Block Dim and Device Id in every OpBasicInfo.csv.
struct ReplayCheck {
  size_t exports = 0;                 // OpBasicInfo.csv files seen
  std::vector<std::string> agreeing;  // the identity fields every export states alike
  std::vector<std::string> notes;     // fields that may differ between replays and do (Current Freq)
};

struct OpprofRun {
  std::vector<std::string> inputs;
  std::vector<MetricTable> tables;  // canonical order, then unknown tables
  std::optional<OpBasicInfo> op_info;  // the first export's
  ReplayCheck replay;
  uint32_t vectors_per_block = 1;
  // Core index used for roles (see the header comment).
  uint32_t CoreIndex(const MetricRow& row) const;
};

// The metric tables optrace knows, in report order.
const std::vector<std::string_view>& KnownMetricTables();
// The A2/A3 columns of a known table (FORMATS.md section 10), or nullptr.
const std::vector<std::string_view>* KnownColumns(std::string_view table);
// "PipeUtilization" for PipeUtilization.csv and PipeUtilization_20250101120000.csv; "" otherwise.
std::string CanonicalTableName(std::string_view file_stem);
// The table kind a header describes when the file name does not say (a renamed
// PipeUtilization.csv): the known table sharing the most columns that not every table has;
// "OpBasicInfo" for its header; "" when nothing or several tables match equally.
std::string TableKindFromColumns(const std::vector<std::string>& columns);
// The core kind a metric describes: aic_* -> kAic, aiv_* -> kAiv, other -> kUnknown (any).
format::CoreKind MetricKind(std::string_view metric);

// Files and OPPROF directories; a table given twice is an error (use --compare for a 2nd run).
// Several OPPROF directories of one kernel (one metric group each) are one run when their
// OpBasicInfo.csv files agree on the launch's identity (ReplayCheck); otherwise an error names the
// field and both values.
// A file whose name is not a known table is recognised by its columns (TableKindFromColumns)
// and otherwise kept under its own name. A metric CSV without a metric column, or with a row
// shorter than its header, is an error.
Result<OpprofRun> LoadOpprof(const std::vector<std::filesystem::path>& paths);
// One metric CSV from text (tests); `name` is the canonical table name.
Result<MetricTable> ParseMetricTableText(std::string text, const std::string& origin, const std::string& name);

}  // namespace optrace::evidence
