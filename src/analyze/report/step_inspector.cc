#include "analyze/report/step_inspector.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <cmath>
#include <functional>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyze/efficiency/efficiency.h"
#include "analyze/report/step_selection.h"
#include "analyze/segment/segment.h"
#include "analyze/summarize/summarize.h"

namespace optrace::analyze::report {
namespace {

constexpr size_t kMaxListedSteps = 20000;
constexpr size_t kMinListedStepsPerRank = 64;

using Json = nlohmann::json;

// The lane kinds, in the order the page stacks them.
enum Lane { kCompute = 0, kCommunication = 1, kAicpuLane = 2 };

int LaneOf(OpType op) {
  if (op == OpType::kCommunication || op == OpType::kMixCommAiv) return kCommunication;
  if (op == OpType::kAicpu) return kAicpuLane;
  return kCompute;
}

// Microseconds with ns resolution: integer ns / 1e3 prints short in JSON.
double Us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

Json Finite(double v) { return std::isfinite(v) ? Json(v) : Json(); }

// A string table built on first use: model string id (or any key) -> index in `list`.
template <typename Key>
struct Table {
  std::unordered_map<Key, int> index;
  Json list = Json::array();
  template <typename Make>
  int Of(const Key& k, Make make) {
    auto [it, added] = index.try_emplace(k, static_cast<int>(list.size()));
    if (added) list.push_back(make());
    return it->second;
  }
};

struct RankSteps {
  const RankTable* table = nullptr;
  std::vector<const Step*> steps;  // in time order
  std::vector<const char*> pick;   // why each step was embedded ("" round-robin, nullptr not embedded)
  std::vector<uint32_t> limit;     // events embedded of each picked step (its first ones)
};

// Marks the steps whose events go into the page: per rank slowest / median complete and first
// (each pass over all ranks before the next, so a tight cap still gives every rank its slowest
// step), then round-robin in time order; a step is taken only while the total fits the cap.
size_t PickSteps(std::vector<RankSteps>& ranks, size_t max_events) {
  size_t total = 0;
  auto take = [&](RankSteps& rs, size_t i, const char* why) {
    if (rs.pick[i] || total + rs.steps[i]->events.size() > max_events) return;
    rs.pick[i] = why;
    rs.limit[i] = rs.steps[i]->events.size();
    total += rs.steps[i]->events.size();
  };
  std::vector<std::vector<size_t>> by_wall(ranks.size());
  for (size_t k = 0; k < ranks.size(); ++k) {
    for (size_t i = 0; i < ranks[k].steps.size(); ++i)
      if (ranks[k].steps[i]->complete) by_wall[k].push_back(i);
    auto wall = [&](size_t i) { return ranks[k].steps[i]->end_ns - ranks[k].steps[i]->start_ns; };
    std::stable_sort(by_wall[k].begin(), by_wall[k].end(), [&](size_t a, size_t b) { return wall(a) < wall(b); });
  }
  for (size_t k = 0; k < ranks.size(); ++k)
    if (!by_wall[k].empty()) take(ranks[k], by_wall[k].back(), "slowest");
  for (size_t k = 0; k < ranks.size(); ++k)
    if (!by_wall[k].empty()) take(ranks[k], by_wall[k][(by_wall[k].size() - 1) / 2], "median");
  for (size_t k = 0; k < ranks.size(); ++k)
    if (!ranks[k].steps.empty()) take(ranks[k], 0, "first");
  std::vector<size_t> next(ranks.size(), 0);
  for (bool more = true; more;) {
    more = false;
    for (size_t k = 0; k < ranks.size(); ++k) {
      RankSteps& rs = ranks[k];
      // Taken steps are passed; so is a step too large for what is left (a later, smaller one
      // may still fit).
      while (next[k] < rs.steps.size() &&
             (rs.pick[next[k]] || total + rs.steps[next[k]]->events.size() > max_events))
        ++next[k];
      if (next[k] >= rs.steps.size()) continue;
      take(rs, next[k]++, "");
      more = true;
    }
  }
  // A rank whose every step is larger than what was left still shows the first events of its
  // slowest step (a big training step can hold more events than the whole cap).
  std::vector<size_t> bare;
  for (size_t k = 0; k < ranks.size(); ++k)
    if (std::none_of(ranks[k].pick.begin(), ranks[k].pick.end(), [](const char* p) { return p != nullptr; }))
      bare.push_back(k);
  for (size_t j = 0; j < bare.size(); ++j) {
    RankSteps& rs = ranks[bare[j]];
    const size_t share = (max_events - total) / (bare.size() - j);
    if (share == 0) continue;
    size_t i = by_wall[bare[j]].empty() ? 0 : by_wall[bare[j]].back();
    rs.pick[i] = "slowest, truncated";
    rs.limit[i] = static_cast<uint32_t>(std::min<size_t>(share, rs.steps[i]->events.size()));
    total += rs.limit[i];
  }
  return total;
}

}  // namespace

void WriteStepInspector(const AnalysisResult& r, const Efficiency* eff, const Thresholds& t, size_t max_events,
                        const std::function<void(std::string_view)>& out) {
  std::vector<RankSteps> ranks;
  std::map<int, std::vector<const Step*>> steps_of = internal::StepsByRank(r);
  for (const RankTable& table : r.ranks) {
    if (!table.has_timeline()) continue;
    RankSteps rs;
    rs.table = &table;
    rs.steps = std::move(steps_of[table.rank]);
    if (rs.steps.empty()) continue;
    rs.pick.assign(rs.steps.size(), nullptr);
    rs.limit.assign(rs.steps.size(), 0);
    ranks.push_back(std::move(rs));
  }
  const size_t embedded = PickSteps(ranks, max_events);

  Table<uint32_t> names, types, shapes, dtypes;
  Table<int> op_types;
  Table<std::string_view> bounds;  // names of static storage (ComputeBoundNames)
  Table<const OpCost*> costs;
  auto str = [&](uint32_t id) { return [&r, id] { return Json(r.Str(id)); }; };
  auto cost_of = [&](const OpCost* c) {
    return costs.Of(c, [&] {
      return Json{{"family", c->family}, {"dtype", c->compute_dtype}, {"peak_key", PeakKeyOf(*c)},
                  {"flops", c->flops},   {"bytes", c->bytes},         {"intensity", c->intensity()},
                  {"dims", c->dims},     {"note", c->note}};
    });
  };

  Json pipe_fields = Json::array();
  for (Pipe p : kPipeSumFields) pipe_fields.push_back(PipeShortName(p));

  // The keys come out in the order the JSON object sorts them (costs, ..., peaks, pipe_fields,
  // ranks, strings, ...): what precedes "ranks" (the cost table, the counts) is found first by a
  // pass without text, in the order the events are written, so each cost keeps its index.
  // The page lists the embedded steps and, of the others, the heaviest by wall: at most about
  // kMaxListedSteps in all (400k one-row steps made 53 MB of step list; issue 29.12).
  const size_t list_cap =
      std::max<size_t>(kMinListedStepsPerRank, kMaxListedSteps / std::max<size_t>(1, ranks.size()));
  size_t total_events = 0, total_steps = 0, listed_steps = 0;
  std::vector<std::vector<uint8_t>> listed(ranks.size());
  for (size_t k = 0; k < ranks.size(); ++k) {
    const RankSteps& rs = ranks[k];
    listed[k] = internal::HeaviestSteps(rs.steps, list_cap);
    for (size_t i = 0; i < rs.steps.size(); ++i) {
      if (rs.pick[i]) listed[k][i] = 1;  // an embedded step is always listed
      total_events += rs.steps[i]->events.size();
      ++total_steps;
      listed_steps += listed[k][i];
      if (!rs.pick[i] || !eff) continue;
      const uint32_t first = rs.steps[i]->events.first;
      for (uint32_t e = first; e < first + rs.limit[i]; ++e)
        if (const OpCost* c = eff->CostOf(rs.table->events[e])) cost_of(c);
    }
  }

  // Peaks once, for the peak keys the embedded costs use; the page divides per event.
  Json peaks;
  if (eff && eff->hardware) {
    Json tflops = Json::object();
    for (const Json& c : costs.list) {
      const std::string key = c["peak_key"];
      if (!tflops.contains(key)) tflops[key] = Finite(eff->hardware->PeakTflops(key));
    }
    peaks = {{"hardware", eff->hardware->name},
             {"tflops", tflops},
             {"hbm_bandwidth_gbps", Finite(eff->hardware->hbm_bandwidth_gbps)}};
  }

  // What the page's serializer would write for `j` (error_handler::replace: a stray invalid UTF-8
  // byte in an operator name must not abort the page).
  auto write = [&](const Json& j) { out(j.dump(-1, ' ', false, Json::error_handler_t::replace)); };
  out("{\"costs\":");
  write(costs.list);
  out(",\"embedded_events\":");
  write(Json(embedded));
  out(",\"lanes\":");
  write(Json::array({"compute", "communication", "aicpu"}));
  out(",\"listed_steps\":");
  write(Json(listed_steps));
  out(",\"max_events\":");
  write(Json(max_events));
  out(",\"peaks\":");
  write(peaks);
  out(",\"pipe_fields\":");
  write(pipe_fields);
  out(",\"ranks\":[");
  for (size_t k = 0; k < ranks.size(); ++k) {
    const RankSteps& rs = ranks[k];
    const RankTable& table = *rs.table;
    out(k ? ",{\"rank\":" : "{\"rank\":");
    write(Json(table.rank));
    out(",\"steps\":[");
    bool first_step = true;
    for (size_t i = 0; i < rs.steps.size(); ++i) {
      if (!listed[k][i]) continue;
      const Step& s = *rs.steps[i];
      Json step{{"step", s.step_id},         {"start_us", Us(s.start_ns)}, {"wall_us", Us(s.end_ns - s.start_ns)},
                {"complete", s.complete},    {"events", s.events.size()},  {"embedded", rs.pick[i] != nullptr}};
      if (!s.step_class.empty()) step["class_id"] = s.step_class;
      if (rs.pick[i]) {
        if (*rs.pick[i]) step["pick"] = rs.pick[i];

        const uint32_t last = s.events.first + rs.limit[i];  // past the embedded events
        if (last < s.events.last) step["truncated"] = true, step["embedded_events"] = rs.limit[i];
        // Bubbles: segment's own gap rule (the same gaps the step's BUBBLE tag counted), among
        // the embedded events.
        Json bubbles = Json::array();
        const double min_gap = BubbleGapMinNs(t, s.anatomy.wall_ns);
        ForEachIdleGap(table, s.events, [&](int64_t gap_start, uint32_t next) {
          int64_t gap = table.events[next].start_ns - gap_start;
          if (next < last && double(gap) >= min_gap) bubbles.push_back({Us(gap_start - s.start_ns), Us(gap)});
        });
        step["bubbles"] = std::move(bubbles);

        // One string per step: events separated by ';', fields by ',' (the page splits the step
        // it shows). A JSON array per event cost 40 MB for 60k events; this is the size of the
        // text, and only this step's is held.
        std::string ev;
        ev.reserve(size_t(rs.limit[i]) * 48);
        for (uint32_t ei = s.events.first; ei < last; ++ei) {
          const Event& e = table.events[ei];
          const std::optional<PipeView> p = table.PipeOf(e);
          PipeSums sums = EmptyPipeSums();
          AddPipe(sums, table, p);
          const std::string_view bound = ComputeBoundNames(e.op_type, sums, t).bound_family;
          int cost = -1;
          if (eff)
            if (const OpCost* c = eff->CostOf(e)) cost = cost_of(c);  // listed by the first pass
          if (ei != s.events.first) ev += ';';
          fmt::format_to(std::back_inserter(ev), "{},{},{},{},{},{},{},{},{},{},{},{}", Us(e.start_ns - s.start_ns),
                         Us(e.dur_ns), e.stream_id, LaneOf(e.op_type), names.Of(e.name, str(e.name)),
                         types.Of(e.type, str(e.type)), shapes.Of(e.input_shapes, str(e.input_shapes)),
                         shapes.Of(e.output_shapes, str(e.output_shapes)), dtypes.Of(e.input_dtypes, str(e.input_dtypes)),
                         op_types.Of(static_cast<int>(e.op_type), [&] { return Json(OpTypeName(e.op_type)); }), cost,
                         bounds.Of(bound, [&] { return Json(std::string(bound)); }));
          // Sparse (field index, us) pairs of the non-zero fields after the 12 fields: an event
          // uses a few of the 11 stages.
          if (p) {
            p->ForEachPresent([&](int f, uint32_t packed) {
              const double v = UnpackDecimal(packed, table.pipe_overflow);
              if (!std::isfinite(v) || v == 0) return;
              fmt::format_to(std::back_inserter(ev), ",{},{}", f, std::round(v * 1e3) / 1e3);  // ns, as exported
            });
          }
        }
        step["ev"] = std::move(ev);
      }
      if (!first_step) out(",");
      first_step = false;
      write(step);
    }
    out("]}");
  }
  out("]");
  Json strings = Json::object();
  strings["names"] = std::move(names.list);
  strings["types"] = std::move(types.list);
  strings["shapes"] = std::move(shapes.list);
  strings["dtypes"] = std::move(dtypes.list);
  strings["op_types"] = std::move(op_types.list);
  strings["bounds"] = std::move(bounds.list);
  out(",\"strings\":");
  write(strings);
  out(",\"total_events\":");
  write(Json(total_events));
  out(",\"total_steps\":");
  write(Json(total_steps));
  out("}");
}

Json BuildStepInspector(const AnalysisResult& r, const Efficiency* eff, const Thresholds& t, size_t max_events) {
  std::string text;
  WriteStepInspector(r, eff, t, max_events, [&](std::string_view piece) { text += piece; });
  return Json::parse(text);
}

}  // namespace optrace::analyze::report
