#include "collect/stats_writer.h"
#include "core/csv_writer.h"
#include "core/json_text.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace optrace::collect {
namespace {

using nlohmann::json;

json RowJson(const LabelStats& s) {
  json j = {{"label", s.label},
            {"core_kind", CoreKindKey(s.kind)},
            {"count", s.duration.count},
            {"total_us", s.duration.total},
            {"mean_us", s.duration.mean},
            {"min_us", s.duration.min},
            {"p50_us", s.duration.p50},
            {"p90_us", s.duration.p90},
            {"p99_us", s.duration.p99},
            {"max_us", s.duration.max},
            {"self_total_us", s.self_total},
            {"self_mean_us", s.self_mean},
            {"cores", s.cores},
            {"core_total_min_us", s.core_total_min},
            {"core_total_max_us", s.core_total_max},
            {"slowest_core", {{"rank", s.slowest_rank}, {"core_kind", CoreKindKey(s.kind)}, {"index", s.slowest_core}}}};
  if (!s.role.empty()) j["role"] = s.role;
  return j;
}

json DiagnosticsJson(const Diagnostics& d) {
  json arr = json::array();
  for (Problem p : d.Present()) {
    const ProblemInfo& info = InfoOf(p);
    const Diagnostics::Entry& e = d.Get(p);
    json j = {{"name", info.name},
              {"severity", SeverityName(info.severity)},
              {"count", e.count},
              {"description", info.description},
              {"examples", e.examples}};
    if (!e.summary.empty()) j["summary"] = e.summary;
    arr.push_back(std::move(j));
  }
  return arr;
}

json SettingsJson(const CollectSettings& s) {
  return {{"point_map", s.map_origin},
          {"legacy_clock_mhz", s.legacy_clock_mhz},
          {"extra_mode", s.mode},
          {"depth", s.depth},
          {"align", AlignName(s.align)},
          {"names", s.names == NameStyle::kLegacy ? "legacy" : "label"},
          {"roles", s.roles_origin}};
}

json InputsJson(const CollectResult& r) {
  json arr = json::array();
  for (const InputSummary& in : r.inputs) {
    arr.push_back({{"path", in.path},
                   {"rank", in.rank},
                   {"format", in.format == DumpFormat::kNative ? "native" : "legacy"},
                   {"slot_words", in.slot_words},
                   {"cores", in.cores},
                   {"never_written", in.never_written},
                   {"events", in.events},
                   {"dropped", in.dropped},
                   {"pairing", PairModeName(in.mode)}});
  }
  return arr;
}

json IdCountsJson(const CollectResult& r) {
  return {{"records", r.records},
          {"skipped_no_mapping", r.skipped_no_mapping},
          {"ids_in_dumps", r.ids_in_dumps},
          {"ids_in_map", r.ids_in_map},
          {"ids_in_both", r.ids_in_both}};
}

}  // namespace

std::string StatsToJson(const StatsTable& t, const CollectResult& r, const CollectSettings& s) {
  json doc = {{"schema_version", kStatsSchemaVersion},
              {"unit", "us"},
              {"percentile", "linear interpolation between closest ranks (numpy default)"},
              {"settings", SettingsJson(s)},
              {"counts", IdCountsJson(r)},
              {"intervals", r.interval_count},
              {"unmatched", r.collection.instants.size()}};
  json rows = json::array();
  for (const LabelStats& row : t.rows) rows.push_back(RowJson(row));
  doc["labels"] = std::move(rows);
  json roles = json::array();
  for (const LabelStats& row : t.role_rows) roles.push_back(RowJson(row));
  doc["roles"] = std::move(roles);
  doc["role_names"] = t.roles;
  doc["diagnostics"] = DiagnosticsJson(r.diagnostics);
  return JsonText(doc) + "\n";
}

std::string StatsToCsv(const StatsTable& t) {
  std::string out =
      "group,role,label,core_kind,count,total_us,mean_us,min_us,p50_us,p90_us,p99_us,max_us,self_total_us,"
      "self_mean_us,cores,core_total_min_us,core_total_max_us,slowest_rank,slowest_core\n";
  auto row = [&](const LabelStats& s, const char* group) {
    out += fmt::format("{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{:.3f},{:.3f},{},{}\n",
                       group, CsvCell(s.role), CsvCell(s.label), CoreKindKey(s.kind), s.duration.count,
                       s.duration.total, s.duration.mean, s.duration.min, s.duration.p50, s.duration.p90,
                       s.duration.p99, s.duration.max, s.self_total, s.self_mean, s.cores, s.core_total_min,
                       s.core_total_max, s.slowest_rank, s.slowest_core);
  };
  for (const LabelStats& s : t.rows) row(s, "kind");
  for (const LabelStats& s : t.role_rows) row(s, "role");
  return out;
}

std::string OtherDataJson(const CollectResult& r, const CollectSettings& s) {
  json doc = {{"producer", "optrace collect"},
              {"schema_version", kTraceSchemaVersion},
              {"settings", SettingsJson(s)},
              {"clocks", json::object()},
              {"inputs", InputsJson(r)},
              {"counts", IdCountsJson(r)},
              {"diagnostics", DiagnosticsJson(r.diagnostics)}};
  // Distinct clock rates per rank, so a reader can turn ts back into ticks.
  std::map<int32_t, std::set<double>> clocks;
  for (const SeriesInfo& si : r.collection.series) clocks[si.rank].insert(si.clock_hz);
  for (const auto& [rank, hz] : clocks) doc["clocks"][fmt::format("rank {}", rank)] = hz;
  return JsonText(doc, -1);
}

}  // namespace optrace::collect
