// Findings across ranks: the slow rank (the wait its late arrivals cost), rank step skew and compute imbalance,
// collectives that differ across ranks, and an operator consistently slower on one rank.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analyze/diagnose/finding_builder.h"

namespace optrace::analyze::findings {

// The slow rank is the one whose late arrivals cost the others the most wait, in time, net of the
// next rank's: a pair (or any ranks) late by turns is a tie, not a finding, and a count of late
// arrivals decides nothing (issue 52). Severity follows the cost's share of the step wall, and never
// outranks the confidence of the ranks it rests on.
void SlowRank(AnalysisResult& res, const Rules& rules, Builder& b) {
  const CrossRank& C = res.cross_rank;
  const Thresholds& th = rules.thresholds;
  if (C.lateness.empty() || C.aligned_wall_ms <= 0) return;
  const RankLateness& top = C.lateness.front();
  const double next_ms = C.lateness.size() > 1 ? C.lateness[1].caused_wait_ms : 0.0;
  const double net_ms = top.caused_wait_ms - next_ms;
  const double net_share = net_ms / C.aligned_wall_ms;
  if (net_ms < th.slow_rank_min_wait_ms || net_share < th.slow_rank_min_wait_share) return;
  Finding f;
  f.severity = net_share >= th.slow_rank_high_wait_share     ? Severity::kHigh
               : net_share >= th.slow_rank_medium_wait_share ? Severity::kMedium
                                                             : Severity::kLow;
  f.type = "slow_rank";
  f.rank = top.rank;
  f.step_id = top.worst_step_id;
  std::vector<const AlignedCollective*> late;
  int compared = 0;
  for (const AlignedCollective& c : C.collectives) {
    if (c.dur_us.size() < 2) continue;
    ++compared;
    if (c.waiter_rank >= 0 && c.shortest_rank == top.rank) late.push_back(&c);
  }
  std::stable_sort(late.begin(), late.end(), [](const AlignedCollective* a, const AlignedCollective* c) {
    return a->wait_caused_us > c->wait_caused_us;
  });
  std::vector<int> low_confidence;
  for (const RankSummary& r : res.summaries.ranks)
    if (r.low_confidence) low_confidence.push_back(r.rank);
  std::string caveat;
  if (!low_confidence.empty()) {
    f.severity = Severity::kLow;
    caveat = fmt::format(" Low confidence: rank(s) {} miss operator rows (data issue kernel_rows_incomplete).",
                         FormatRankList(low_confidence));
  }
  const AlignedCollective& worst = *late.front();
  std::string others =
      C.lateness.size() > 1
          ? fmt::format(" The next rank, {}, cost {:.2f} ms in {} collective(s); net {:.2f} ms.", C.lateness[1].rank,
                        next_ms, C.lateness[1].late_collectives, net_ms)
          : "";
  f.summary = fmt::format(
      "Rank {} arrived last at {} of {} matched collectives and the others waited {:.2f} ms for it, {:.1f}% of the "
      "step wall (worst step {}: {:.1f}%; worst collective {} #{} in step {}: rank {} waited {:.2f} ms).{}{}",
      top.rank, top.late_collectives, compared, top.caused_wait_ms, 100 * top.caused_wait_share, top.worst_step_id,
      100 * top.worst_step_share, res.Str(worst.name), worst.occurrence, worst.step_id, worst.waiter_rank,
      worst.wait_caused_us / 1e3, others, caveat);
  f.numbers = {{"caused_wait_ms", top.caused_wait_ms},
               {"caused_wait_share", top.caused_wait_share},
               {"net_wait_ms", net_ms},
               {"net_wait_share", net_share},
               {"late_collectives", double(top.late_collectives)},
               {"compared_collectives", double(compared)},
               {"worst_step_share", top.worst_step_share}};
  // Its row of each collective where it was last, most costly first, the worst one's waiter second.
  auto dur_of = [](const AlignedCollective& c, int rank) {
    for (const RankValue& x : c.dur_us)
      if (x.rank == rank) return x.value;
    return 0.0;
  };
  for (const AlignedCollective* c : late)
    for (const auto& w : c->events)
      if (w.rank == top.rank)
        f.evidence.push_back(b.RangeEvidence(
            w.rank, {w.event, w.event + 1}, c->step_id,
            fmt::format("{} #{} ({}) in step {}: rank {} {:.1f} us, arrived last; rank {} waited {:.1f} us longer",
                        res.Str(c->name), c->occurrence, c->kind, c->step_id, w.rank, dur_of(*c, w.rank),
                        c->waiter_rank, c->wait_caused_us)));
  for (const auto& w : worst.events)
    if (w.rank == worst.waiter_rank)
      f.evidence.insert(f.evidence.begin() + (f.evidence.empty() ? 0 : 1), b.RangeEvidence(w.rank, {w.event, w.event + 1}, worst.step_id,
                                           fmt::format("{} #{} in step {}: rank {} {:.1f} us, waiting for rank {}",
                                                       res.Str(worst.name), worst.occurrence, worst.step_id, w.rank,
                                                       dur_of(worst, w.rank), top.rank)));
  b.Add(std::move(f));
}

void CrossRankFindings(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  const CrossRank& C = res.cross_rank;
  const AlignedStep* worst = nullptr;
  int over = 0;
  for (const AlignedStep& a : C.steps) {
    if (a.wall_ms.size() < 2 || a.wall_skew_ratio <= th.rank_skew_ratio) continue;
    ++over;
    if (!worst || a.wall_skew_ratio > worst->wall_skew_ratio) worst = &a;
  }
  if (worst) {
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "rank_step_skew";
    f.step_id = worst->step_id;
    f.rank = worst->slowest_rank;
    // Each rank's step matched into the worst aligned step: by step id, or (whole-capture steps)
    // by the step's position on its rank, the key CrossRankAnalyze aligned them by.
    bool ordinal = C.alignment_method == "step_ordinal";
    std::map<int, int64_t> ordinal_of;
    const bool from_trace = C.alignment_method == "step_trace_time";
    for (const RankTable& t : res.ranks) {
      if ((t.has_timeline() && !from_trace) || ordinal) continue;
      for (const RankValue& v : worst->wall_ms)
        if (v.rank == t.rank) {
          Evidence ev;
          ev.rank = t.rank;
          ev.step_id = worst->step_id;
          ev.file = (std::filesystem::path(t.dir) / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").string();
          ev.note = fmt::format(
              "rank {} step {} wall {:.3f} ms (step_trace_time.csv: Computing + Communication(Not "
              "Overlapped) + Free)",
              t.rank, worst->step_id, v.value);
          f.evidence.push_back(ev);
        }
    }
    for (const Step& s : res.steps) {
      if (from_trace || !res.FindRank(s.rank)->has_timeline()) continue;
      int64_t key = ordinal ? ordinal_of[s.rank]++ : s.step_id;
      if (key != worst->step_id) continue;
      f.evidence.push_back(b.RangeEvidence(
          s.rank, s.events, s.step_id,
          ordinal
              ? fmt::format("rank {} step #{} (matched by order) wall {:.3f} ms", s.rank, key, Ms(s.anatomy.wall_ns))
              : fmt::format("rank {} step {} wall {:.3f} ms", s.rank, s.step_id, Ms(s.anatomy.wall_ns))));
    }
    f.summary = fmt::format(
        "Step wall differs across ranks by more than {:.0f}% in {} of {} aligned steps (worst step {}: {:.1f}%, rank "
        "{} "
        "longest, rank {} shortest).",
        100 * th.rank_skew_ratio, over, C.steps.size(), worst->step_id, 100 * worst->wall_skew_ratio,
        worst->slowest_rank, worst->fastest_rank);
    f.numbers = {{"steps_over", double(over)}, {"max_skew_ratio", worst->wall_skew_ratio}};
    b.Add(std::move(f));
  }
  if (C.ranks.size() >= 2 && C.compute_imbalance_ratio > th.compute_imbalance_ratio) {
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "compute_imbalance";
    // Per-rank compute over the steps every rank has (as cross_rank summed it): a rank without
    // kernel rows contributes step_trace_time.csv's Computing, not zero.
    std::map<int, double> total;
    for (const AlignedStep& a : C.steps)
      if (a.compute_ms.size() == C.ranks.size())
        for (const RankValue& v : a.compute_ms) total[v.rank] += v.value;
    std::vector<std::pair<double, int>> per;
    for (auto& [rank, ms] : total) per.push_back({ms, rank});
    if (per.empty())
      for (const RankSummary& r : res.summaries.ranks) per.push_back({r.compute_ms_sum, r.rank});
    std::sort(per.begin(), per.end());
    f.rank = per.back().second;
    for (const Step& s : res.steps)
      if (s.rank == per.back().second || s.rank == per.front().second)
        f.evidence.push_back(
            b.RangeEvidence(s.rank, s.events, s.step_id,
                            fmt::format("rank {} step {} compute {:.3f} ms", s.rank, s.step_id, Ms(s.compute_ns))));
    // The cause is named only as far as the capture shows it: expert load where expert-parallel
    // groups were measured, otherwise the candidates.
    const bool moe = !C.expert_load.empty();
    f.summary = fmt::format(
        "Compute time differs across ranks by {:.1f}% (rank {} {:.3f} ms vs rank {} {:.3f} ms): {}",
        100 * C.compute_imbalance_ratio, per.back().second, per.back().first, per.front().second, per.front().first,
        moe ? "uneven expert load (see expert_load_imbalance) makes the others wait."
            : "the ranks did different work (inputs of different size, another program path) or one device is "
              "slower; the ranks that finish early wait at the next collective.");
    f.numbers = {{"imbalance_ratio", C.compute_imbalance_ratio}};
    b.Add(std::move(f));
  }
}

// Collectives whose duration differs across ranks by more than collective_skew_ratio, one
// finding per HCCL op kind. Collectives where the slow_rank finding's rank arrived last are left to
// that finding.
void CollectiveSkew(AnalysisResult& res, const Rules& rules, Builder& b, int slow_rank) {
  const Thresholds& th = rules.thresholds;
  const CrossRank& C = res.cross_rank;
  std::map<std::string, std::vector<const AlignedCollective*>> over;  // kind -> skewed collectives
  std::map<std::string, int> tested;
  for (const AlignedCollective& c : C.collectives) {
    if (c.dur_us.size() < 2) continue;
    ++tested[c.kind];
    if (c.skew_ratio <= th.collective_skew_ratio) continue;
    if (slow_rank >= 0 && c.waiter_rank >= 0 && c.shortest_rank == slow_rank) continue;
    over[c.kind].push_back(&c);
  }
  for (auto& [kind, list] : over) {
    std::stable_sort(list.begin(), list.end(), [](const AlignedCollective* a, const AlignedCollective* c) {
      return a->skew_ratio > c->skew_ratio;
    });
    const AlignedCollective& w = *list.front();
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "collective_rank_skew";
    f.step_id = w.step_id;
    auto [mn, mx] = std::minmax_element(w.dur_us.begin(), w.dur_us.end(),
                                        [](const RankValue& a, const RankValue& c) { return a.value < c.value; });
    f.rank = mn->rank;  // arrived last: the others waited for it
    // The worst collective on every rank first, then the next worst, up to max_evidence_items.
    for (const AlignedCollective* c : list) {
      for (const auto& where : c->events) {
        double dur = 0;
        for (const RankValue& x : c->dur_us)
          if (x.rank == where.rank) dur = x.value;
        f.evidence.push_back(
            b.RangeEvidence(where.rank, {where.event, where.event + 1}, c->step_id,
                            fmt::format("{} #{} on rank {}: {:.1f} us (skew {:.1f}%)", res.Str(c->name), c->occurrence,
                                        where.rank, dur, 100 * c->skew_ratio)));
      }
      if (f.evidence.size() >= size_t(th.max_evidence_items)) break;
    }
    f.summary = fmt::format(
        "{} of {} {} collectives differ in duration across ranks by more than {:.0f}% (worst {} #{} in step {}: "
        "{:.1f}%, rank {} {:.1f} us vs rank {} {:.1f} us).",
        list.size(), tested[kind], kind, 100 * th.collective_skew_ratio, res.Str(w.name), w.occurrence, w.step_id,
        100 * w.skew_ratio, mx->rank, mx->value, mn->rank, mn->value);
    f.numbers = {{"collectives_over", double(list.size())},
                 {"collectives", double(tested[kind])},
                 {"max_skew_ratio", w.skew_ratio}};
    b.Add(std::move(f));
  }
}

// The same compute operator consistently slower on one rank: its median over its calls against
// the median of the other ranks' medians (with 2 ranks: the other rank). Collectives are left to
// the slow-rank vote (their duration is mostly waiting for the others). Fused communication +
// compute kernels (mix_comm_aiv: DispatchFFNCombine, MoeDistribute*, mc2 matmuls) are judged here
// too: when one rank's copy is longer while the others' are not, the others did not wait on it
// longer, so the extra time is that rank's own work.
void SlowOperators(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  std::map<std::tuple<uint32_t, uint32_t, OpType>, std::vector<const OperatorSummary*>> by_op;
  for (const OperatorSummary& o : res.summaries.operators) {
    if (o.op_type == OpType::kCommunication) continue;
    if (o.stats.count < uint64_t(std::max(1, th.slow_operator_min_calls))) continue;
    by_op[{o.name, o.type, o.op_type}].push_back(&o);
  }
  struct Hit {
    const OperatorSummary* op;
    double ratio, others_p50;
    int ranks;
  };
  std::vector<Hit> hits;
  for (auto& entry : by_op) {
    std::vector<const OperatorSummary*>& list = entry.second;
    if (list.size() < 2) continue;
    // One sort per operator: the others' median is the sorted medians with this rank's taken
    // out, read at two indices (O(R log R) per operator, not O(R^2 log R): thousands of ranks).
    std::stable_sort(list.begin(), list.end(), [](const OperatorSummary* a, const OperatorSummary* c) {
      return a->stats.p50_us < c->stats.p50_us;
    });
    const size_t m = list.size() - 1;  // how many others
    for (size_t i = 0; i < list.size(); ++i) {
      const OperatorSummary* o = list[i];
      auto other = [&](size_t k) { return list[k < i ? k : k + 1]->stats.p50_us; };
      double ref = 0.5 * (other((m - 1) / 2) + other(m / 2));
      if (ref < th.slow_operator_min_us || o->stats.p50_us < th.slow_operator_ratio * ref) continue;
      hits.push_back({o, o->stats.p50_us / ref, ref, static_cast<int>(list.size())});
    }
  }
  if (hits.empty()) return;
  // Worst first by time lost: (median - reference) x calls.
  std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& c) {
    return (a.op->stats.p50_us - a.others_p50) * a.op->stats.count >
           (c.op->stats.p50_us - c.others_p50) * c.op->stats.count;
  });
  Finding f;
  f.severity = Severity::kMedium;
  f.type = "slow_operator";
  const Hit& w = hits.front();
  f.rank = w.op->rank;
  std::vector<int> ranks;
  for (const Hit& h : hits) {
    ranks.push_back(h.op->rank);
    const RankTable& t = *res.FindRank(h.op->rank);
    Evidence ev;
    ev.rank = h.op->rank;
    ev.file = t.files[h.op->file].path + (t.files[h.op->file].table.empty() ? "" : "#" + t.files[h.op->file].table);
    ev.row_first = h.op->first_row;
    ev.row_last = h.op->last_row;
    ev.note =
        fmt::format("{}{} on rank {}: median {:.1f} us over {} calls, {:.2f}x the other {} rank(s)' median {:.1f} us",
                    res.Str(h.op->name), h.op->op_type == OpType::kMixCommAiv ? " (fused communication + compute)" : "",
                    h.op->rank, h.op->stats.p50_us, h.op->stats.count, h.ratio, h.ranks - 1, h.others_p50);
    f.evidence.push_back(ev);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  f.ranks = ranks;
  double lost_us = (w.op->stats.p50_us - w.others_p50) * w.op->stats.count;
  f.summary = fmt::format(
      "{} operator(s) run consistently slower on rank(s) {} than on the other ranks (median over their calls at least "
      "{:.2f}x); worst: {} on rank {}, median {:.1f} us vs {:.1f} us over {} calls ({:.2f}x, about {:.1f} us lost).",
      hits.size(), FormatRankList(ranks), th.slow_operator_ratio, res.Str(w.op->name), w.op->rank, w.op->stats.p50_us,
      w.others_p50, w.op->stats.count, w.ratio, lost_us);
  f.numbers = {{"slow_operators", double(hits.size())},
               {"max_ratio", w.ratio},
               {"calls", double(w.op->stats.count)},
               {"lost_us", lost_us}};
  b.Add(std::move(f));
}

}  // namespace optrace::analyze::findings
