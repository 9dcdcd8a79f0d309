#include "analyze/report/report_plots.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace optrace::analyze::report {
namespace {

using Json = nlohmann::json;

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }
double R3(double v) { return std::round(v * 1000) / 1000; }

// What one step is made of; the parts add up to its wall.
struct Split {
  double wall = 0, compute = 0, comm = 0, free = 0;
  void Add(const Step& s) {
    wall += Ms(s.anatomy.wall_ns);
    free += Ms(s.anatomy.bubble_ns);
    comm += Ms(s.exposed_comm_ns());
    // Compute is the rest of the busy time: events that are not communication, plus the
    // communication that compute hides.
    compute += Ms(s.anatomy.busy_ns - s.exposed_comm_ns());
  }
};

}  // namespace

Json RankBreakdownJson(const AnalysisResult& r) {
  std::map<int, Split> by_rank;
  std::map<int, int> steps;
  for (const Step& s : r.steps) {
    if (!s.complete) continue;
    by_rank[s.rank].Add(s);
    ++steps[s.rank];
  }
  if (by_rank.empty()) return nullptr;
  std::set<int> slow;
  for (const Finding& f : r.findings)
    if (f.type == "slow_rank" && f.rank >= 0) slow.insert(f.rank);
  std::map<int, double> wait_ratio;
  for (const CommRankSummary& c : r.summaries.comm_ranks)
    if (std::isfinite(c.wait_ratio)) wait_ratio[c.rank] = c.wait_ratio;
  std::map<int, bool> low_confidence;
  for (const RankSummary& s : r.summaries.ranks) low_confidence[s.rank] = s.low_confidence;

  struct Row {
    int rank;
    Split mean;
  };
  std::vector<Row> rows;
  for (const auto& [rank, sum] : by_rank) {
    const double n = steps[rank];
    rows.push_back({rank, {sum.wall / n, sum.compute / n, sum.comm / n, sum.free / n}});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.mean.compute > b.mean.compute; });
  Json ranks = Json::array();
  for (const Row& row : rows) {
    auto w = wait_ratio.find(row.rank);
    // communication.json's wait ratio is over the rank's collectives; applied to the time they
    // were not hidden behind compute, it estimates how much of that the rank spent waiting.
    Json wait = w == wait_ratio.end() ? Json() : Json(R3(row.mean.comm * w->second));
    const double transfer = w == wait_ratio.end() ? row.mean.comm : row.mean.comm * (1 - w->second);
    ranks.push_back({{"rank", row.rank},
                     {"steps", steps[row.rank]},
                     {"wall_ms", R3(row.mean.wall)},
                     {"compute_ms", R3(row.mean.compute)},
                     {"comm_ms", R3(transfer)},
                     {"wait_ms", wait},
                     {"free_ms", R3(row.mean.free)},
                     {"slow", slow.count(row.rank) > 0},
                     {"low_confidence", low_confidence[row.rank]}});
  }
  return Json{{"ranks", std::move(ranks)},
              {"wait_source", wait_ratio.empty() ? "" : "communication.json wait ratio per rank"}};
}

Json StepBreakdownJson(const AnalysisResult& r) {
  std::map<int64_t, Split> by_step;
  std::map<int64_t, int> ranks;
  std::map<int64_t, double> wall_max;
  for (const Step& s : r.steps) {
    if (!s.complete) continue;
    by_step[s.step_id].Add(s);
    ++ranks[s.step_id];
    wall_max[s.step_id] = std::max(wall_max[s.step_id], Ms(s.anatomy.wall_ns));
  }
  if (by_step.empty()) return nullptr;
  const size_t n = by_step.size();
  const size_t per_bar = (n + kStepBreakdownBars - 1) / kStepBreakdownBars;
  Json bars = Json::array();
  auto it = by_step.begin();
  while (it != by_step.end()) {
    Split sum;
    int64_t first = it->first, last = first;
    int rank_steps = 0, max_ranks = 0;
    double max_wall = 0;
    for (size_t k = 0; k < per_bar && it != by_step.end(); ++k, ++it) {
      last = it->first;
      sum.wall += it->second.wall;
      sum.compute += it->second.compute;
      sum.comm += it->second.comm;
      sum.free += it->second.free;
      rank_steps += ranks[it->first];
      max_ranks = std::max(max_ranks, ranks[it->first]);
      max_wall = std::max(max_wall, wall_max[it->first]);
    }
    const double d = rank_steps;
    bars.push_back({{"first_step", first},
                    {"last_step", last},
                    {"ranks", max_ranks},
                    {"wall_ms", R3(sum.wall / d)},
                    {"wall_ms_max", R3(max_wall)},
                    {"compute_ms", R3(sum.compute / d)},
                    {"comm_ms", R3(sum.comm / d)},
                    {"free_ms", R3(sum.free / d)}});
  }
  return Json{{"bars", std::move(bars)}, {"grouped", per_bar > 1}};
}

Json CommMatrixJson(const AnalysisResult& r) {
  if (r.summaries.comm_links.empty()) return nullptr;
  struct Cell {
    double size_mb = 0, time_ms = 0;
    std::set<std::string> transports;
  };
  // Global ranks need both ends mapped; a link that is not goes into its group's local matrix.
  std::map<std::string, std::map<std::pair<int, int>, Cell>> matrices;
  for (const CommLinkSummary& l : r.summaries.comm_links) {
    if (l.src < 0 || l.dst < 0) continue;
    const bool global = l.src_global >= 0 && l.dst_global >= 0;
    const std::string key = global ? std::string() : l.group;
    Cell& c = matrices[key][{global ? l.src_global : l.src, global ? l.dst_global : l.dst}];
    c.size_mb += l.size_mb;
    c.time_ms += l.time_ms;
    if (!l.transport.empty()) c.transports.insert(l.transport);
  }
  Json list = Json::array();
  for (const auto& [group, cells] : matrices) {
    std::set<int> ranks;
    Json out = Json::array();
    for (const auto& [link, c] : cells) {
      ranks.insert(link.first);
      ranks.insert(link.second);
      std::string transport;
      for (const std::string& t : c.transports) transport += (transport.empty() ? "" : "+") + t;
      out.push_back({{"src", link.first},
                     {"dst", link.second},
                     {"size_mb", R3(c.size_mb)},
                     {"time_ms", R3(c.time_ms)},
                     {"bandwidth_gbps", c.time_ms > 0 ? Json(R3(c.size_mb / c.time_ms)) : Json()},
                     {"transport", transport}});
    }
    list.push_back({{"group", group.empty() ? "all groups (global ranks)" : "group " + group + " (ranks local to it)"},
                    {"global", group.empty()},
                    {"ranks", std::vector<int>(ranks.begin(), ranks.end())},
                    {"cells", std::move(out)}});
  }
  if (list.empty()) return nullptr;
  return Json{{"matrices", std::move(list)}};
}

}  // namespace optrace::analyze::report
