// The analysis model: what every stage of `optrace analyze` produces and every writer consumes.
//
//   AnalyzeOptions opt;
//   opt.roots = {"prof_root"};
//   opt.out_dir = "out";                    // stages/ is written under it when persist_stages
//   OPTRACE_ASSIGN_OR_RETURN(AnalysisResult r, RunAnalysis(opt));
//   for (const Finding& f : r.findings) ...  // id, severity, type, summary, numbers, evidence
//
// Stages, in order: discover, normalize, segment, classify, summarize, cross_rank, diagnose
// (report is the writers' business). Each stage fills its part of AnalysisResult; each can be
// persisted to OUT/stages/<stage>.bin and reloaded (from/to/only in AnalyzeOptions).
//
// Times: int64 nanoseconds relative to the rank's base (RankTable::base_ns is the absolute
// Unix-epoch ns of time 0), so that events of one rank compare exactly. Cross-rank comparisons
// add the base back (AbsNs). Missing numbers are NaN (pipeline fields) or -1 (ids, gaps), never 0.
// Strings (operator names, types, shapes) are interned once for the whole analysis: an id
// compares equal across ranks.
//
// The model is data only, one header per stage's part (strings.h, inputs.h, events.h, segments.h,
// summaries.h, alignment.h, findings.h, each including the one before); this header adds the whole
// result. The stages live in the rooms beside this one: read/, segment/, summarize/, cross_rank/,
// diagnose/, sequenced by pipeline/.
#pragma once

#include "analyze/model/findings.h"

namespace optrace::analyze {

struct StageTiming {
  std::string stage;
  std::string status;  // ran, loaded, skipped
  double seconds = 0;
};

struct Identity {
  std::vector<std::string> roots;
  std::vector<int> ranks;
  std::vector<std::string> input_kinds;  // per rank, same order as ranks
  std::string profiler_level, torch_npu_version, cann_version, device_name;
  uint64_t event_count = 0;
  int step_count = 0, layer_count = 0;
};

struct AnalysisResult {
  int schema_version = kModelSchemaVersion;
  Discovery discovery;
  StringTable strings;
  std::vector<RankTable> ranks;   // sorted by rank id
  std::vector<Step> steps;        // sorted by (rank, start)
  std::vector<Layer> layers;
  std::vector<Block> blocks;
  std::vector<ShapeClass> step_classes, layer_classes, block_classes;
  Summaries summaries;
  CrossRank cross_rank;
  std::vector<Finding> findings;  // sorted by severity desc, then id
  std::vector<DataIssue> issues;
  std::vector<std::string> limitations;  // sentences for the report
  std::vector<StageTiming> timings;
  Identity identity;

  const RankTable* FindRank(int rank) const;
  const std::string& Str(uint32_t id) const { return strings.Get(id); }
};

}  // namespace optrace::analyze
