// optrace explain: where the time goes inside a kernel, from its trace (seed 000's follow-up: a
// phase / category / core-group breakdown with a deterministic diagnosis).
//
//   OPTRACE_ASSIGN_OR_RETURN(SpanSet spans, ReadTraceSpans("chrome_trace.json"));  // or SpansFromCollection
//   OPTRACE_ASSIGN_OR_RETURN(PhaseRules rules, LoadPhaseRules(""));                // built-in (+ --phase-map)
//   Explanation e = Explain(spans, rules, roles);   // roles: nullptr -> role words of the labels
//   nlohmann::ordered_json j = ExplanationJson(e);  // explain.json, schema_version 1
//
// Categories come from the labels' hot-semantic words (first rule that matches: wait before
// communication, dequant before quant); a span with children is a container: categories are
// counted on leaves, so nesting never double counts. Core groups: AIC cores are "cube"; AIV cores
// take a role from the roles file, else from their labels' role words (send / dispatch ->
// vector_send, recv / combine -> vector_recv), else "vector". Times are unions: the intervals of a
// phase on all cores of a group on one rank are merged before they are measured, so parallel cores
// and nesting never count twice; a share is that union over the rank's kernel wall (its last span
// end minus its first span start), averaged over ranks.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/bounded_regex.h"
#include "core/roles.h"
#include "core/status.h"
#include "explain/spans.h"

namespace optrace::explain {

inline constexpr int kExplainSchemaVersion = 1;

struct PhaseRule {
  std::string pattern;
  std::regex re;
  std::string value;  // category, or core group for role rules
};

struct PhaseRules {
  std::vector<PhaseRule> categories;  // first match wins; no match: "other"
  std::vector<PhaseRule> roles;       // label words -> core group of an AIV core
  std::vector<std::string> sources;   // "builtin", the --phase-map file
  // Diagnosis thresholds.
  double wait_share_min = 0.30;       // a group's wait share at least this ...
  double wait_concentration = 1.5;    // ... and this many times the other groups' mean
  double straggler_ratio = 1.5;       // a core / rank union this many times its peers' median
  double straggler_min_us = 1.0;      // ... and at least this much above it
  std::string Category(const std::string& label) const;
};

// Built-in rules, then `path` (JSON: {"categories": [{"regex", "category"}], "roles": [{"regex",
// "group"}], thresholds}; its rules are tried first). "" = built-in only.
Result<PhaseRules> LoadPhaseRules(const std::string& path);

struct PhaseRow {
  std::string group, phase, category;
  uint64_t count = 0;
  double total_us = 0;          // sum of durations (nesting and parallel cores counted every time)
  double union_us = 0;          // mean over ranks of the group's union on that rank
  double share_of_wall = 0;     // mean over ranks of union / kernel wall
  double core_p50_us = 0, core_max_us = 0;  // per core (rank, core) union of the phase
  std::string slowest_core;     // "AIV 17"
  int slowest_core_rank = -1;
  int slowest_rank = -1;        // the rank with the largest union
  std::map<int, double> rank_union_us;
  bool leaf = true;             // no instance of it has children
};

struct CategoryRow {
  std::string group, category;
  double union_us = 0, share_of_wall = 0;
  std::map<int, double> rank_share;
};

struct OverlapRow {
  std::string group, a, b;
  double overlap_us = 0, share_of_a = 0, share_of_b = 0;
};

struct CriticalRow {
  std::string group, parent, child;
  int times = 0, of = 0;  // the child was the longest of the parent's children `times` of `of` instances
};

struct ExplainFinding {
  std::string id, type, severity, summary;
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::string> cores;
  std::vector<int> ranks;
};

struct GroupInfo {
  std::string group;
  int cores = 0;  // (rank, core) pairs
};

struct CoreInfo {
  int rank = 0;
  std::string core;   // "AIV 3"
  std::string group;
};

// One rank's cores with their phases in time (explain.html #core-gantt): the rank with the
// longest kernel wall, at most kGanttCores cores and kGanttSpans spans (cores kept in order,
// each core's spans whole; what did not fit is counted).
inline constexpr size_t kGanttCores = 64;
inline constexpr size_t kGanttSpans = 8000;

struct GanttSpan {
  std::string phase, category;
  double begin_us = 0, end_us = 0;  // relative to the rank's first span
  int depth = 0;                    // 0: top level on its core
};

struct GanttCore {
  std::string core, group;
  std::vector<GanttSpan> spans;
};

struct CoreGantt {
  int rank = -1;
  std::vector<GanttCore> cores;
  size_t dropped_cores = 0, dropped_spans = 0;
};

struct Explanation {
  std::string source;
  std::vector<std::string> inputs;
  std::vector<int> ranks;
  std::map<int, double> wall_us;
  double kernel_wall_us = 0;
  std::vector<GroupInfo> groups;
  std::vector<CoreInfo> cores;           // every (rank, core) with its group
  std::vector<PhaseRow> phases;          // by share desc
  std::vector<CategoryRow> categories;   // by group, share desc
  std::vector<OverlapRow> overlaps;
  std::vector<CriticalRow> critical;
  std::vector<ExplainFinding> findings;
  std::vector<std::string> warnings;
  CoreGantt gantt;
};

Explanation Explain(const SpanSet& spans, const PhaseRules& rules, const RoleMap* roles);

nlohmann::ordered_json ExplanationJson(const Explanation& e);
void WriteExplainText(const Explanation& e, std::ostream& out);
void WriteExplainMarkdown(const Explanation& e, std::ostream& out);

}  // namespace optrace::explain
