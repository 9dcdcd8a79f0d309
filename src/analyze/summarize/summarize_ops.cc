// Operator and HCCL summaries and the bound classification.
#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <tuple>

#include "analyze/summarize/summarize.h"

#include "analyze/summarize/communication.h"
#include "analyze/summarize/memory.h"
#include "analyze/summarize/source_check.h"
#include "core/parallel_for.h"
#include "core/quantile.h"

namespace optrace::analyze {

PipeSums EmptyPipeSums() {
  PipeSums s;
  s.fill(kMissing);
  return s;
}

void AddPipe(PipeSums& sums, const RankTable& table, const std::optional<PipeView>& p) {
  if (!p) return;
  p->ForEachPresent([&](int i, uint32_t packed) {
    const double v = UnpackDecimal(packed, table.pipe_overflow);
    if (std::isnan(v)) return;
    sums[i] = std::isnan(sums[i]) ? v : sums[i] + v;
  });
}

void AddPipeSums(PipeSums& into, const PipeSums& from) {
  for (size_t i = 0; i < into.size(); ++i)
    if (!std::isnan(from[i])) into[i] = std::isnan(into[i]) ? from[i] : into[i] + from[i];
}

namespace {
DurationStats DurationStatsOf(const SummaryStats& s) {
  DurationStats d;
  d.count = s.count;
  d.total_us = s.total;
  d.mean_us = s.mean;
  d.p50_us = s.p50;
  d.p90_us = s.p90;
  d.max_us = s.max;
  d.min_us = s.min;
  return d;
}
}  // namespace

DurationStats StatsOf(std::vector<double>& us) {
  if (us.empty()) return {};
  return DurationStatsOf(optrace::Summarize(us));
}

namespace {
// StatsOf the durations in us (double(ns) / 1000, as every summary makes them) of `ns`, which is
// sorted in place (`scratch` as long as it). Sorting the integers gives the same order as sorting
// their microseconds (the mapping only rises) in fewer radix passes.
DurationStats StatsOfNs(std::span<int64_t> ns, std::span<int64_t> scratch) {
  if (ns.empty()) return {};
  SortValues(ns, scratch);
  return DurationStatsOf(SummarizeSortedNsAsUs(ns));
}

// Index in kPipeSumFields of the 9 sub-stages, their names and families.
struct StageDef {
  size_t index;
  const char* name;
  const char* family;
  bool aic;
};
constexpr StageDef kStages[] = {
    {2, "aic_mac_time", "cube", true},       {3, "aic_fixpipe_time", "aic_mte", true},
    {4, "aic_mte1_time", "aic_mte", true},   {5, "aic_mte2_time", "aic_mte", true},
    {6, "aic_scalar_time", "scalar", true},  {7, "aiv_vec_time", "vector", false},
    {8, "aiv_mte2_time", "aiv_mte", false},  {9, "aiv_mte3_time", "aiv_mte", false},
    {10, "aiv_scalar_time", "scalar", false},
};
}  // namespace

BoundNames ComputeBoundNames(OpType op, const PipeSums& s, const Thresholds& t, bool compute_lens) {
  BoundNames b{"", "unknown", "none"};
  if (!compute_lens) {
    if (op == OpType::kAicpu) return {"", "aicpu", "none"};
    if (op == OpType::kCommunication) return {"", "communication", "none"};
    if (op == OpType::kDsa) return {"", "dsa", "none"};
  }
  bool aiv_only = op == OpType::kMixCommAiv && !compute_lens;
  double aic = 0, aiv = 0;
  const StageDef* top = nullptr;
  double top_v = 0;
  for (const StageDef& d : kStages) {
    double v = s[d.index];
    if (std::isnan(v) || v <= 0) continue;
    (d.aic ? aic : aiv) += v;
    if (aiv_only && d.aic) continue;
    if (v > top_v) {
      top_v = v;
      top = &d;
    }
  }
  if (aic + aiv > 0) {
    double share = aic / (aic + aiv);
    b.dominant_core = share >= t.dominant_core_share ? "aic" : share <= 1 - t.dominant_core_share ? "aiv" : "mix";
  }
  if (!top) {
    if (aiv_only) b.bound_family = "comm_aiv_mix";
    return b;
  }
  b.bound_stage = top->name;
  b.bound_family = top->family;
  for (const StageDef& d : kStages) {
    if (aiv_only && d.aic) continue;
    double v = s[d.index];
    if (std::isnan(v) || std::string_view(d.family) == top->family) continue;
    if (v >= (1.0 - t.bound_mixed_margin) * top_v) b.bound_family = "mixed";
  }
  if (aiv_only) b.bound_family = "comm_aiv_mix";
  return b;
}

BoundInfo ComputeBound(OpType op, const PipeSums& s, const Thresholds& t, bool compute_lens) {
  const BoundNames n = ComputeBoundNames(op, s, t, compute_lens);
  return {std::string(n.bound_stage), std::string(n.bound_family), std::string(n.dominant_core)};
}

namespace {

// `threads` > 1: a rank's operator groups are shared out between threads (below).
void OperatorSummaries(AnalysisResult& res, const Rules& rules, int threads) {
  Summaries& S = res.summaries;
  S.operators.clear();
  S.operator_classes.clear();
  S.events_total = S.events_with_pipeline = 0;
  struct Acc {
    size_t durs_filled = 0;  // of its slice of the rank's durations block (below)
    PipeSums sums = EmptyPipeSums();
    uint64_t pipe_events = 0;
    uint64_t dynamic_calls = 0, static_calls = 0;
    double dynamic_us = 0, static_us = 0;
    uint32_t first_row = UINT32_MAX, last_row = 0;
    uint16_t file = 0;
    DurationStats stats;  // of its durations
  };
  using Key = std::tuple<uint32_t, uint32_t, int>;  // name, type, op type
  std::map<Key, std::map<int, double>> class_rank_total;
  std::map<Key, std::pair<uint64_t, PipeSums>> class_acc;
  // Group of an event: by name id, then a short list of (type, op type) seen with that name
  // (nearly always one): no tree or hash lookup per event.
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> group_of_name(res.strings.size());
  for (const RankTable& t : res.ranks) {
    std::vector<std::pair<Key, Acc>> accs;
    for (auto& v : group_of_name) v.clear();
    auto sub_of = [](const Event& e) { return (uint64_t(e.type) << 8) | uint64_t(e.op_type); };
    // Only reads: once every group exists (after the counting pass), from any thread.
    auto find_group = [&](const Event& e) {
      const uint64_t sub = sub_of(e);
      for (const auto& [k, i] : group_of_name[e.name])
        if (k == sub) return i;
      return kNone32;
    };
    auto group_of = [&](const Event& e) {
      if (uint32_t found = find_group(e); found != kNone32) return found;
      uint32_t index = static_cast<uint32_t>(accs.size());
      group_of_name[e.name].push_back({sub_of(e), index});
      accs.push_back({Key{e.name, e.type, int(e.op_type)}, Acc{}});
      return index;
    };
    // Durations are kept for the quantiles: every group's in one block sized exactly, a slice
    // per group in group order. (A vector per group, each under the huge-page size, and a copy
    // of each for the sort and one in microseconds took ~2,700 page faults of 4 KiB on a 300 MB
    // export: a third of summarize's time on a VM.)
    std::vector<size_t> count;
    for (const Event& e : t.events) {
      uint32_t g = group_of(e);
      if (g >= count.size()) count.resize(g + 1, 0);
      ++count[g];
    }
    std::vector<size_t> slice(accs.size() + 1, 0);
    for (size_t g = 0; g < accs.size(); ++g) slice[g + 1] = slice[g] + count[g];
    std::unique_ptr<int64_t[]> durs(new int64_t[slice.back()]);  // uninitialised: every slot is written
    // The groups are shared out between threads, the largest first, each to the share with the
    // fewest events so far; each share reads every event and adds those of its own groups in file
    // order, so a group's sums are the ones a single pass makes.
    const size_t shares = std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), accs.size());
    std::vector<uint32_t> owner(accs.size(), 0);
    if (shares > 1) {
      std::vector<uint32_t> by_size(accs.size());
      for (uint32_t g = 0; g < by_size.size(); ++g) by_size[g] = g;
      std::stable_sort(by_size.begin(), by_size.end(), [&](uint32_t a, uint32_t b) { return count[a] > count[b]; });
      std::vector<size_t> load(shares, 0);
      for (uint32_t g : by_size) {
        const size_t least = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        owner[g] = static_cast<uint32_t>(least);
        load[least] += count[g];
      }
    }
    std::vector<uint64_t> share_events(shares, 0), share_pipe_events(shares, 0);
    ParallelFor(shares, threads, [&](size_t share) {
      uint64_t events = 0, pipe_events = 0;  // this share's (neighbouring counters would share a cache line)
      for (const Event& e : t.events) {
        const uint32_t g = find_group(e);
        if (owner[g] != share) continue;
        Acc& a = accs[g].second;
        durs[slice[g] + a.durs_filled++] = e.dur_ns;
        const std::optional<PipeView> p = t.PipeOf(e);
        AddPipe(a.sums, t, p);
        const bool pipe_data = p && p->AnyPipe();
        a.pipe_events += pipe_data ? 1 : 0;
        if (p && p->op_state() == OpState::kDynamic) {
          ++a.dynamic_calls;
          a.dynamic_us += double(e.dur_ns) / 1000.0;
        }
        if (p && p->op_state() == OpState::kStatic) {
          ++a.static_calls;
          a.static_us += double(e.dur_ns) / 1000.0;
        }
        a.first_row = std::min(a.first_row, e.row);
        a.last_row = std::max(a.last_row, e.row);
        a.file = e.file;
        ++events;
        pipe_events += pipe_data ? 1 : 0;
      }
      share_events[share] = events;
      share_pipe_events[share] = pipe_events;
      // The radix sort's copy: one per share, as long as its largest group.
      size_t largest = 0;
      for (size_t g = 0; g < accs.size(); ++g)
        if (owner[g] == share) largest = std::max(largest, count[g]);
      std::unique_ptr<int64_t[]> scratch(new int64_t[largest]);
      for (size_t g = 0; g < accs.size(); ++g)
        if (owner[g] == share)
          accs[g].second.stats = StatsOfNs(std::span<int64_t>(durs.get() + slice[g], count[g]),
                                           std::span<int64_t>(scratch.get(), count[g]));
    });
    for (size_t i = 0; i < shares; ++i) {
      S.events_total += share_events[i];
      S.events_with_pipeline += share_pipe_events[i];
    }
    std::sort(accs.begin(), accs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t first = S.operators.size();
    for (auto& [key, a] : accs) {
      OperatorSummary o;
      o.rank = t.rank;
      o.name = std::get<0>(key);
      o.type = std::get<1>(key);
      o.op_type = static_cast<OpType>(std::get<2>(key));
      o.stats = a.stats;
      o.pipe_sums = a.sums;
      o.pipe_event_count = a.pipe_events;
      o.dynamic_calls = a.dynamic_calls;
      o.static_calls = a.static_calls;
      o.dynamic_us = a.dynamic_us;
      o.static_us = a.static_us;
      o.bound = ComputeBound(o.op_type, a.sums, rules.thresholds);
      o.first_row = a.first_row;
      o.last_row = a.last_row;
      o.file = a.file;
      class_rank_total[key][t.rank] += o.stats.total_us;
      auto& ca = class_acc.try_emplace(key, 0, EmptyPipeSums()).first->second;
      ca.first += o.stats.count;
      AddPipeSums(ca.second, a.sums);
      S.operators.push_back(o);
    }
    std::sort(S.operators.begin() + first, S.operators.end(), [&](const OperatorSummary& a, const OperatorSummary& b) {
      if (a.stats.total_us != b.stats.total_us) return a.stats.total_us > b.stats.total_us;
      return res.Str(a.name) < res.Str(b.name);
    });
  }
  S.operators_total = S.operators.size();
  S.operators_with_pipeline = 0;
  for (const OperatorSummary& o : S.operators) S.operators_with_pipeline += o.pipe_event_count > 0;
  for (auto& [key, per_rank] : class_rank_total) {
    OperatorClassSummary c;
    c.name = std::get<0>(key);
    c.type = std::get<1>(key);
    c.op_type = static_cast<OpType>(std::get<2>(key));
    c.rank_count = static_cast<int>(per_rank.size());
    c.call_count = class_acc[key].first;
    c.pipe_sums = class_acc[key].second;
    c.bound = ComputeBound(c.op_type, c.pipe_sums, rules.thresholds);
    std::vector<double> totals;
    for (auto& [r, v] : per_rank) {
      totals.push_back(v);
      c.duration_sum_us += v;
    }
    DurationStats d = StatsOf(totals);
    c.rank_duration_min_us = d.min_us;
    c.rank_duration_max_us = d.max_us;
    c.rank_duration_p50_us = d.p50_us;
    c.rank_duration_skew_ratio = d.mean_us > 0 ? (d.max_us - d.min_us) / d.mean_us : 0;
    S.operator_classes.push_back(c);
  }
  std::sort(S.operator_classes.begin(), S.operator_classes.end(),
            [&](const OperatorClassSummary& a, const OperatorClassSummary& b) {
              if (a.duration_sum_us != b.duration_sum_us) return a.duration_sum_us > b.duration_sum_us;
              return res.Str(a.name) < res.Str(b.name);
            });
}

void HcclSummaries(AnalysisResult& res, const Rules& rules) {
  Summaries& S = res.summaries;
  S.hccl.clear();
  S.hccl_classes.clear();
  std::map<std::tuple<std::string, bool, int>, std::vector<double>> groups;
  std::map<uint64_t, std::string> kind_cache;
  for (const RankTable& t : res.ranks)
    for (const Event& e : t.events) {
      if (!IsComm(e.op_type)) continue;
      uint64_t key = (uint64_t(e.type) << 32) | e.name;
      auto it = kind_cache.find(key);
      if (it == kind_cache.end()) it = kind_cache.emplace(key, rules.HcclKind(res.Str(e.type), res.Str(e.name))).first;
      groups[{it->second, e.op_type == OpType::kMixCommAiv, t.rank}].push_back(double(e.dur_ns) / 1000.0);
    }
  std::map<std::pair<std::string, bool>, std::vector<const HcclSummary*>> by_class;
  for (auto& [key, durs] : groups) {
    HcclSummary h;
    h.kind = std::get<0>(key);
    h.comm_aiv_fused = std::get<1>(key);
    h.rank = std::get<2>(key);
    h.stats = StatsOf(durs);
    S.hccl.push_back(h);
  }
  for (const HcclSummary& h : S.hccl) by_class[{h.kind, h.comm_aiv_fused}].push_back(&h);
  for (auto& [key, members] : by_class) {
    HcclClassSummary c;
    c.kind = key.first;
    c.comm_aiv_fused = key.second;
    c.rank_count = static_cast<int>(members.size());
    double sum_avg = 0;
    c.rank_avg_min_us = 1e300;
    c.rank_avg_max_us = -1;
    for (const HcclSummary* h : members) {
      c.count += h->stats.count;
      c.total_us += h->stats.total_us;
      double avg = h->stats.mean_us;
      sum_avg += avg;
      if (avg < c.rank_avg_min_us) {
        c.rank_avg_min_us = avg;
        c.min_rank = h->rank;
      }
      if (avg > c.rank_avg_max_us) {
        c.rank_avg_max_us = avg;
        c.max_rank = h->rank;
      }
    }
    c.rank_avg_mean_us = sum_avg / members.size();
    c.rank_skew_ratio = c.rank_avg_mean_us > 0 ? (c.rank_avg_max_us - c.rank_avg_min_us) / c.rank_avg_mean_us : 0;
    S.hccl_classes.push_back(c);
  }
  std::sort(S.hccl_classes.begin(), S.hccl_classes.end(),
            [](const HcclClassSummary& a, const HcclClassSummary& b) { return a.total_us > b.total_us; });
}

}  // namespace

