#include "analyze/cross_rank/host_launch.h"


#include <algorithm>

namespace optrace::analyze {
namespace {

int64_t Quantile(std::vector<int64_t>& v, double q) {
  if (v.empty()) return 0;
  size_t k = static_cast<size_t>(q * double(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

std::vector<StepLaunch> StepLaunches(const RankTable& t, const std::vector<Step>& steps, std::vector<TraceFlow> flows) {
  std::vector<const Step*> mine;
  for (const Step& s : steps)
    if (s.rank == t.rank) mine.push_back(&s);
  std::sort(mine.begin(), mine.end(), [](const Step* a, const Step* b) { return a->start_ns < b->start_ns; });
  std::vector<StepLaunch> out(mine.size());
  std::vector<std::vector<int64_t>> delays(mine.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    out[i].rank = t.rank;
    out[i].step_id = mine[i]->step_id;
    out[i].complete = mine[i]->complete;
    out[i].step_wall_ns = mine[i]->end_ns - mine[i]->start_ns;
  }
  // The step whose window holds rank-relative time `rel`, or -1.
  auto step_at = [&](int64_t rel) -> int {
    auto it = std::upper_bound(mine.begin(), mine.end(), rel, [](int64_t v, const Step* s) { return v < s->start_ns; });
    if (it == mine.begin()) return -1;
    --it;
    return rel <= (*it)->end_ns ? static_cast<int>(it - mine.begin()) : -1;
  };
  // Device busy frontier: the latest end among the events that start before a time (events are
  // sorted by start).
  std::vector<int64_t> frontier(t.events.size());
  int64_t reach = INT64_MIN;
  for (size_t i = 0; i < t.events.size(); ++i) frontier[i] = reach = std::max(reach, t.events[i].end_ns());

  std::sort(flows.begin(), flows.end(), [](const TraceFlow& a, const TraceFlow& b) { return a.finish_ns < b.finish_ns; });
  bool any_queue = false;
  int64_t last_gap_end = INT64_MIN;
  for (const TraceFlow& f : flows) {
    if (f.kind != TraceFlow::kHostToDevice) {
      any_queue = true;
      continue;
    }
    const int64_t task = f.finish_ns - t.base_ns, issued = f.start_ns - t.base_ns;
    int k = step_at(task);
    if (k < 0) continue;
    StepLaunch& L = out[k];
    ++L.launches;
    delays[k].push_back(std::max<int64_t>(0, f.finish_ns - f.start_ns));
    // The device's state just before the task started.
    auto first_at = std::lower_bound(t.events.begin(), t.events.end(), task,
                                     [](const Event& e, int64_t v) { return e.start_ns < v; });
    if (first_at == t.events.begin()) continue;
    const int64_t idle_from = frontier[static_cast<size_t>(first_at - t.events.begin()) - 1];
    if (idle_from >= task || idle_from < mine[k]->start_ns) continue;  // busy, or the gap between steps
    if (issued <= idle_from || task == last_gap_end) continue;  // launched before the device idled; or counted
    last_gap_end = task;
    const int64_t gap = task - idle_from;
    L.launch_bound_idle_ns += gap;
    ++L.launch_bound_gaps;
    if (L.longest_wait_start_ns < 0 || gap > L.longest_wait_end_ns - L.longest_wait_start_ns) {
      L.longest_wait_start_ns = t.AbsNs(idle_from);
      L.longest_wait_end_ns = f.finish_ns;
    }
  }
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].delay_p50_ns = Quantile(delays[k], 0.5);
    out[k].delay_p90_ns = Quantile(delays[k], 0.9);
    out[k].delay_max_ns = delays[k].empty() ? 0 : *std::max_element(delays[k].begin(), delays[k].end());
  }
  if (any_queue) {
    // Queue depth: +1 at each enqueue, -1 at each dequeue, swept in time order; the maximum inside
    // each step's window (absolute ns).
    std::vector<std::pair<int64_t, int>> edges;
    for (const TraceFlow& f : flows)
      if (f.kind == TraceFlow::kTaskQueue && f.finish_ns >= f.start_ns) {
        edges.push_back({f.start_ns, +1});
        edges.push_back({f.finish_ns, -1});
      }
    std::sort(edges.begin(), edges.end());  // a dequeue (-1) sorts before an enqueue at the same ns
    for (StepLaunch& L : out) L.max_queue_depth = 0;
    int depth = 0;
    for (const auto& [ns, d] : edges) {
      depth += d;
      int k = step_at(ns - t.base_ns);
      if (k >= 0) out[k].max_queue_depth = std::max(out[k].max_queue_depth, depth);
    }
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const StepLaunch& L) { return L.launches == 0 && L.max_queue_depth <= 0; }),
            out.end());
  return out;
}

}  // namespace optrace::analyze
