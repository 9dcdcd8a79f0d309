#include "collect/pairing.h"

#include <algorithm>
#include <unordered_map>

namespace optrace::collect {
namespace {

Interval MakeInterval(const CoreRef& core, const ResolvedEvent& b, const ResolvedEvent& e) {
  Interval iv;
  iv.rank = core.rank;
  iv.kind = core.kind;
  iv.core_index = core.core_index;
  iv.series = core.series;
  iv.label = b.label;
  iv.begin_ticks = b.ticks;
  iv.end_ticks = e.ticks;
  iv.begin_payload = b.payload;
  iv.end_payload = e.payload;
  return iv;
}

Instant MakeInstant(const CoreRef& core, const ResolvedEvent& ev) {
  Instant in;
  in.rank = core.rank;
  in.kind = core.kind;
  in.core_index = core.core_index;
  in.series = core.series;
  in.label = ev.label;
  in.point_id = ev.point_id;
  in.is_begin = !ev.is_end;
  in.ticks = ev.ticks;
  in.payload = ev.payload;
  return in;
}

uint64_t QueueKey(uint32_t label, uint32_t seq) { return uint64_t{label} << 32 | seq; }

}  // namespace

PairStats PairCore(const CoreRef& core, std::span<const ResolvedEvent> events, PairMode mode,
                   std::vector<Interval>& intervals, std::vector<Instant>& instants) {
  PairStats st;
  // Open Bs as indices into `events`; `closed` marks those matched, for the leftovers pass.
  std::vector<bool> closed(events.size(), false);
  // A pair whose E is earlier than its B would be a negative duration: keep both marks as
  // flagged instants instead (the collector also reports the backwards timestamps).
  auto add_pair = [&](uint32_t b, const ResolvedEvent& e) {
    if (e.ticks < events[b].ticks) {
      ++st.reversed;
      instants.push_back(MakeInstant(core, events[b]));
      instants.push_back(MakeInstant(core, e));
      return;
    }
    intervals.push_back(MakeInterval(core, events[b], e));
  };
  if (mode == PairMode::kNest) {
    std::vector<uint32_t> stack;
    for (uint32_t i = 0; i < events.size(); ++i) {
      const ResolvedEvent& ev = events[i];
      if (!ev.is_end) {
        stack.push_back(i);
        continue;
      }
      auto it = std::find_if(stack.rbegin(), stack.rend(), [&](uint32_t b) { return events[b].label == ev.label; });
      if (it == stack.rend()) {
        instants.push_back(MakeInstant(core, ev));
        continue;
      }
      if (it != stack.rbegin()) ++st.crossed;
      const uint32_t b = *it;
      stack.erase(std::next(it).base());
      closed[b] = true;
      add_pair(b, ev);
    }
  } else {
    // FIFO queues as a vector plus a read position: no per-queue chunk allocations (a deque's).
    struct Queue {
      std::vector<uint32_t> items;
      size_t head = 0;
    };
    std::unordered_map<uint64_t, Queue> open;
    for (uint32_t i = 0; i < events.size(); ++i) {
      const ResolvedEvent& ev = events[i];
      const uint64_t key = QueueKey(ev.label, mode == PairMode::kSeq ? SeqOf(ev.payload) : 0);
      if (!ev.is_end) {
        open[key].items.push_back(i);
        continue;
      }
      auto it = open.find(key);
      if (it == open.end() || it->second.head == it->second.items.size()) {
        instants.push_back(MakeInstant(core, ev));
        continue;
      }
      const uint32_t b = it->second.items[it->second.head++];
      closed[b] = true;
      add_pair(b, ev);
    }
  }
  for (uint32_t i = 0; i < events.size(); ++i) {
    if (!events[i].is_end && !closed[i]) instants.push_back(MakeInstant(core, events[i]));
  }
  return st;
}

void ComputeNesting(std::span<Interval> ivs, std::vector<int64_t>* parents_out) {
  // stable_sort keeps pairing order for identical (begin, end): the earlier-closed pair is the parent.
  std::stable_sort(ivs.begin(), ivs.end(), [](const Interval& a, const Interval& b) {
    if (a.begin_ticks != b.begin_ticks) return a.begin_ticks < b.begin_ticks;
    return a.end_ticks > b.end_ticks;
  });
  std::vector<int64_t> parent(ivs.size(), -1);
  std::vector<int64_t> covered_until(ivs.size());  // end of the children's union so far
  std::vector<size_t> stack;
  for (size_t i = 0; i < ivs.size(); ++i) {
    Interval& iv = ivs[i];
    while (!stack.empty() && ivs[stack.back()].end_ticks < iv.end_ticks) stack.pop_back();
    iv.depth = 1;
    iv.self_ticks = iv.end_ticks - iv.begin_ticks;
    covered_until[i] = iv.begin_ticks;
    if (!stack.empty()) {
      // Direct children arrive in begin order: subtract only the part not yet covered, so
      // overlapping siblings never push self time below zero.
      const size_t p = stack.back();
      parent[i] = static_cast<int64_t>(p);
      const int64_t from = std::max(iv.begin_ticks, covered_until[p]);
      if (iv.end_ticks > from) ivs[p].self_ticks -= iv.end_ticks - from;
      covered_until[p] = std::max(covered_until[p], iv.end_ticks);
    }
    stack.push_back(i);
  }
  // Children come after their parents in this order, so one backward pass settles heights.
  for (size_t i = ivs.size(); i-- > 0;) {
    if (parent[i] < 0) continue;
    Interval& p = ivs[static_cast<size_t>(parent[i])];
    p.depth = std::max(p.depth, ivs[i].depth + 1);
  }
  if (parents_out) *parents_out = std::move(parent);
}

void ApplyDepth(std::vector<Interval>& intervals, uint32_t max_depth) {
  if (max_depth == 0) return;
  std::erase_if(intervals, [&](const Interval& iv) { return iv.depth > max_depth; });
}

}  // namespace optrace::collect
