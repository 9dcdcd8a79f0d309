// Step and layer segmentation, step anatomy and inter-step gaps.
#include "analyze/segment/segment.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/parallel_for.h"

namespace optrace::analyze {
namespace {

// Union length of the events in range that pass `keep`.
template <typename Keep>
int64_t UnionNs(const RankTable& t, EventRange r, Keep keep) {
  int64_t total = 0, cur_s = -1, cur_e = -1;
  for (uint32_t i = r.first; i < r.last; ++i) {
    const Event& e = t.events[i];
    if (!keep(e)) continue;
    if (cur_e < 0 || e.start_ns > cur_e) {
      if (cur_e >= 0) total += cur_e - cur_s;
      cur_s = e.start_ns;
      cur_e = e.end_ns();
    } else {
      cur_e = std::max(cur_e, e.end_ns());
    }
  }
  if (cur_e >= 0) total += cur_e - cur_s;
  return total;
}

// For each event name: the index of the first layer-anchor rule it or its event's type matches
// (-1 none), decided by the first event of that name in step order. A table by name id: the
// layer cut looks every event up twice.
std::vector<int> AnchorRules(const AnalysisResult& res, const Rules& rules) {
  constexpr int kUnseen = -2;
  std::vector<int> rule(res.strings.size(), kUnseen);
  for (const Step& step : res.steps) {
    const RankTable& t = *res.FindRank(step.rank);
    for (uint32_t i = step.events.first; i < step.events.last; ++i) {
      const Event& e = t.events[i];
      if (rule[e.name] != kUnseen) continue;
      int found = -1;
      for (size_t k = 0; k < rules.layer_anchors.size() && found < 0; ++k)
        if (rules.layer_anchors[k].Matches(res.Str(e.name)) ||
            (e.type && rules.layer_anchors[k].Matches(res.Str(e.type))))
          found = static_cast<int>(k);
      rule[e.name] = found;
    }
  }
  return rule;
}

// Where one step is cut into layers: the event index of each layer's anchor, and where the last
// layer ends (the others end at the next anchor).
struct LayerCuts {
  std::vector<uint32_t> anchors;
  uint32_t last_end = 0;
};

// The cuts of one step (none when no anchor rule has enough matches); sets the step's anchor.
LayerCuts FindLayerCuts(const AnalysisResult& res, const Rules& rules, Step& step, const std::vector<int>& anchor_rule) {
  LayerCuts cuts;
  const RankTable& t = *res.FindRank(step.rank);
  auto rule_of = [&](const Event& e) { return anchor_rule[e.name]; };
  std::vector<int> counts(rules.layer_anchors.size(), 0);
  for (uint32_t i = step.events.first; i < step.events.last; ++i) {
    int k = rule_of(t.events[i]);
    if (k >= 0) ++counts[k];
  }
  int chosen = -1;
  for (size_t k = 0; k < counts.size(); ++k)
    if (counts[k] > 0 && counts[k] >= rules.min_anchor_count) {  // a rule cuts only where it matched
      chosen = static_cast<int>(k);
      break;
    }
  if (chosen < 0) return cuts;
  step.layer_anchor = rules.layer_anchors[chosen].value;
  std::vector<uint32_t>& anchors = cuts.anchors;
  for (uint32_t i = step.events.first; i < step.events.last; ++i)
    if (rule_of(t.events[i]) == chosen) anchors.push_back(i);
  std::vector<uint32_t> lengths;
  for (size_t a = 0; a + 1 < anchors.size(); ++a) lengths.push_back(anchors[a + 1] - anchors[a]);
  std::sort(lengths.begin(), lengths.end());
  uint32_t median = lengths.empty() ? step.events.last - anchors.back() : lengths[(lengths.size() - 1) / 2];
  cuts.last_end = std::min(step.events.last, anchors.back() + median);
  return cuts;
}

// Writes the step's layers (indices not yet assigned) to out[0 .. cuts.anchors.size()).
void FillLayers(const AnalysisResult& res, uint32_t step_index, const Step& step, const LayerCuts& cuts, Layer* out) {
  const RankTable& t = *res.FindRank(step.rank);
  const std::vector<uint32_t>& anchors = cuts.anchors;
  for (size_t a = 0; a < anchors.size(); ++a) {
    Layer& layer = out[a];
    layer.rank = step.rank;
    layer.step = step_index;
    layer.index_in_step = static_cast<int>(a);
    layer.events.first = anchors[a];
    layer.events.last = a + 1 < anchors.size() ? anchors[a + 1] : cuts.last_end;
    layer.anchor_name = t.events[anchors[a]].name;
    layer.start_ns = t.events[layer.events.first].start_ns;
    layer.end_ns = layer.start_ns;
    for (uint32_t i = layer.events.first; i < layer.events.last; ++i)
      layer.end_ns = std::max(layer.end_ns, t.events[i].end_ns());
  }
}

// The capture window starts and stops mid-step: an edge step with clearly fewer events than the
// rank's other steps lost the rest to the window. Interior steps are never cut.
void TagCaptureEdges(AnalysisResult& res, size_t first, const Thresholds& th) {
  size_t n = res.steps.size() - first;
  if (n < 2 || res.steps[first].step_source == "whole_capture") return;
  for (size_t edge : {first, res.steps.size() - 1}) {
    std::vector<uint32_t> others;
    for (size_t i = first; i < res.steps.size(); ++i)
      if (i != edge) others.push_back(res.steps[i].events.size());
    std::sort(others.begin(), others.end());
    double median = others.size() % 2 ? others[others.size() / 2]
                                      : 0.5 * (others[others.size() / 2 - 1] + others[others.size() / 2]);
    Step& s = res.steps[edge];
    if (double(s.events.size()) < th.partial_step_min_event_share * median && !s.partial_capture_boundary) {
      s.partial_capture_boundary = true;
      s.complete = false;
      s.anomaly_tags.push_back("PARTIAL_CAPTURE_BOUNDARY");
    }
  }
}

// Layers far longer than the rank's median layer absorbed what follows the last anchor (output
// head, loss, a long collective): flag them and name what they hold.
void FlagLayerOutliers(AnalysisResult& res, const Thresholds& th) {
  std::map<int, std::vector<int64_t>> walls;
  for (const Layer& l : res.layers) walls[l.rank].push_back(l.end_ns - l.start_ns);
  for (auto& [rank, w] : walls) std::sort(w.begin(), w.end());
  for (Layer& l : res.layers) {
    const std::vector<int64_t>& w = walls[l.rank];
    if (w.size() < 3) continue;
    double median = 0.5 * double(w[(w.size() - 1) / 2] + w[w.size() / 2]);
    if (median <= 0 || double(l.end_ns - l.start_ns) <= th.layer_outlier_ratio * median) continue;
    l.outlier = true;
    const RankTable& t = *res.FindRank(l.rank);
    std::vector<std::pair<int64_t, uint32_t>> longest;
    for (uint32_t i = l.events.first; i < l.events.last; ++i) longest.push_back({t.events[i].dur_ns, i});
    std::sort(longest.begin(), longest.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (size_t k = 0; k < longest.size() && k < 3; ++k)
      l.absorbed += (k ? ", " : "") + res.Str(t.events[longest[k].second].name) +
                    fmt::format(" {:.3f} ms", double(longest[k].first) / 1e6);
  }
}

// The profiler's own step beside the device wall: the host step window when the export has one
// (db STEP_TIME, trace_view.json ProfilerStep#N), else step_trace_time's Preparing before the
// device wall (the export's Stage is that wall: issue 52).
void FillProfilerSteps(const RankTable& t, Step* first, Step* last) {
  std::map<int64_t, const StepMarker*> window;
  for (const StepMarker& m : t.step_markers)
    if (m.end_ns >= m.start_ns) window.emplace(m.step_id, &m);
  std::map<int64_t, const StepTraceRow*> trace;
  for (const StepTraceRow& r : t.step_trace)
    if (r.step_id >= 0) trace.emplace(r.step_id, &r);
  for (Step* s = first; s != last; ++s) {
    if (s->step_source == "whole_capture") continue;
    if (auto w = window.find(s->step_id); w != window.end()) {
      const StepMarker& m = *w->second;
      s->profiler_step_ns = m.end_ns - m.start_ns;
      s->host_prepare_ns = std::max<int64_t>(0, s->start_ns - m.start_ns);
      s->host_tail_ns = std::max<int64_t>(0, m.end_ns - s->end_ns);
      s->profiler_step_source = m.source;
    } else if (auto r = trace.find(s->step_id); r != trace.end() && !IsMissing(r->second->preparing_us) &&
                                                 r->second->preparing_us >= 0) {
      s->host_prepare_ns = std::llround(r->second->preparing_us * 1000.0);
      s->profiler_step_ns = s->anatomy.wall_ns + s->host_prepare_ns;
      s->profiler_step_source = "step_trace_time.csv";
    }
  }
}

}  // namespace

StepAnatomy ComputeAnatomy(const RankTable& t, EventRange r, const Thresholds& th) {
  StepAnatomy a;
  if (r.empty()) return a;
  int64_t start = t.events[r.first].start_ns, end = start;
  for (uint32_t i = r.first; i < r.last; ++i) end = std::max(end, t.events[i].end_ns());
  a.wall_ns = end - start;
  const double min_gap = BubbleGapMinNs(th, a.wall_ns);
  ForEachIdleGap(t, r, [&](int64_t gap_start, uint32_t next) {
    int64_t gap = t.events[next].start_ns - gap_start;
    if (gap > a.max_gap_ns) {
      a.max_gap_ns = gap;
      a.max_gap_start_ns = gap_start;
      a.max_gap_next_event = next;
    }
    if (double(gap) >= min_gap) {
      ++a.bubble_gap_count;
      a.bubble_gap_ns += gap;
    }
  });
  a.busy_ns = UnionNs(t, r, [](const Event&) { return true; });
  a.bubble_ns = a.wall_ns - a.busy_ns;
  a.main_ns = a.wall_ns;
  a.has_bubble = a.bubble_gap_count > 0;
  return a;
}

void SegmentRanks(AnalysisResult& res, const Rules& rules, int threads) {
  res.steps.clear();
  res.layers.clear();
  const Thresholds& th = rules.thresholds;
  for (const RankTable& t : res.ranks) {
    if (t.events.empty()) continue;
    size_t first_step = res.steps.size();
    bool any_id = std::any_of(t.events.begin(), t.events.end(), [](const Event& e) { return e.step_id >= 0; });
    if (!any_id) {
      Step s;
      s.rank = t.rank;
      s.step_id = 0;
      s.step_source = "whole_capture";
      s.events = {0, static_cast<uint32_t>(t.events.size())};
      s.complete = false;
      res.steps.push_back(s);
    } else {
      // Contiguous index range per step id, in order of first appearance.
      std::map<int64_t, EventRange> ranges;
      std::vector<int64_t> order;
      // A step's events are mostly one run: the map is searched once per run, not per event.
      EventRange* run = nullptr;
      int64_t run_id = -1;
      for (uint32_t i = 0; i < t.events.size(); ++i) {
        int64_t id = t.events[i].step_id;
        if (id < 0) continue;
        if (run && id == run_id) {
          run->last = i + 1;
          continue;
        }
        auto [it, fresh] = ranges.try_emplace(id, EventRange{i, i + 1});
        if (fresh) order.push_back(id);
        else it->second.last = i + 1;
        run = &it->second;  // std::map nodes never move
        run_id = id;
      }
      std::string source = t.kind == InputKind::kTorchDb ? "STEP_TIME" : "Step Id";
      if (!t.has_timeline()) source = t.event_source;  // HCCL ops only: not the step's wall
      if (!t.step_markers.empty() && t.step_markers.front().source == "trace_view.json") source = "trace_view.json";
      for (int64_t id : order) {
        Step s;
        s.rank = t.rank;
        s.step_id = id;
        s.step_source = source;
        s.events = ranges[id];
        s.complete = t.has_timeline();
        res.steps.push_back(s);
      }
    }
    std::sort(res.steps.begin() + first_step, res.steps.end(),
              [](const Step& a, const Step& b) { return a.events.first < b.events.first; });
    // Each step's anatomy reads only its own events: steps side by side.
    ParallelFor(res.steps.size() - first_step, threads, [&](size_t k) {
      Step& s = res.steps[first_step + k];
      s.start_ns = t.events[s.events.first].start_ns;
      s.anatomy = ComputeAnatomy(t, s.events, th);
      s.end_ns = s.start_ns + s.anatomy.wall_ns;
      s.comm_ns = UnionNs(t, s.events, [](const Event& e) { return IsComm(e.op_type); });
      s.compute_ns = UnionNs(t, s.events, [](const Event& e) { return !IsComm(e.op_type); });
      if (s.anatomy.has_bubble) s.anomaly_tags.push_back("BUBBLE");
    });
    if (t.has_timeline()) TagCaptureEdges(res, first_step, th);
    if (t.has_timeline()) FillProfilerSteps(t, res.steps.data() + first_step, res.steps.data() + res.steps.size());
    for (size_t i = first_step; i < res.steps.size(); ++i) {
      Step& s = res.steps[i];
      if (s.step_source == "whole_capture") continue;
      double heavy = std::max(th.heavy_gap_min_us * 1000.0, th.heavy_gap_wall_share * double(s.anatomy.wall_ns));
      if (i > first_step) {
        s.prelaunch_gap_ns = std::max<int64_t>(0, s.start_ns - res.steps[i - 1].end_ns);
        if (double(s.prelaunch_gap_ns) >= heavy) s.anomaly_tags.push_back("PRELAUNCH_GAP_HEAVY");
      }
      if (i + 1 < res.steps.size()) {
        s.tail_gap_ns = std::max<int64_t>(0, res.steps[i + 1].start_ns - s.end_ns);
        if (double(s.tail_gap_ns) >= heavy) s.anomaly_tags.push_back("TAIL_GAP_HEAVY");
      }
    }
  }
  // Each step's layers read only its own events: the cuts are found side by side, then the
  // layers written side by side straight into their places in step order. (A vector of layers
  // per step, moved into the table after, touched as many fresh 4 KiB pages as the table itself:
  // a quarter of segment's time on a 300 MB export.)
  const std::vector<int> anchor_rule = AnchorRules(res, rules);
  std::vector<LayerCuts> cuts(res.steps.size());
  ParallelFor(res.steps.size(), threads,
              [&](size_t i) { cuts[i] = FindLayerCuts(res, rules, res.steps[i], anchor_rule); });
  std::vector<size_t> first_layer(res.steps.size() + 1, 0);
  for (size_t i = 0; i < cuts.size(); ++i) first_layer[i + 1] = first_layer[i] + cuts[i].anchors.size();
  res.layers.resize(first_layer.back());  // empty until here
  ParallelFor(res.steps.size(), threads, [&](size_t i) {
    FillLayers(res, static_cast<uint32_t>(i), res.steps[i], cuts[i], res.layers.data() + first_layer[i]);
    std::vector<uint32_t>& ids = res.steps[i].layers;
    ids.reserve(ids.size() + cuts[i].anchors.size());
    for (size_t l = first_layer[i]; l < first_layer[i + 1]; ++l) ids.push_back(static_cast<uint32_t>(l));
    std::vector<uint32_t>().swap(cuts[i].anchors);
  });
  FlagLayerOutliers(res, th);
  for (uint32_t i = 0; i < res.steps.size(); ++i) {
    Step& s = res.steps[i];
    if (!s.layers.empty()) {
      const Layer& first = res.layers[s.layers.front()];
      // An outlier last layer holds the output head / loss: it is tail, not main body.
      size_t k = s.layers.size();
      while (k > 1 && res.layers[s.layers[k - 1]].outlier) --k;
      const Layer& last = res.layers[s.layers[k - 1]];
      int64_t main_end = std::min(s.end_ns, last.outlier ? last.start_ns : last.end_ns);
      s.anatomy.head_ns = first.start_ns - s.start_ns;
      s.anatomy.main_ns = main_end - first.start_ns;
      s.anatomy.tail_ns = s.end_ns - main_end;
    }
  }
}

}  // namespace optrace::analyze
