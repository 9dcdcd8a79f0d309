#include "analyze/report/segment_manifest.h"

#include <algorithm>

namespace optrace::analyze::report {
namespace {

using Json = nlohmann::ordered_json;

struct RankCoverage {
  uint64_t events = 0, inside = 0, leading = 0, trailing = 0, interior = 0;
};

RankCoverage CoverageOf(const AnalysisResult& r, const RankTable& t) {
  RankCoverage c;
  c.events = t.events.size();
  int64_t first = INT64_MAX, last = INT64_MIN;
  bool whole = false;
  for (const Step& s : r.steps) {
    if (s.rank != t.rank) continue;
    whole |= s.step_source == "whole_capture";
    first = std::min(first, s.start_ns);
    last = std::max(last, s.end_ns);
  }
  for (const Event& e : t.events) {
    if (whole || e.step_id >= 0) {
      ++c.inside;
    } else if (first == INT64_MAX || e.start_ns < first) {
      ++c.leading;
    } else if (e.start_ns >= last) {
      ++c.trailing;
    } else {
      ++c.interior;
    }
  }
  return c;
}

}  // namespace

SegmentCoverage ComputeSegmentCoverage(const AnalysisResult& r) {
  SegmentCoverage s;
  for (const DataIssue& i : r.issues)
    if (i.severity == "error") s.hard_errors += std::max<uint64_t>(1, i.count);
  for (const RankTable& t : r.ranks) {
    if (!t.has_timeline()) continue;
    RankCoverage c = CoverageOf(r, t);
    s.interior_island_total += c.interior;
    s.outside_total += c.leading + c.trailing + c.interior;
  }
  return s;
}

Json SegmentManifestJson(const AnalysisResult& r) {
  SegmentCoverage total;  // as ComputeSegmentCoverage, from the per-rank counts made here anyway
  for (const DataIssue& i : r.issues)
    if (i.severity == "error") total.hard_errors += std::max<uint64_t>(1, i.count);
  Json ranks = Json::array();
  for (const RankTable& t : r.ranks) {
    if (!t.has_timeline()) continue;
    RankCoverage c = CoverageOf(r, t);
    total.interior_island_total += c.interior;
    total.outside_total += c.leading + c.trailing + c.interior;
    Json steps = Json::array();
    size_t layers = 0;
    for (const Step& s : r.steps) {
      if (s.rank != t.rank) continue;
      layers += s.layers.size();
      Json step{{"step_id", s.step_id},
                {"source", s.step_source},
                {"complete", s.complete},
                {"first_event", s.events.first},
                {"last_event", s.events.last},  // half-open
                {"start_us", double(s.start_ns) / 1e3},
                {"end_us", double(s.end_ns) / 1e3},
                {"layers", s.layers.size()}};
      if (!s.events.empty()) {
        const Event& a = t.events[s.events.first];
        const Event& b = t.events[s.events.last - 1];
        if (a.file < t.files.size()) step["source_file"] = t.files[a.file].path;
        step["first_row"] = a.row;
        step["last_row"] = b.row;
      }
      steps.push_back(std::move(step));
    }
    ranks.push_back({{"rank", t.rank},
                     {"event_count", c.events},
                     {"events_in_steps", c.inside},
                     {"leading_outside", c.leading},
                     {"trailing_outside", c.trailing},
                     {"interior_island", c.interior},
                     {"step_count", steps.size()},
                     {"layer_count", layers},
                     {"steps", std::move(steps)}});
  }
  return Json{{"schema_version", 1},
              {"kind", "optrace.segment_manifest"},
              {"status", total.ok() ? "ok" : "failed"},
              {"hard_errors", total.hard_errors},
              {"interior_island_total", total.interior_island_total},
              {"outside_event_total", total.outside_total},
              {"ranks", std::move(ranks)}};
}

}  // namespace optrace::analyze::report
