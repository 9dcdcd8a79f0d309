#include "analyze/cross_rank/expert_load.h"

#include <algorithm>
#include <map>
#include <regex>
#include <unordered_map>

namespace optrace::analyze {
namespace {

bool IsExpertMatmul(std::string_view name, std::string_view type) {
  static const std::regex re("Grouped[Mm]at[Mm]ul", std::regex::optimize);
  auto fused = [](std::string_view s) {
    return s.find("llToAll") != std::string_view::npos || s.find("lltoAll") != std::string_view::npos ||
           s.find("lltoall") != std::string_view::npos;
  };
  if (fused(name) || fused(type)) return false;  // mc2: communication fused in, judged elsewhere
  return std::regex_search(type.begin(), type.end(), re) || std::regex_search(name.begin(), name.end(), re);
}

// "4096,7168;8,7168,4096;..." -> 4096: the first dimension of the first input.
double FirstDim(std::string_view shapes) {
  while (!shapes.empty() && (shapes.front() == '"' || shapes.front() == ' ')) shapes.remove_prefix(1);
  double v = 0;
  bool any = false;
  for (char c : shapes) {
    if (c < '0' || c > '9') break;
    v = v * 10 + (c - '0');
    any = true;
  }
  return any ? v : -1;
}

}  // namespace

std::vector<ExpertGroupLoad> ExpertLoad(const AnalysisResult& r) {
  // Per rank, per step: tokens and time of its grouped matmuls.
  struct Acc {
    double tokens = 0, ms = 0;
    bool shapes = true;
  };
  std::map<int, std::map<int64_t, Acc>> per_rank;
  std::map<int, ExpertRankLoad> loads;
  std::unordered_map<uint64_t, bool> expert_name;  // by (name, type) ids: interned across ranks
  for (const RankTable& t : r.ranks) {
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      const Event& e = t.events[i];
      const uint64_t key = uint64_t{e.name} << 32 | e.type;
      auto it = expert_name.find(key);
      if (it == expert_name.end()) it = expert_name.emplace(key, IsExpertMatmul(r.Str(e.name), r.Str(e.type))).first;
      if (!it->second) continue;
      ExpertRankLoad& l = loads[t.rank];
      if (l.calls == 0) l.first_row = e.row, l.file = e.file;
      l.rank = t.rank;
      ++l.calls;
      l.last_row = e.row;
      Acc& a = per_rank[t.rank][e.step_id];
      a.ms += double(e.dur_ns) / 1e6;
      double tok = e.input_shapes ? FirstDim(r.Str(e.input_shapes)) : -1;
      if (tok < 0) a.shapes = false;
      else a.tokens += tok;
    }
  }
  if (loads.size() < 2) return {};
  // The EP groups of the metadata; without one, all ranks with the operator form one group.
  std::map<std::string, std::vector<int>> groups;
  for (const RankTable& t : r.ranks)
    for (const ParallelGroup& g : t.parallel_groups)
      if (g.kind == "ep") groups.try_emplace(g.pg_name.empty() ? g.key : g.pg_name + " (" + g.key + ")", g.global_ranks);
  if (groups.empty())
    for (const auto& [rank, l] : loads) groups["all ranks"].push_back(rank);
  std::vector<ExpertGroupLoad> out;
  for (const auto& [name, members] : groups) {
    ExpertGroupLoad g;
    g.group = name;
    std::vector<int> ranks;
    for (int m : members)
      if (loads.count(m)) ranks.push_back(m);
    if (ranks.size() < 2) continue;
    g.by_tokens = true;
    for (int m : ranks)
      for (const auto& [step, a] : per_rank[m]) g.by_tokens = g.by_tokens && a.shapes && a.tokens > 0;
    std::map<int, int> hot;
    std::map<int, std::pair<double, int>> sums;  // rank -> (load sum, steps)
    std::map<int64_t, std::vector<std::pair<double, int>>> by_step;
    for (int m : ranks)
      for (const auto& [step, a] : per_rank[m]) by_step[step].push_back({g.by_tokens ? a.tokens : a.ms, m});
    double sum_ptm = 0;
    for (const auto& [step, v] : by_step) {
      if (v.size() < 2) continue;
      double total = 0, mx = 0, mn = v.front().first;
      int top = -1;
      for (const auto& [load, m] : v) {
        total += load;
        if (load > mx) mx = load, top = m;
        mn = std::min(mn, load);
      }
      double mean = total / double(v.size());
      if (mean <= 0) continue;
      double ptm = mx / mean;
      ++g.steps;
      sum_ptm += ptm;
      if (ptm > g.max_peak_to_mean) g.max_peak_to_mean = ptm, g.worst_step_id = step;
      if (mn > 0) g.max_over_min = std::max(g.max_over_min, mx / mn);
      ++hot[top];
    }
    if (g.steps == 0) continue;
    g.mean_peak_to_mean = sum_ptm / g.steps;
    for (int m : ranks) {
      ExpertRankLoad l = loads[m];
      double tokens = 0, ms = 0;
      for (const auto& [step, a] : per_rank[m]) tokens += a.tokens, ms += a.ms;
      size_t n = std::max<size_t>(1, per_rank[m].size());
      l.tokens_per_step = g.by_tokens ? tokens / double(n) : 0;
      l.ms_per_step = ms / double(n);
      l.hot_steps = hot[m];
      if (g.hot_rank < 0 || hot[m] > hot[g.hot_rank]) g.hot_rank = m;
      g.ranks.push_back(l);
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace optrace::analyze
