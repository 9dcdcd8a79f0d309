// Writers for a LatencyReport: text table, JSON (schema below), CSV, SVG plot.
//
//   WriteLatencyText(table, report, std::cout);
//   nlohmann::json j = LatencyJson(table, report);   // keys: docs/evidence.md
//
// JSON contract (schema_version 1, microseconds): per_iteration_max {median, p95, p99, mean,
// min, max, samples}, per_rank [{rank, median, p95, max, samples, ...}], problems [...],
// plus max_of_per_rank_p95, slowest_rank, reference_mean, warmup, inputs. Consumers ignore
// unknown keys.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "evidence/latency/latency.h"

namespace optrace::evidence {

void WriteLatencyText(const LatencyTable& table, const LatencyReport& report, std::ostream& out);
nlohmann::ordered_json LatencyJson(const LatencyTable& table, const LatencyReport& report);
// One row per scope: the per-iteration max distribution, each rank, the max of per-rank P95
// (in p95_us) and the reference mean (in mean_us); then a blank line and a second table of the
// problems: problem,rank,iteration,message (docs/evidence.md).
void WriteLatencyCsv(const LatencyReport& report, std::ostream& out);
// iteration, max_us, slowest_rank, complete, then one column per rank (empty when missing).
void WritePerIterationCsv(const LatencyTable& table, const LatencyReport& report, std::ostream& out);
// Per-rank box plot (whiskers min..max, box Q1..Q3, median line) beside the per-iteration max
// line; self-contained SVG 1.1.
std::string RenderLatencySvg(const LatencyTable& table, const LatencyReport& report);

}  // namespace optrace::evidence
