// Step / layer / block class summaries, block summaries and rank summaries.
#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "analyze/summarize/summarize.h"
#include "core/quantile.h"

namespace optrace::analyze {
namespace {


// Top `n` (name, total us) of the events of several ranges. Totals are kept in a vector indexed
// by string id (touched ids listed), reused across calls: one add per event, no hashing.
class TopOpsCounter {
 public:
  explicit TopOpsCounter(const AnalysisResult& res) : res_(res), total_(res.strings.size(), 0.0), seen_(res.strings.size(), 0) {}

  // range_of(i) for i < count: (rank, event range), in the order the totals are summed.
  template <typename RangeOf>
  std::vector<std::pair<uint32_t, double>> Top(size_t count, RangeOf range_of, size_t n) {
    for (size_t k = 0; k < count; ++k) {
      const auto [rank, r] = range_of(k);
      const RankTable& t = *res_.FindRank(rank);
      for (uint32_t i = r.first; i < r.last; ++i) {
        uint32_t name = t.events[i].name;
        if (!seen_[name]) {
          seen_[name] = 1;
          touched_.push_back(name);
        }
        total_[name] += double(t.events[i].dur_ns) / 1000.0;
      }
    }
    std::vector<std::pair<uint32_t, double>> v;
    v.reserve(touched_.size());
    for (uint32_t name : touched_) {
      v.push_back({name, total_[name]});
      total_[name] = 0;
      seen_[name] = 0;
    }
    touched_.clear();
    auto better = [&](auto& a, auto& b) {
      return a.second != b.second ? a.second > b.second : res_.Str(a.first) < res_.Str(b.first);
    };
    if (v.size() > n) {
      std::partial_sort(v.begin(), v.begin() + n, v.end(), better);
      v.resize(n);
    } else {
      std::sort(v.begin(), v.end(), better);
    }
    return v;
  }

