// The seed-003 evidence report skeleton in Markdown, filled from whatever inputs were given.
//
//   EvidenceInputs in;
//   in.latency = LatencyEvidence{table, AnalyzeLatency(table, opt)};
//   in.pipe = SummarizePipe(run, &roles);
//   WriteEvidenceReport(in, out);
//
// Sections: environment and inputs, baseline, evidence (per-role metrics, stall shares),
// controlled comparison, open boundaries. What the files do not say is left as a visible
// blank ("_fill in_"), never guessed.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "evidence/environment/environment.h"
#include "evidence/report/bytes_definition.h"
#include "evidence/report/join_evidence.h"
#include "evidence/report/kernel_calls.h"
#include "evidence/report/rank_map.h"
#include "evidence/latency/latency.h"
#include "evidence/latency/latency_compare.h"
#include "evidence/pipe/pipe_summary.h"
#include "evidence/stall/stall.h"

namespace optrace::evidence {

struct LatencyEvidence {
  LatencyTable table;
  LatencyReport report;
};

struct StallEvidence {
  StallTable table;
  StallReport report;
};

struct EvidenceInputs {
  std::optional<LatencyEvidence> latency;
  std::optional<PipeSummary> pipe;
  std::optional<StallEvidence> stall;
  std::optional<EnvironmentInfo> environment;  // `optrace env -o` environment.json (section 1)
  // Section 4: a before run against the `latency` (after) run; factor in comparison->factor.
  std::optional<LatencyComparison> comparison;
  // The bytes a bandwidth counts (`--bytes FILE`); without it section 2 prints the seed's warning.
  std::optional<BytesDefinition> bytes;
  std::string roles_path;  // "" when none
  // Section 3.3's system timeline: the kernel's calls as the profiler recorded them
  // (`--kernel-calls`, the kernel_calls.csv of `optrace analyze ROOT --kernel NAME`).
  std::optional<KernelCalls> kernel_calls;
  // (`--api-latency`): the second scope of section 2, the whole dispatch API call (host launch to
  // return) per iteration and rank, beside the main kernel's.
  std::optional<LatencyEvidence> api_latency;
  // (`--join`, the --summary JSON of `optrace join`): the kernel's phases inside its task slices.
  std::optional<JoinEvidence> join;
  // (`--analysis DIR`, or the analyze folder holding --kernel-calls): hostname, node, global rank,
  // device id and PID per rank of the capture (section 1).
  std::optional<RankMap> rank_map;
};

// The metrics shown in the report's per-role table (all of them stay in `optrace pipe`).
const std::vector<std::string_view>& ReportKeyMetrics();

void WriteEvidenceReport(const EvidenceInputs& in, std::ostream& out);

}  // namespace optrace::evidence
