// Machine-readable outputs of a collection: the stats file (JSON with "schema_version", or CSV)
// and the trace's "otherData" object. Field tables: docs/trace-format.md.
//
//   std::string json = StatsToJson(table, result, settings);
//   std::string csv = StatsToCsv(table);
//
// Consumers must ignore keys they do not know; schema_version changes only when a key changes
// meaning or disappears.
#pragma once

#include <string>

#include "collect/chrome_writer.h"
#include "collect/collector.h"
#include "collect/stats.h"

namespace optrace::collect {

inline constexpr int kStatsSchemaVersion = 1;
inline constexpr int kTraceSchemaVersion = 1;

// How the collection was made, echoed into every output.
struct CollectSettings {
  std::string map_origin;
  double legacy_clock_mhz = 50;
  std::string mode;  // "default" or the --extra-mode given
  uint32_t depth = 0;
  Align align = Align::kRank;
  NameStyle names = NameStyle::kLabel;
  std::string roles_origin;
};

std::string StatsToJson(const StatsTable& t, const CollectResult& r, const CollectSettings& s);
// One row per (label, core kind) then per (label, role); a "group" column says which.
std::string StatsToCsv(const StatsTable& t);
std::string OtherDataJson(const CollectResult& r, const CollectSettings& s);

}  // namespace optrace::collect
