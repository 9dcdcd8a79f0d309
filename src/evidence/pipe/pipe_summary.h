// Per-role summaries of msprof op metrics (seed 003: compare cores of the same job only).
//
//   OPTRACE_ASSIGN_OR_RETURN(OpprofRun run, LoadOpprof({"OPPROF_001"}));
//   PipeSummary s = SummarizePipe(run, &roles);   // nullptr: one role per core kind
//   for (const MetricEntry& m : s.metrics) ... m.per_role[i].summary   // nullopt + reason
//
// Each metric is summarised over the cores of a role that have a value: samples, mean, min,
// max and spread = max - min, with the core holding the max. Metrics named aic_* apply to
// roles with AIC cores, aiv_* to roles with AIV cores, unprefixed ones to every role.
// A metric the export lacks (a known A2/A3 column, or a whole table) is listed with reason
// "not provided" and no value. A metric present in several tables (aiv_time(us)) is taken
// from the first table in KnownMetricTables() order that provides it, then from tables of
// unknown names: a known column is summarised wherever it appears.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/roles.h"
#include "evidence/pipe/opprof.h"

namespace optrace::evidence {

inline constexpr std::string_view kNotProvided = "not provided";

struct MetricSummary {
  size_t samples = 0;
  double mean = 0, min = 0, max = 0, spread = 0;
  std::string max_core;  // "aiv 17"
};

struct RoleValue {
  std::string role;
  std::optional<MetricSummary> summary;
  std::string reason;  // why there is no summary: "not provided", "no values (NA)", ...
};

struct MetricEntry {
  std::string table;
  std::string name;
  bool provided = false;
  std::vector<RoleValue> per_role;  // roles the metric applies to, in role order
};

struct RoleInfo {
  std::string name;
  std::string declared;    // "aiv 0-15" as in the roles file; "all aiv" for default roles
  size_t declared_cores = 0;  // 0 for default roles (open-ended)
  size_t found_cores = 0;
  std::string missing;     // declared cores with no row in any table, "aiv 16-31"
};

// Cores OpBasicInfo.csv says the kernel ran on against the cores each metric export has rows for
// (seed 003: a core missing from an export is a problem line, never averaged away). Mix kernels:
// AIC = Block Dim, AIV = Mix Block Dim; vector kernels: AIV = Block Dim; cube kernels: AIC =
// Block Dim. A core is present in a table when one of its rows has a value.
struct TableCoverage {
  std::string table;
  size_t aic_found = 0, aiv_found = 0;
  std::string missing;  // expected cores without a row: "aic 3-7, aiv 6-15"
  std::string extra;    // cores beyond what OpBasicInfo declares
};

struct ExportCoverage {
  bool checked = false;
  std::string why_not;  // when not checked: "no OpBasicInfo.csv", "Block Dim is NA", ...
  std::string op_type;
  int64_t block_dim = -1, mix_block_dim = -1;
  size_t expected_aic = 0, expected_aiv = 0;
  std::vector<TableCoverage> tables;
  std::vector<std::string> problems;  // one line per table that misses or adds cores
};

struct PipeSummary {
  std::vector<std::string> inputs;
  std::optional<OpBasicInfo> op;
  ReplayCheck replay;  // the exports' agreement on the launch (several OPPROF directories of one run)
  uint32_t vectors_per_block = 1;
  bool default_roles = true;
  std::vector<RoleInfo> roles;
  std::vector<std::pair<std::string, std::string>> tables;  // name -> file ("" = not provided)
  std::vector<MetricEntry> metrics;
  std::string unassigned;  // cores in the export that no role claims, "aiv 32-39"
  std::vector<std::string> tables_without_metrics;  // files every column of which came from another file
  ExportCoverage coverage;
};

// The export coverage of a run (also filled by SummarizePipe).
ExportCoverage CheckExportCoverage(const OpprofRun& run);

PipeSummary SummarizePipe(const OpprofRun& run, const RoleMap* roles);
// An error naming the first input that yields no metric (see tables_without_metrics); the
// CLI exits 2 rather than print a summary that silently ignores a file.
Status CheckEveryTableYields(const PipeSummary& s);

struct MetricDelta {
  std::string table, name, role;
  std::optional<double> base_mean, compare_mean;
  std::optional<double> delta;      // compare - base
  std::optional<double> delta_pct;  // 100 * delta / base (absent when base is 0)
  std::string reason;               // when there is no delta
};

// Per-role deltas of the means, matched by metric name and role name.
std::vector<MetricDelta> ComparePipe(const PipeSummary& base, const PipeSummary& compare);

void WritePipeText(const PipeSummary& s, const std::vector<MetricDelta>* deltas, std::ostream& out);
nlohmann::ordered_json PipeJson(const PipeSummary& s, const PipeSummary* compare, const std::vector<MetricDelta>* deltas);

// "aiv 0-3,7" from a kind and sorted indices.
std::string CompressCores(format::CoreKind kind, const std::vector<uint32_t>& sorted);

}  // namespace optrace::evidence