 private:
  const AnalysisResult& res_;
  std::vector<double> total_;
  std::vector<uint8_t> seen_;
  std::vector<uint32_t> touched_;
};

struct WallStats {
  double sum = 0, mean = 0, p50 = 0, p90 = 0;
};
WallStats WallsOf(std::vector<double> ms) {
  WallStats w;
  if (ms.empty()) return w;
  SummaryStats s = optrace::Summarize(ms);
  return {s.total, s.mean, s.p50, s.p90};
}

double Ms(int64_t ns) { return double(ns) / 1e6; }

// TopOpsCounter::Top's range_of for the members of a class of steps, layers or blocks.
template <typename Item>
auto MemberRanges(const std::vector<Item>& items, const std::vector<uint32_t>& members) {
  return [&items, &members](size_t k) { return std::pair(items[members[k]].rank, items[members[k]].events); };
}

// One block's wall, communication share and pipeline sums.
struct BlockTotals {
  double wall_ms = 0;
  double comm_share = 0;
  PipeSums pipe_sums{};
};
BlockTotals BlockTotalsOf(const AnalysisResult& res, uint32_t bi) {
  const Block& b = res.blocks[bi];
  const RankTable& t = *res.FindRank(b.rank);
  BlockTotals s;
  s.wall_ms = Ms(b.end_ns - b.start_ns);
  s.pipe_sums = EmptyPipeSums();
  double comm_us = 0;
  for (uint32_t i = b.events.first; i < b.events.last; ++i) {
    const Event& e = t.events[i];
    AddPipe(s.pipe_sums, t, t.PipeOf(e));
    if (IsComm(e.op_type)) comm_us += double(e.dur_ns) / 1000.0;
  }
  s.comm_share = s.wall_ms > 0 ? std::min(1.0, comm_us / (s.wall_ms * 1000.0)) : 0;
  return s;
}

// One block: its totals, bound and top operators.
BlockSummary SummarizeBlock(const AnalysisResult& res, uint32_t bi, const Thresholds& th, TopOpsCounter& top_ops) {
  const BlockTotals bt = BlockTotalsOf(res, bi);
  BlockSummary s;
  s.block = bi;
  s.wall_ms = bt.wall_ms;
  s.comm_share = bt.comm_share;
  s.pipe_sums = bt.pipe_sums;
  s.bound = ComputeBound(OpType::kUnknown, s.pipe_sums, th, /*compute_lens=*/true);
  const Block& b = res.blocks[bi];
  s.top_ops = top_ops.Top(1, [&](size_t) { return std::pair(b.rank, b.events); }, 5);
  return s;
}

}  // namespace

void SummarizeBlockRows(AnalysisResult& res, const Rules& rules) {
  TopOpsCounter top(res);
  res.summaries.blocks.clear();
  res.summaries.blocks.reserve(res.blocks.size());
  for (uint32_t bi = 0; bi < res.blocks.size(); ++bi)
    res.summaries.blocks.push_back(SummarizeBlock(res, bi, rules.thresholds, top));
}

// Blocks (one row each only when asked for: full mode) and block classes.
void SummarizeBlockClasses(AnalysisResult& res, const Rules& rules, bool block_rows) {
  Summaries& S = res.summaries;
  const Thresholds& th = rules.thresholds;
  TopOpsCounter top(res);
  S.blocks.clear();
  if (block_rows) SummarizeBlockRows(res, rules);
  S.block_classes.clear();
  for (const ShapeClass& c : res.block_classes) {
    BlockClassSummary s;
    s.id = c.id;
    s.members = static_cast<int>(c.members.size());
    s.pipe_sums = EmptyPipeSums();
    std::vector<double> walls;
    walls.reserve(c.members.size());
    double comm_sum = 0;
    std::map<std::string_view, int> families;  // names of static storage or of S.blocks' rows
    for (uint32_t m : c.members) {
      // Full mode has each block's row; fast mode sums the block here (no row, no strings).
      BlockTotals bt;
      std::string_view family;
      if (block_rows) {
        const BlockSummary& row = S.blocks[m];
        bt = {row.wall_ms, row.comm_share, row.pipe_sums};
        family = row.bound.bound_family;
      } else {
        bt = BlockTotalsOf(res, m);
        family = ComputeBoundNames(OpType::kUnknown, bt.pipe_sums, th, /*compute_lens=*/true).bound_family;
      }
      s.kind = res.blocks[m].kind;
      walls.push_back(bt.wall_ms);
      comm_sum += bt.comm_share;
      AddPipeSums(s.pipe_sums, bt.pipe_sums);
      ++families[family];
    }
    for (const auto& [family, n] : families) s.bound_family_member_histogram.emplace(family, n);
    WallStats w = WallsOf(walls);
    s.wall_ms_sum = w.sum;
    s.wall_ms_mean = w.mean;
    s.wall_ms_p50 = w.p50;
    s.wall_ms_p90 = w.p90;
    s.comm_share_mean = c.members.empty() ? 0 : comm_sum / c.members.size();
    s.bound = ComputeBound(OpType::kUnknown, s.pipe_sums, th, true);
    s.top_ops = top.Top(c.members.size(), MemberRanges(res.blocks, c.members), 10);
    S.block_classes.push_back(s);
  }
}

void SummarizeLayerClasses(AnalysisResult& res) {
  Summaries& S = res.summaries;
  TopOpsCounter top(res);
  S.layer_classes.clear();
  for (const ShapeClass& c_all : res.layer_classes) {
    // Outlier layers (segment.cc) absorbed non-layer work: kept out of layer statistics.
    ShapeClass c = c_all;
    std::erase_if(c.members, [&](uint32_t m) { return res.layers[m].outlier; });
    if (c.members.empty()) continue;
    LayerClassSummary s;
    s.id = c.id;
    s.members = static_cast<int>(c.members.size());
    std::vector<double> walls;
    walls.reserve(c.members.size());
    const Layer& first = res.layers[c.members.front()];
    s.companion_layer = first.companion_layer;
    for (uint32_t b : first.blocks) s.block_kinds.push_back(res.blocks[b].kind);
    s.block_kind_wall_share_mean.assign(s.block_kinds.size(), 0);
    for (uint32_t m : c.members) {
      const Layer& l = res.layers[m];
      double wall = Ms(l.end_ns - l.start_ns);
      walls.push_back(wall);
      for (size_t k = 0; k < l.blocks.size() && k < s.block_kinds.size(); ++k) {
        const Block& b = res.blocks[l.blocks[k]];
        if (wall > 0) s.block_kind_wall_share_mean[k] += Ms(b.end_ns - b.start_ns) / wall;
      }
    }
    for (double& v : s.block_kind_wall_share_mean) v /= c.members.size();
    WallStats w = WallsOf(walls);
    s.wall_ms_sum = w.sum;
    s.wall_ms_mean = w.mean;
    s.wall_ms_p50 = w.p50;
    s.wall_ms_p90 = w.p90;
    s.top_ops = top.Top(c.members.size(), MemberRanges(res.layers, c.members), 10);
    S.layer_classes.push_back(s);
  }
}

void SummarizeStepClasses(AnalysisResult& res) {
  Summaries& S = res.summaries;
  TopOpsCounter top(res);
  S.step_classes.clear();
  for (const ShapeClass& c : res.step_classes) {
    StepClassSummary s;
    s.id = c.id;
    s.members = static_cast<int>(c.members.size());
    std::vector<double> walls;
    walls.reserve(c.members.size());
    std::map<std::string, double> layer_wall;
    for (uint32_t m : c.members) {
      const Step& st = res.steps[m];
      double wall = double(st.anatomy.wall_ns);
      walls.push_back(Ms(st.anatomy.wall_ns));
      if (wall > 0) {
        s.head_ratio_mean += st.anatomy.head_ns / wall;
        s.main_ratio_mean += st.anatomy.main_ns / wall;
        s.tail_ratio_mean += st.anatomy.tail_ns / wall;
        s.bubble_ratio_mean += st.anatomy.bubble_ns / wall;
      }
      for (uint32_t l : st.layers)
        if (!res.layers[l].outlier)
          layer_wall[res.layer_classes[res.layers[l].layer_class].id] += Ms(res.layers[l].end_ns - res.layers[l].start_ns);
    }
    double n = c.members.size();
    s.head_ratio_mean /= n;
    s.main_ratio_mean /= n;
    s.tail_ratio_mean /= n;
    s.bubble_ratio_mean /= n;
    WallStats w = WallsOf(walls);
    s.wall_ms_sum = w.sum;
    s.wall_ms_mean = w.mean;
    s.wall_ms_p50 = w.p50;
    s.wall_ms_p90 = w.p90;
    s.top_layer_classes.assign(layer_wall.begin(), layer_wall.end());
    std::sort(s.top_layer_classes.begin(), s.top_layer_classes.end(),
              [](auto& a, auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    if (s.top_layer_classes.size() > 5) s.top_layer_classes.resize(5);
    s.top_ops = top.Top(c.members.size(), MemberRanges(res.steps, c.members), 10);
    S.step_classes.push_back(s);
  }
  std::sort(S.step_classes.begin(), S.step_classes.end(),
            [](const StepClassSummary& a, const StepClassSummary& b) { return a.wall_ms_sum > b.wall_ms_sum; });
}

void SummarizeRanks(AnalysisResult& res, const Rules& rules) {
  Summaries& S = res.summaries;
  const Thresholds& th = rules.thresholds;
  S.ranks.clear();
  for (const RankTable& t : res.ranks) {
    RankSummary r;
    r.rank = t.rank;
    r.event_count = t.events.size();
    for (const Event& e : t.events) r.op_type_ms[int(e.op_type)] += Ms(e.dur_ns);
    std::vector<double> walls;
    double pre = 0, tail = 0, internal = 0;
    for (const Step& s : res.steps) {
      if (s.rank != t.rank) continue;
      ++r.step_count;
      walls.push_back(Ms(s.anatomy.wall_ns));
      r.wall_ms_sum += Ms(s.anatomy.wall_ns);
      r.busy_ms_sum += Ms(s.anatomy.busy_ns);
      r.bubble_ms_sum += Ms(s.anatomy.bubble_ns);
      r.comm_ms_sum += Ms(s.comm_ns);
      r.compute_ms_sum += Ms(s.compute_ns);
      if (s.prelaunch_gap_ns > 0) pre += Ms(s.prelaunch_gap_ns);
      if (s.tail_gap_ns > 0) tail += Ms(s.tail_gap_ns);
      internal += Ms(s.anatomy.bubble_gap_ns);
      if (!s.complete) continue;
      ++r.complete_step_count;
      if (s.anatomy.has_bubble) ++r.bubbling_step_count;
    }
    WallStats w = WallsOf(walls);
    r.step_wall_ms_p50 = w.p50;
    r.step_wall_ms_p90 = w.p90;
    r.bubble_recurrence_ratio = r.complete_step_count ? double(r.bubbling_step_count) / r.complete_step_count : 0;
    r.recurring_bubble_pattern = r.complete_step_count >= th.recurring_bubble_min_complete_steps &&
                                 r.bubble_recurrence_ratio >= th.recurring_bubble_min_ratio;
    r.dominant_idle_pattern = "none";
    double best = 0;
    for (auto [name, v] : {std::pair<const char*, double>{"prelaunch", pre}, {"tail", tail}, {"internal_bubble", internal}})
      if (v > best) {
        best = v;
        r.dominant_idle_pattern = name;
      }
    S.ranks.push_back(r);
  }
}

}  // namespace optrace::analyze
