#include "analyze/efficiency/kernel_focus.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace optrace::analyze {

Result<KernelFocus> FocusKernel(const AnalysisResult& r, std::string_view query) {
  KernelFocus f;
  f.query = std::string(query);
  // Which string ids are the kernel: names and types are compared once per string, not per event.
  std::vector<double> time_by_name(r.strings.size(), 0);
  std::vector<char> seen_name(r.strings.size(), 0), seen_type(r.strings.size(), 0);
  for (const RankTable& t : r.ranks)
    for (const Event& e : t.events) {
      time_by_name[e.name] += double(e.dur_ns) / 1e3;
      seen_name[e.name] = seen_type[e.type] = 1;
    }
  std::set<uint32_t> names, types, contains, type_ids;
  for (uint32_t id = 1; id < r.strings.size(); ++id) {
    const std::string& s = r.Str(id);
    if (seen_name[id] && s == query) names.insert(id);
    if (seen_name[id] && !query.empty() && s.find(query) != std::string::npos) contains.insert(id);
    if (seen_type[id] && s == query) type_ids.insert(id);
  }
  if (!type_ids.empty())
    for (const RankTable& t : r.ranks)
      for (const Event& e : t.events)
        if (type_ids.count(e.type)) types.insert(e.name);
  std::set<uint32_t> chosen;
  if (!names.empty()) {
    chosen = names, f.matched_by = "name";
  } else if (!types.empty()) {
    chosen = types, f.matched_by = "type";
  } else if (contains.size() == 1) {
    chosen = contains, f.matched_by = "name contains";
  } else if (contains.size() > 1) {
    std::vector<std::string> list;
    for (uint32_t id : contains) list.push_back(r.Str(id));
    std::sort(list.begin(), list.end());
    if (list.size() > 10) list.resize(10), list.push_back("...");
    return BadInputError("--kernel {}: {} kernel names contain it ({}); pass one exact name", query, contains.size(),
                         fmt::join(list, ", "));
  } else {
    std::vector<std::pair<double, uint32_t>> heavy;
    for (uint32_t id = 0; id < time_by_name.size(); ++id)
      if (seen_name[id]) heavy.push_back({-time_by_name[id], id});
    std::sort(heavy.begin(), heavy.end());
    std::vector<std::string> list;
    for (size_t i = 0; i < heavy.size() && i < 8; ++i) list.push_back(r.Str(heavy[i].second));
    return BadInputError("--kernel {}: no kernel name or type matches it; the heaviest kernels are: {}", query,
                         fmt::join(list, ", "));
  }
  for (uint32_t id : chosen) f.names.push_back(r.Str(id));
  std::sort(f.names.begin(), f.names.end());

  for (const RankTable& t : r.ranks) {
    int64_t latest_end = INT64_MIN;  // of the tasks before the current one (events are by start)
    int64_t call = 0, prev_start = -1;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      const Event& e = t.events[i];
      if (chosen.count(e.name)) {
        KernelCall c;
        c.rank = t.rank;
        c.call = call++;
        c.event = i;
        c.start_ns = t.AbsNs(e.start_ns);
        c.dur_us = double(e.dur_ns) / 1e3;
        c.launch_gap_us = latest_end == INT64_MIN ? 0 : std::max<double>(0, double(e.start_ns - latest_end) / 1e3);
        c.period_us = prev_start < 0 ? -1 : double(e.start_ns - prev_start) / 1e3;
        c.step_id = e.step_id;
        prev_start = e.start_ns;
        f.calls.push_back(c);
      }
      latest_end = std::max(latest_end, e.end_ns());
    }
    if (call) f.calls_per_rank[t.rank] = int(call);
  }
  // Iterations: the k-th call of every rank.
  std::map<int64_t, std::vector<const KernelCall*>> by_call;
  for (const KernelCall& c : f.calls) by_call[c.call].push_back(&c);
  const size_t rank_count = f.calls_per_rank.size();
  for (const auto& [k, calls] : by_call) {
    KernelIteration it;
    it.call = k;
    it.ranks = int(calls.size());
    it.max_us = calls[0]->dur_us, it.min_us = calls[0]->dur_us, it.slowest_rank = calls[0]->rank;
    for (const KernelCall* c : calls) {
      if (c->dur_us > it.max_us) it.max_us = c->dur_us, it.slowest_rank = c->rank;
      it.min_us = std::min(it.min_us, c->dur_us);
    }
    if (calls.size() == rank_count) ++f.slowest_count[it.slowest_rank];
    f.iterations.push_back(it);
  }
  return f;
}

}  // namespace optrace::analyze
