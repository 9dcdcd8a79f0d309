// Cross-rank alignment, skew and slow-rank voting.
#include "analyze/cross_rank/cross_rank.h"

#include "analyze/cross_rank/expert_load.h"
#include "analyze/read/normalize.h"
#include "analyze/cross_rank/pipeline_stages.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

namespace optrace::analyze {
namespace {

double SkewOf(const std::vector<RankValue>& v, int* min_rank = nullptr, int* max_rank = nullptr) {
  if (v.size() < 2) return 0;
  auto [mn, mx] = std::minmax_element(v.begin(), v.end(),
                                      [](const RankValue& a, const RankValue& b) { return a.value < b.value; });
  double mean = 0;
  for (const RankValue& x : v) mean += x.value;
  mean /= v.size();
  if (min_rank) *min_rank = mn->rank;
  if (max_rank) *max_rank = mx->rank;
  return mean > 0 ? (mx->value - mn->value) / mean : 0;
}

}  // namespace

OutlierTest TestLowOutlier(std::vector<double> x, const Rules& rules) {
  OutlierTest r;
  size_t n = x.size();
  std::sort(x.begin(), x.end());
  if (n < 2) {
    r.test = "none";
    return r;
  }
  double mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
  if (n == 2) {
    r.test = "two_rank_skew";
    r.statistic = mean > 0 ? (x[1] - x[0]) / mean : 0;
    r.critical = rules.thresholds.slow_rank_two_rank_skew;
    r.low_outlier = r.statistic > r.critical;
    return r;
  }
  if (n <= 100 && rules.dixon_q95.count(static_cast<int>(n))) {
    r.test = "dixon_q";
    double range = x[n - 1] - x[0];
    r.statistic = range > 0 ? (x[1] - x[0]) / range : 0;
    r.critical = rules.dixon_q95.at(static_cast<int>(n));
    r.low_outlier = range > 0 && r.statistic > r.critical;
    return r;
  }
  r.test = "three_sigma";
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  double sd = std::sqrt(var / n);
  r.statistic = sd > 0 ? (mean - x[0]) / sd : 0;
  r.critical = rules.thresholds.three_sigma_k;
  r.low_outlier = sd > 0 && r.statistic > r.critical;
  return r;
}

namespace {

// Per communication group: its matched collectives' skew and the rank most often last. An op
// name belongs to the group communication.json files it under.
void GroupSkews(AnalysisResult& res) {
  CrossRank& C = res.cross_rank;
  C.groups.clear();
  std::map<std::string, std::string> group_of;  // op name -> group hash
  for (const RankTable& t : res.ranks)
    for (const CommOp& op : t.comm_ops) group_of.emplace(op.name, op.group);
  if (group_of.empty()) return;
  std::map<std::string, GroupSkew> by_group;
  std::map<std::string, std::map<int, int>> last;
  for (const AlignedCollective& c : C.collectives) {
    auto it = group_of.find(res.Str(c.name));
    if (it == group_of.end()) continue;
    GroupSkew& g = by_group[it->second];
    g.group = it->second;
    ++g.collectives;
    g.max_skew_ratio = std::max(g.max_skew_ratio, c.skew_ratio);
    g.mean_skew_ratio += c.skew_ratio;
    if (c.shortest_rank >= 0) ++last[it->second][c.shortest_rank];
  }
  for (auto& [hash, g] : by_group) {
    g.mean_skew_ratio /= g.collectives;
    for (auto& [rank, n] : last[hash])
      if (n > g.last_rank_count) {
        g.last_rank = rank;
        g.last_rank_count = n;
      }
    for (const ParallelGroup& p : res.summaries.groups)
      if (p.hash == hash) {
        g.pg_name = p.pg_name;
        g.kind = p.kind;
      }
    C.groups.push_back(g);
  }
}

// Per rank, what its late arrivals cost: the waits it caused summed, against the aligned steps'
// wall (the mean across ranks per step) and, per step, against the waiting rank's own wall.
void Lateness(CrossRank& C) {
  std::map<int64_t, std::map<int, double>> wall;  // step key -> rank -> wall ms
  C.aligned_wall_ms = 0;
  for (const AlignedStep& a : C.steps) {
    double sum = 0;
    for (const RankValue& v : a.wall_ms) {
      wall[a.step_id][v.rank] = v.value;
      sum += v.value;
    }
    if (!a.wall_ms.empty()) C.aligned_wall_ms += sum / double(a.wall_ms.size());
  }
  std::map<int, RankLateness> by_rank;
  std::map<std::pair<int, int64_t>, std::pair<double, double>> per_step;  // (rank, step) -> (wait ms, wall ms)
  for (const AlignedCollective& c : C.collectives) {
    if (c.waiter_rank < 0) continue;
    RankLateness& l = by_rank[c.shortest_rank];
    l.rank = c.shortest_rank;
    ++l.late_collectives;
    double ms = c.wait_caused_us / 1e3;
    l.caused_wait_ms += ms;
    l.worst_wait_ms = std::max(l.worst_wait_ms, ms);
    auto& [wait, step_wall] = per_step[{c.shortest_rank, c.step_id}];
    wait += ms;
    auto w = wall.find(c.step_id);
    if (w != wall.end() && w->second.count(c.waiter_rank)) step_wall = std::max(step_wall, w->second[c.waiter_rank]);
  }
  for (auto& [key, v] : per_step) {
    RankLateness& l = by_rank[key.first];
    double share = v.second > 0 ? v.first / v.second : 0;
    if (l.worst_step_id < 0 || share > l.worst_step_share) {
      l.worst_step_share = share;
      l.worst_step_id = key.second;
    }
  }
  C.lateness.clear();
  for (auto& [r, l] : by_rank) {
    l.caused_wait_share = C.aligned_wall_ms > 0 ? l.caused_wait_ms / C.aligned_wall_ms : 0;
    C.lateness.push_back(l);
  }
  std::sort(C.lateness.begin(), C.lateness.end(), [](const RankLateness& a, const RankLateness& b) {
    return a.caused_wait_ms != b.caused_wait_ms ? a.caused_wait_ms > b.caused_wait_ms : a.rank < b.rank;
  });
}

}  // namespace

void CrossRankAnalyze(AnalysisResult& res, const Rules& rules) {
  CrossRank& C = res.cross_rank;
  C = CrossRank();
  for (const RankTable& t : res.ranks)
    if (!t.events.empty() || !t.step_trace.empty()) C.ranks.push_back(t.rank);
  bool ordinal = std::any_of(res.steps.begin(), res.steps.end(),
                             [](const Step& s) { return s.step_source == "whole_capture"; });
  C.alignment_method = C.ranks.size() < 2 ? "single_rank" : ordinal ? "step_ordinal" : "step_id";

  // Steps.
  // A rank with a device timeline measures its steps from its events; a rank without one (no
  // kernel rows) from step_trace_time.csv: step time = Computing + Communication(Not Overlapped)
  // + Free, the profiler's own decomposition.
  struct StepValue {
    int rank;
    double wall_ms, compute_ms;
  };
  // Mixing the two measures across ranks compares different definitions: when some rank has only
  // step_trace_time.csv and every rank has one, all ranks are compared on step_trace_time.csv.
  bool partial = std::any_of(res.ranks.begin(), res.ranks.end(), [](const RankTable& t) { return !t.has_timeline(); });
  bool all_trace = std::all_of(res.ranks.begin(), res.ranks.end(), [](const RankTable& t) { return !t.step_trace.empty(); });
  const bool trace_for_all = partial && all_trace && !ordinal && C.ranks.size() >= 2;
  if (trace_for_all) C.alignment_method = "step_trace_time";
  std::map<int64_t, std::vector<StepValue>> by_step;
  std::map<int, int> ordinal_of;
  for (const Step& s : res.steps) {
    if (trace_for_all || !res.FindRank(s.rank)->has_timeline()) continue;
    int64_t key = ordinal ? ordinal_of[s.rank]++ : s.step_id;
    by_step[key].push_back({s.rank, double(s.anatomy.wall_ns) / 1e6, double(s.compute_ns) / 1e6});
  }
  if (!ordinal) {
    for (const RankTable& t : res.ranks) {
      if (t.has_timeline() && !trace_for_all) continue;
      for (const StepTraceRow& row : t.step_trace) {
        if (row.step_id < 0 || IsMissing(row.computing_us) || IsMissing(row.comm_not_overlapped_us) ||
            IsMissing(row.free_us))
          continue;
        double wall = (row.computing_us + row.comm_not_overlapped_us + row.free_us) / 1e3;
        by_step[row.step_id].push_back({t.rank, wall, row.computing_us / 1e3});
      }
    }
  }
  std::map<int, double> compute_total;
  for (auto& [key, steps] : by_step) {
    AlignedStep a;
    a.step_id = key;
    for (const StepValue& s : steps) {
      a.wall_ms.push_back({s.rank, s.wall_ms});
      a.compute_ms.push_back({s.rank, s.compute_ms});
      if (steps.size() == C.ranks.size()) compute_total[s.rank] += s.compute_ms;
    }
    a.wall_skew_ratio = SkewOf(a.wall_ms, &a.fastest_rank, &a.slowest_rank);
    // Synchronised ranks end their steps together: a wall difference within the skew threshold
    // is noise, and naming a "slowest" rank on it would point away from the rank that works most.
    if (a.wall_skew_ratio <= rules.thresholds.rank_skew_ratio) a.slowest_rank = a.fastest_rank = -1;
    a.compute_skew_ratio = SkewOf(a.compute_ms);
    C.max_step_skew_ratio = std::max(C.max_step_skew_ratio, a.wall_skew_ratio);
    C.steps.push_back(a);
  }
  std::vector<RankValue> totals;
  for (auto& [r, v] : compute_total) totals.push_back({r, v});
  C.compute_imbalance_ratio = SkewOf(totals);

  // Collectives.
  struct Key {
    int64_t step;
    uint32_t name;
    int occ;
    bool operator<(const Key& o) const { return std::tie(step, name, occ) < std::tie(o.step, o.name, o.occ); }
  };
  std::map<Key, AlignedCollective> coll;
  std::map<uint64_t, std::string> kind_cache;
  // Same rule as for steps: with a rank that has only communication.json, every rank's collective
  // duration is its communication.json Elapse Time (kernel rows matched by step, name, occurrence).
  bool all_json = std::all_of(res.ranks.begin(), res.ranks.end(), [](const RankTable& t) { return !t.comm_ops.empty(); });
  const bool json_for_all = partial && all_json && !ordinal;
  std::map<int, std::map<std::tuple<int64_t, std::string, int>, double>> elapse_us;  // rank -> key -> us
  if (json_for_all) {
    for (const RankTable& t : res.ranks) {
      std::vector<const CommOp*> ops;
      for (const CommOp& op : t.comm_ops)
        if (!IsMissing(op.elapse_ms)) ops.push_back(&op);
      std::stable_sort(ops.begin(), ops.end(), [](const CommOp* a, const CommOp* b) { return a->start_ns < b->start_ns; });
      std::map<std::pair<int64_t, std::string>, int> occ;
      for (const CommOp* op : ops) {
        int64_t step = StepOfCommKey(op->step);
        int n = occ[{step, op->name}]++;
        elapse_us[t.rank][{step, op->name, n}] = op->elapse_ms * 1000.0;
      }
    }
  }
  ordinal_of.clear();
  // One rank has nothing to compare a collective with (and a capture has millions of them).
  const std::vector<Step> no_steps;
  const std::vector<Step>& matched_steps = C.ranks.size() < 2 ? no_steps : res.steps;
  for (const Step& s : matched_steps) {
    int64_t key = ordinal ? ordinal_of[s.rank]++ : s.step_id;
    const RankTable& t = *res.FindRank(s.rank);
    std::map<uint32_t, int> occ;
    for (uint32_t i = s.events.first; i < s.events.last; ++i) {
      const Event& e = t.events[i];
      if (e.op_type != OpType::kCommunication) continue;
      uint64_t ck = (uint64_t(e.type) << 32) | e.name;
      auto it = kind_cache.find(ck);
      if (it == kind_cache.end()) it = kind_cache.emplace(ck, rules.HcclKind(res.Str(e.type), res.Str(e.name))).first;
      if (it->second == "send_recv") continue;
      Key k{key, e.name, occ[e.name]++};
      AlignedCollective& c = coll[k];
      c.step_id = key;
      c.name = e.name;
      c.occurrence = k.occ;
      c.kind = it->second;
      double dur = double(e.dur_ns) / 1000.0;
      if (json_for_all) {
        auto& m = elapse_us[t.rank];
        auto found = m.find({s.step_id, res.Str(e.name), k.occ});
        if (found == m.end()) continue;  // not in communication.json: not comparable
        dur = found->second;
      }
      c.dur_us.push_back({t.rank, dur});
      c.events.push_back({t.rank, i});
    }
  }
  std::map<int, int> votes;
  for (auto& [k, c] : coll) {
    if (c.dur_us.size() < 2) continue;
    c.skew_ratio = SkewOf(c.dur_us, &c.shortest_rank, nullptr);
    C.max_collective_skew_ratio = std::max(C.max_collective_skew_ratio, c.skew_ratio);
    std::vector<double> v;
    for (const RankValue& x : c.dur_us) v.push_back(x.value);
    OutlierTest t = TestLowOutlier(v, rules);
    c.test = t.test;
    c.statistic = t.statistic;
    c.critical = t.critical;
    ++C.tested_collectives;
    if (t.low_outlier && c.skew_ratio >= rules.thresholds.rank_skew_ratio) {
      c.outlier_rank = c.shortest_rank;
      ++votes[c.shortest_rank];
    }
    // A collective ends together on every rank: the one that arrived last has the shortest
    // duration, and the longest one waited for it that much longer.
    const RankValue* lo = &c.dur_us.front();
    const RankValue* hi = &c.dur_us.front();
    for (const RankValue& x : c.dur_us) {
      if (x.value < lo->value) lo = &x;
      if (x.value > hi->value) hi = &x;
    }
    if (hi->value > lo->value) {
      c.shortest_rank = lo->rank;
      c.waiter_rank = hi->rank;
      c.wait_caused_us = hi->value - lo->value;
    }
    C.collectives.push_back(std::move(c));  // the map is not read again
  }
  for (auto& [r, n] : votes)
    C.votes.push_back({r, n, C.tested_collectives ? double(n) / C.tested_collectives : 0});
  Lateness(C);
  GroupSkews(res);
  std::sort(C.votes.begin(), C.votes.end(), [](const SlowRankVote& a, const SlowRankVote& b) {
    return a.votes != b.votes ? a.votes > b.votes : a.rank < b.rank;
  });
  C.expert_load = ExpertLoad(res);
  C.pipeline_stages = PipelineStages(res);
}

}  // namespace optrace::analyze