// summarize_classes.cc
void SummarizeBlockClasses(AnalysisResult& res, const Rules& rules, bool block_rows);
void SummarizeLayerClasses(AnalysisResult& res);
void SummarizeStepClasses(AnalysisResult& res);
void SummarizeRanks(AnalysisResult& res, const Rules& rules);

void Summarize(AnalysisResult& res, const Rules& rules, bool block_rows, int threads) {
  // Operator / HCCL summaries, the block, layer and step class summaries and the rank summaries
  // read the same tables and fill different parts of Summaries: they run side by side, the
  // longest (a pass over every event with its pipeline fields) first.
  // The operator groups are also shared out between threads when the class summaries beside
  // them have little to read (a capture without layers): otherwise those already keep the second
  // core busy, and a second pass over the events for the operators would only compete with them.
  uint64_t events = 0, block_events = 0;
  for (const RankTable& t : res.ranks) events += t.events.size();
  for (const Block& b : res.blocks) block_events += b.events.size();
  const int operator_threads = 4 * block_events < events ? threads : 1;
  ParallelFor(5, threads, [&](size_t part) {
    switch (part) {
      case 0:
        OperatorSummaries(res, rules, operator_threads);
        HcclSummaries(res, rules);
        break;
      case 1:
        SummarizeBlockClasses(res, rules, block_rows);
        break;
      case 2:
        SummarizeLayerClasses(res);
        break;
      case 3:
        SummarizeStepClasses(res);
        break;
      default:
        SummarizeRanks(res, rules);
        break;
    }
  });
  SummarizeCommunication(res, rules);
  CheckSources(res, rules);
  res.summaries.memory = SummarizeMemory(res);
}

}  // namespace optrace::analyze
