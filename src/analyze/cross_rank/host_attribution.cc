#include "analyze/cross_rank/host_attribution.h"

#include "analyze/cross_rank/host_launch.h"

#include <algorithm>
#include <regex>

#include "analyze/read/normalize.h"
#include "analyze/segment/segment.h"
#include "core/bounded_regex.h"

namespace optrace::analyze {
namespace {

bool Matches(const std::string& name, const std::regex& re) { return BoundedSearch(name, re); }

const std::regex& SyncOrCopy() {
  static const std::regex re(
      "synchron|aclrtSynchronize|StreamSynchronize|aten::item|_local_scalar_dense|aten::to$|aten::_to_copy|"
      "aten::copy_|Memcpy|memcpy|H2D|HostToDevice|aten::nonzero",
      std::regex::icase);
  return re;
}
const std::regex& Collective() {
  static const std::regex re("hcom|HCCL|hccl|c10d|all_?reduce|all_?gather|reduce_?scatter|broadcast|barrier|all_?to_?all",
                             std::regex::icase);
  return re;
}
const std::regex& Launch() {
  static const std::regex re("^aclnn|Launch|aclopExecute|aclmdlExecute", std::regex::icase);
  return re;
}

bool IsPython(const HostEventNear& e) { return e.cat == "python_function" || e.process == "Python"; }
bool IsCann(const HostEventNear& e) { return e.process == "CANN" || e.cat == "AscendCL" || e.process == "AscendCL"; }

}  // namespace

std::pair<std::string, std::string> LabelBubble(int64_t start, int64_t end, const std::vector<HostEventNear>& host) {
  const int64_t gap = end - start;
  for (const HostEventNear& e : host)
    if (Matches(e.name, SyncOrCopy()))
      return {"possible_sync_or_h2d", "host event '" + e.name + "' (synchronize / copy) overlaps the bubble"};
  for (const HostEventNear& e : host)
    if (Matches(e.name, Collective()))
      return {"possible_communication_wait", "host event '" + e.name + "' (a collective) overlaps the bubble"};
  for (const HostEventNear& e : host)
    if (Matches(e.name, Launch()) && e.start_ns >= start && e.start_ns <= end)
      return {"possible_host_launch_lag", "the host issued '" + e.name + "' inside the bubble: the device waited for it"};
  int64_t python = 0;
  bool cann = false;
  for (const HostEventNear& e : host) {
    if (IsPython(e)) python = std::max(python, e.overlap_ns);
    cann |= IsCann(e) && e.overlap_ns > 0;
  }
  if (gap > 0 && python >= gap * 8 / 10 && !cann)
    return {"possible_python_serialization_or_lock",
            "Python code covers at least 80% of the bubble and no CANN call runs in it"};
  if (host.empty()) return {"possible_untraced_host_blocking", "no traced host event overlaps the bubble"};
  return {"insufficient_evidence", "host events overlap the bubble, none matches a rule"};
}

Status AttributeBubbles(AnalysisResult& res, const Rules& rules) {
  CrossRank& C = res.cross_rank;
  C.bubbles.clear();
  C.bubbles_without_trace = 0;
  C.launches.clear();
  C.launch_ranks_without_flows = 0;
  const Thresholds& th = rules.thresholds;
  for (const RankTable& t : res.ranks) {
    if (!t.has_timeline()) continue;
    // The bubbles of the rank's complete steps: gaps at or above the step's bubble threshold.
    std::vector<BubbleWindow> bubbles;
    for (const Step& s : res.steps) {
      if (s.rank != t.rank || !s.anatomy.has_bubble) continue;
      const double min_gap = BubbleGapMinNs(th, s.anatomy.wall_ns);  // segment's rule, the same gaps
      ForEachIdleGap(t, s.events, [&](int64_t gap_start, uint32_t next) {
        if (double(t.events[next].start_ns - gap_start) < min_gap) return;
        BubbleWindow b;
        b.rank = t.rank;
        b.step_id = s.step_id;
        b.start_ns = t.AbsNs(gap_start);
        b.end_ns = t.AbsNs(t.events[next].start_ns);
        b.next_event = next;
        bubbles.push_back(b);
      });
    }
    std::filesystem::path trace;
    for (const RankInput& in : res.discovery.ranks)
      if (in.rank == t.rank) trace = in.trace_view;
    if (trace.empty()) {
      C.bubbles_without_trace += static_cast<int>(bubbles.size());
      // The db layout links launches in its own tables.
      std::vector<TraceFlow> flows;
      for (const SourceFile& f : t.files)
        if (f.table == "TASK") {
          OPTRACE_RETURN_IF_ERROR(ReadDbLaunchFlows(f.path, flows));
          break;
        }
      std::vector<StepLaunch> launches = flows.empty() ? std::vector<StepLaunch>{} : StepLaunches(t, res.steps, std::move(flows));
      if (launches.empty()) ++C.launch_ranks_without_flows;
      for (StepLaunch& L : launches) C.launches.push_back(L);
      continue;
    }
    std::sort(bubbles.begin(), bubbles.end(), [](const BubbleWindow& a, const BubbleWindow& b) { return a.start_ns < b.start_ns; });
    std::vector<std::pair<int64_t, int64_t>> windows;
    for (const BubbleWindow& b : bubbles) {
      if (!windows.empty() && b.start_ns <= windows.back().second) windows.back().second = std::max(windows.back().second, b.end_ns);
      else windows.push_back({b.start_ns, b.end_ns});
    }
    // One pass over the trace: the host events around the bubbles and the launch flows.
    std::vector<TraceHostEvent> events;
    std::vector<TraceFlow> flows;
    OPTRACE_RETURN_IF_ERROR(ReadTraceViewHostEvents(trace, windows, events, &flows));
    std::vector<StepLaunch> launches = flows.empty() ? std::vector<StepLaunch>{} : StepLaunches(t, res.steps, std::move(flows));
    if (launches.empty()) ++C.launch_ranks_without_flows;
    for (StepLaunch& L : launches) C.launches.push_back(L);
    std::sort(events.begin(), events.end(), [](const TraceHostEvent& a, const TraceHostEvent& b) { return a.start_ns < b.start_ns; });
    for (BubbleWindow& b : bubbles) {
      for (const TraceHostEvent& e : events) {
        if (e.start_ns > b.end_ns) break;
        int64_t overlap = std::min(b.end_ns, e.start_ns + e.dur_ns) - std::max(b.start_ns, e.start_ns);
        if (overlap < 0 || (overlap == 0 && e.dur_ns > 0)) continue;
        b.host.push_back({e.process, e.name, e.cat, e.start_ns, e.dur_ns, overlap});
      }
      auto [label, rule] = LabelBubble(b.start_ns, b.end_ns, b.host);
      b.label = label;
      b.rule = rule;
      std::stable_sort(b.host.begin(), b.host.end(),
                       [](const HostEventNear& x, const HostEventNear& y) { return x.overlap_ns > y.overlap_ns; });
      if (b.host.size() > 8) b.host.resize(8);
      C.bubbles.push_back(std::move(b));
    }
  }
  return Status::Ok();
}

}  // namespace optrace::analyze
