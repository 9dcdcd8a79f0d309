// Findings and their evidence.
#include "analyze/diagnose/diagnose.h"


#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>
#include <tuple>

namespace optrace::analyze {
namespace {

double Ms(int64_t ns) { return double(ns) / 1e6; }

class Builder {
 public:
  Builder(AnalysisResult& res, const Rules& rules) : res_(res), rules_(rules) {}

  // Evidence for an event range of a rank: file + row range (per file) and the time window.
  Evidence RangeEvidence(int rank, EventRange r, int64_t step_id, std::string note) const {
    const RankTable& t = *res_.FindRank(rank);
    Evidence ev;
    ev.rank = rank;
    ev.step_id = step_id;
    ev.note = std::move(note);
    if (r.empty()) return ev;
    uint32_t lo = UINT32_MAX, hi = 0;
    int64_t ws = INT64_MAX, we = INT64_MIN;
    uint16_t file = t.events[r.first].file;
    for (uint32_t i = r.first; i < r.last; ++i) {
      const Event& e = t.events[i];
      ws = std::min(ws, e.start_ns);
      we = std::max(we, e.end_ns());
      if (e.file != file) continue;
      lo = std::min(lo, e.row);
      hi = std::max(hi, e.row);
    }
    ev.file = t.files[file].path;
    if (!t.files[file].table.empty()) ev.file += "#" + t.files[file].table;
    ev.row_first = lo;
    ev.row_last = hi;
    ev.window_start_ns = t.AbsNs(ws);
    ev.window_end_ns = t.AbsNs(we);
    return ev;
  }
  Evidence WindowEvidence(int rank, int64_t step_id, int64_t rel_start, int64_t rel_end, std::string note) const {
    const RankTable& t = *res_.FindRank(rank);
    Evidence ev;
    ev.rank = rank;
    ev.step_id = step_id;
    ev.window_start_ns = t.AbsNs(rel_start);
    ev.window_end_ns = t.AbsNs(rel_end);
    ev.note = std::move(note);
    return ev;
  }
  void Add(Finding f) {
    if (f.evidence.size() > size_t(rules_.thresholds.max_evidence_items))
      f.evidence.resize(rules_.thresholds.max_evidence_items);
    out_.push_back(std::move(f));
  }
  std::vector<Finding>& out() { return out_; }

 private:
  AnalysisResult& res_;
  const Rules& rules_;
  std::vector<Finding> out_;
};

void SlowRank(AnalysisResult& res, const Rules& rules, Builder& b) {
  const CrossRank& C = res.cross_rank;
  const Thresholds& th = rules.thresholds;
  if (C.votes.empty()) return;
  const SlowRankVote& top = C.votes.front();
  if (top.votes < th.slow_rank_min_votes || top.vote_share < th.slow_rank_min_vote_share) return;
  Finding f;
  f.severity = Severity::kHigh;
  f.type = "slow_rank";
  f.rank = top.rank;
  double wait_sum = 0;
  int n = 0;
  for (const AlignedCollective& c : C.collectives) {
    if (c.outlier_rank != top.rank) continue;
    std::vector<double> v;
    double mine = 0;
    for (const RankValue& x : c.dur_us) {
      v.push_back(x.value);
      if (x.rank == top.rank) mine = x.value;
    }
    std::sort(v.begin(), v.end());
    wait_sum += v[v.size() / 2] - mine;
    ++n;
    for (const auto& w : c.events)
      if (w.rank == top.rank)
        f.evidence.push_back(b.RangeEvidence(w.rank, {w.event, w.event + 1}, c.step_id,
                                             fmt::format("{} #{} ({}): rank {} {:.1f} us, median {:.1f} us ({})",
                                                         res.Str(c.name), c.occurrence, c.kind, top.rank, mine,
                                                         v[v.size() / 2], c.test)));
  }
  double late_us = n ? wait_sum / n : 0;
  f.summary = fmt::format(
      "Rank {} arrived last at {} of {} matched collectives ({:.0f}%): its collectives are on average {:.1f} us "
      "shorter than the median because the other ranks wait for it.",
      top.rank, top.votes, C.tested_collectives, 100 * top.vote_share, late_us);
  f.numbers = {{"votes", double(top.votes)},
               {"tested_collectives", double(C.tested_collectives)},
               {"vote_share", top.vote_share},
               {"mean_lateness_us", late_us}};
  b.Add(std::move(f));
}

void PerRankStepFindings(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  for (const RankSummary& rs : res.summaries.ranks) {
    // A rank without a device timeline (HCCL ops only) has no step wall of its own to judge.
    if (const RankTable* t = res.FindRank(rs.rank); !t || !t->has_timeline()) continue;
    std::vector<const Step*> steps;
    for (const Step& s : res.steps)
      if (s.rank == rs.rank) steps.push_back(&s);
    // Communication-dominated steps.
    Finding comm;
    double worst = 0;
    int64_t worst_step = -1;
    for (const Step* s : steps) {
      double share = s->anatomy.wall_ns ? double(s->comm_ns) / s->anatomy.wall_ns : 0;
      if (share < th.comm_dominated_share) continue;
      if (share > worst) {
        worst = share;
        worst_step = s->step_id;
      }
      comm.evidence.push_back(b.RangeEvidence(s->rank, s->events, s->step_id,
                                              fmt::format("step {}: communication {:.2f} of {:.2f} ms wall ({:.0f}%)",
                                                          s->step_id, Ms(s->comm_ns), Ms(s->anatomy.wall_ns), 100 * share)));
    }
    if (!comm.evidence.empty()) {
      int count = static_cast<int>(comm.evidence.size());
      comm.severity = Severity::kMedium;
      comm.type = "communication_dominated_step";
      comm.rank = rs.rank;
      comm.step_id = worst_step;
      comm.summary = fmt::format(
          "On rank {}, communication covers at least {:.0f}% of the step wall in {} of {} steps (worst {:.0f}% in step "
          "{}).",
          rs.rank, 100 * th.comm_dominated_share, count, steps.size(), 100 * worst, worst_step);
      comm.numbers = {{"steps", double(count)}, {"max_comm_share", worst}};
      b.Add(std::move(comm));
    }
    // Communication that could hide under compute and does not.
    Finding exposed;
    double worst_exposed = 0;
    int64_t worst_exposed_step = -1, exposed_sum_ns = 0, comm_sum_ns = 0;
    for (const Step* s : steps) {
      if (s->anatomy.wall_ns <= 0 || s->comm_ns <= 0) continue;
      int64_t ex = s->exposed_comm_ns();
      double share = double(ex) / double(s->anatomy.wall_ns);
      double overlap = double(s->comm_overlap_ns()) / double(s->comm_ns);
      if (share < th.exposed_comm_min_share || overlap > th.comm_overlap_max_ratio || s->compute_ns < ex) continue;
      exposed_sum_ns += ex;
      comm_sum_ns += s->comm_ns;
      if (share > worst_exposed) {
        worst_exposed = share;
        worst_exposed_step = s->step_id;
      }
      exposed.evidence.push_back(b.RangeEvidence(
          s->rank, s->events, s->step_id,
          fmt::format("step {}: {:.2f} ms of {:.2f} ms communication exposed ({:.0f}% of the {:.2f} ms wall), {:.0f}% "
                      "hidden under {:.2f} ms of compute",
                      s->step_id, Ms(ex), Ms(s->comm_ns), 100 * share, Ms(s->anatomy.wall_ns), 100 * overlap,
                      Ms(s->compute_ns))));
    }
    if (!exposed.evidence.empty()) {
      int count = static_cast<int>(exposed.evidence.size());
      exposed.severity = Severity::kMedium;
      exposed.type = "exposed_communication";
      exposed.rank = rs.rank;
      exposed.step_id = worst_exposed_step;
      exposed.summary = fmt::format(
          "On rank {}, communication runs alone on the device in {} of {} steps: at least {:.0f}% of the step wall is "
          "communication no compute hides (worst {:.0f}% in step {}), and at most {:.0f}% of it overlaps compute "
          "although each step has at least as much compute. Overlap it (async collectives, communication on its own "
          "stream, comm/compute fusion such as mc2) or split the data so compute can start earlier.",
          rs.rank, count, steps.size(), 100 * th.exposed_comm_min_share, 100 * worst_exposed, worst_exposed_step,
          100 * th.comm_overlap_max_ratio);
      exposed.numbers = {{"steps", double(count)},
                         {"max_exposed_share", worst_exposed},
                         {"exposed_ms", Ms(exposed_sum_ns)},
                         {"overlap_ratio", comm_sum_ns ? 1.0 - double(exposed_sum_ns) / double(comm_sum_ns) : 0}};
      b.Add(std::move(exposed));
    }
    // Recurring bubbles.
    if (rs.complete_step_count >= th.recurring_bubble_min_complete_steps &&
        rs.bubble_recurrence_ratio >= th.recurring_bubble_min_ratio) {
      Finding f;
      f.severity = Severity::kMedium;
      f.type = "recurring_bubble_pattern";
      f.rank = rs.rank;
      double gap_sum = 0;
      for (const Step* s : steps) {
        if (!s->complete || !s->anatomy.has_bubble) continue;
        gap_sum += Ms(s->anatomy.bubble_gap_ns);
        // The rows around the gap, and the gap itself as the time window.
        uint32_t next = s->anatomy.max_gap_next_event;
        Evidence ev = b.RangeEvidence(s->rank, {next > s->events.first ? next - 1 : next, next + 1}, s->step_id,
                                      fmt::format("step {}: idle gap of {:.3f} ms inside the step", s->step_id,
                                                  Ms(s->anatomy.max_gap_ns)));
        const RankTable& t = *res.FindRank(s->rank);
        ev.window_start_ns = t.AbsNs(s->anatomy.max_gap_start_ns);
        ev.window_end_ns = t.AbsNs(s->anatomy.max_gap_start_ns + s->anatomy.max_gap_ns);
        f.evidence.push_back(ev);
      }
      f.summary = fmt::format(
          "Rank {} has device bubbles in {} of {} complete steps ({:.0f}%), {:.3f} ms of idle gaps per bubbling step.",
          rs.rank, rs.bubbling_step_count, rs.complete_step_count, 100 * rs.bubble_recurrence_ratio,
          rs.bubbling_step_count ? gap_sum / rs.bubbling_step_count : 0);
      f.numbers = {{"bubbling_steps", double(rs.bubbling_step_count)},
                   {"complete_steps", double(rs.complete_step_count)},
                   {"bubble_recurrence_ratio", rs.bubble_recurrence_ratio},
                   {"mean_bubble_ms", rs.bubbling_step_count ? gap_sum / rs.bubbling_step_count : 0}};
      b.Add(std::move(f));
    }
    // Heavy pre-launch / tail gaps.
    for (bool pre : {true, false}) {
      Finding f;
      double worst_ms = 0;
      for (const Step* s : steps) {
        const char* tag = pre ? "PRELAUNCH_GAP_HEAVY" : "TAIL_GAP_HEAVY";
        if (std::find(s->anomaly_tags.begin(), s->anomaly_tags.end(), tag) == s->anomaly_tags.end()) continue;
        int64_t gap = pre ? s->prelaunch_gap_ns : s->tail_gap_ns;
        worst_ms = std::max(worst_ms, Ms(gap));
        int64_t ws = pre ? s->start_ns - gap : s->end_ns;
        f.evidence.push_back(b.WindowEvidence(s->rank, s->step_id, ws, ws + gap,
                                              fmt::format("step {}: {:.3f} ms device idle {} the step (wall {:.3f} ms)",
                                                          s->step_id, Ms(gap), pre ? "before" : "after",
                                                          Ms(s->anatomy.wall_ns))));
      }
      if (f.evidence.empty()) continue;
      int count = static_cast<int>(f.evidence.size());
      f.severity = Severity::kLow;
      f.type = pre ? "prelaunch_gap_heavy" : "tail_gap_heavy";
      f.rank = rs.rank;
      f.summary = fmt::format("Rank {} idles {} {} steps for at least max(1 ms, 10% of the step wall) (worst {:.3f} ms).",
                              rs.rank, pre ? "before" : "after", count, worst_ms);
      f.numbers = {{"steps", double(count)}, {"max_gap_ms", worst_ms}};
      b.Add(std::move(f));
    }
  }
}

void Aicpu(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  for (const RankTable& t : res.ranks) {
    if (std::none_of(t.events.begin(), t.events.end(), [](const Event& e) { return e.op_type == OpType::kAicpu; }))
      continue;  // (the union below is as long as the rank's timeline)
    // Union of non-AICPU work, to find AICPU time nothing else overlaps.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (const Event& e : t.events) {
      if (e.op_type == OpType::kAicpu) continue;
      if (!busy.empty() && e.start_ns <= busy.back().second) busy.back().second = std::max(busy.back().second, e.end_ns());
      else busy.push_back({e.start_ns, e.end_ns()});
    }
    double exposed_us = 0, wall_us = 0;
    for (const Step& s : res.steps)
      if (s.rank == t.rank) wall_us += double(s.anatomy.wall_ns) / 1000.0;
    std::vector<std::pair<double, uint32_t>> worst;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      const Event& e = t.events[i];
      if (e.op_type != OpType::kAicpu) continue;
      int64_t covered = 0;
      auto it = std::upper_bound(busy.begin(), busy.end(), std::make_pair(e.start_ns, INT64_MAX));
      if (it != busy.begin()) --it;
      for (; it != busy.end() && it->first < e.end_ns(); ++it)
        covered += std::max<int64_t>(0, std::min(it->second, e.end_ns()) - std::max(it->first, e.start_ns));
      double ex = double(e.dur_ns - covered) / 1000.0;
      exposed_us += ex;
      worst.push_back({ex, i});
    }
    if (worst.empty() || exposed_us < std::max(th.aicpu_min_exposed_us, th.aicpu_min_wall_share * wall_us)) continue;
    std::sort(worst.begin(), worst.end(), [](auto& a, auto& c) { return a.first > c.first; });
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "aicpu_on_critical_path";
    f.rank = t.rank;
    // The dtypes AI CPU ran them with: the usual reason an operator leaves AI Core.
    std::map<std::string, int> dtypes;
    for (auto& [ex, i] : worst) {
      const Event& e = t.events[i];
      std::string dt = e.input_dtypes ? res.Str(e.input_dtypes) : std::string();
      if (!dt.empty()) ++dtypes[dt];
      f.evidence.push_back(b.RangeEvidence(
          t.rank, {i, i + 1}, e.step_id,
          fmt::format("{}{}: {:.1f} us not overlapped", res.Str(e.name), dt.empty() ? "" : " (input dtypes " + dt + ")",
                      ex)));
    }
    std::string top_dtype;
    int top_n = 0;
    for (const auto& [dt, n] : dtypes)
      if (n > top_n) top_dtype = dt, top_n = n;
    f.summary = fmt::format(
        "Rank {} spends {:.1f} us ({:.1f}% of step wall) in {} AI CPU operators with no other device work running{}. "
        "An operator falls back to AI CPU when AI Core has no kernel for its dtype or shape (int64, double, bool and "
        "complex inputs are the usual cause): cast to float16 / float32 / int32 where the model allows, or use the "
        "AI Core variant of the operator.",
        t.rank, exposed_us, wall_us > 0 ? 100 * exposed_us / wall_us : 0, worst.size(),
        top_dtype.empty() ? "" : fmt::format("; most with input dtypes {}", top_dtype));
    f.numbers = {{"exposed_us", exposed_us}, {"aicpu_ops", double(worst.size())},
                 {"wall_share", wall_us > 0 ? exposed_us / wall_us : 0}};
    b.Add(std::move(f));
  }
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
          ev.note = fmt::format("rank {} step {} wall {:.3f} ms (step_trace_time.csv: Computing + Communication(Not "
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
          ordinal ? fmt::format("rank {} step #{} (matched by order) wall {:.3f} ms", s.rank, key,
                                Ms(s.anatomy.wall_ns))
                  : fmt::format("rank {} step {} wall {:.3f} ms", s.rank, s.step_id, Ms(s.anatomy.wall_ns))));
    }
    f.summary = fmt::format(
        "Step wall differs across ranks by more than {:.0f}% in {} of {} aligned steps (worst step {}: {:.1f}%, rank {} "
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
        f.evidence.push_back(b.RangeEvidence(s.rank, s.events, s.step_id,
                                             fmt::format("rank {} step {} compute {:.3f} ms", s.rank, s.step_id,
                                                         Ms(s.compute_ns))));
    f.summary = fmt::format(
        "Compute time differs across ranks by {:.1f}% (rank {} {:.3f} ms vs rank {} {:.3f} ms): expert / data "
        "imbalance makes the others wait.",
        100 * C.compute_imbalance_ratio, per.back().second, per.back().first, per.front().second, per.front().first);
    f.numbers = {{"imbalance_ratio", C.compute_imbalance_ratio}};
    b.Add(std::move(f));
  }
}

// Collectives whose duration differs across ranks by more than collective_skew_ratio, one
// finding per HCCL op kind. Collectives already explained by the slow_rank finding (its outlier
// votes) are left to that finding.
void CollectiveSkew(AnalysisResult& res, const Rules& rules, Builder& b, int slow_rank) {
  const Thresholds& th = rules.thresholds;
  const CrossRank& C = res.cross_rank;
  std::map<std::string, std::vector<const AlignedCollective*>> over;  // kind -> skewed collectives
  std::map<std::string, int> tested;
  for (const AlignedCollective& c : C.collectives) {
    if (c.dur_us.size() < 2) continue;
    ++tested[c.kind];
    if (c.skew_ratio <= th.collective_skew_ratio) continue;
    if (slow_rank >= 0 && c.outlier_rank == slow_rank) continue;
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
        f.evidence.push_back(b.RangeEvidence(where.rank, {where.event, where.event + 1}, c->step_id,
                                             fmt::format("{} #{} on rank {}: {:.1f} us (skew {:.1f}%)",
                                                         res.Str(c->name), c->occurrence, where.rank, dur,
                                                         100 * c->skew_ratio)));
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

void TopOperators(AnalysisResult& res, const Rules& rules, Builder& b) {
  double total = 0;
  for (const OperatorClassSummary& c : res.summaries.operator_classes) total += c.duration_sum_us;
  int n = 0;
  for (const OperatorClassSummary& c : res.summaries.operator_classes) {
    // Compute operators: communication has its own findings and summaries.
    if (c.op_type == OpType::kCommunication) continue;
    if (n++ >= rules.thresholds.top_operators) break;
    Finding f;
    f.severity = Severity::kInfo;
    f.type = "top_operator";
    double share = total > 0 ? c.duration_sum_us / total : 0;
    f.summary = fmt::format("{} ({}) takes {:.1f} us over {} calls on {} rank(s), {:.1f}% of device time; bound: {}{}.",
                            res.Str(c.name), OpTypeName(c.op_type), c.duration_sum_us, c.call_count, c.rank_count,
                            100 * share, c.bound.bound_family,
                            c.bound.bound_stage.empty() ? "" : " (" + c.bound.bound_stage + ")");
    f.numbers = {{"total_us", c.duration_sum_us}, {"calls", double(c.call_count)}, {"share", share},
                 {"rank_skew_ratio", c.rank_duration_skew_ratio}};
    for (const OperatorSummary& o : res.summaries.operators) {
      if (o.name != c.name || o.type != c.type || o.op_type != c.op_type) continue;
      const RankTable& t = *res.FindRank(o.rank);
      Evidence ev;
      ev.rank = o.rank;
      ev.file = t.files[o.file].path + (t.files[o.file].table.empty() ? "" : "#" + t.files[o.file].table);
      ev.row_first = o.first_row;
      ev.row_last = o.last_row;
      ev.note = fmt::format("rank {}: {} calls, {:.1f} us", o.rank, o.stats.count, o.stats.total_us);
      f.evidence.push_back(ev);
    }
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
    std::stable_sort(list.begin(), list.end(),
                     [](const OperatorSummary* a, const OperatorSummary* c) { return a->stats.p50_us < c->stats.p50_us; });
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
    return (a.op->stats.p50_us - a.others_p50) * a.op->stats.count > (c.op->stats.p50_us - c.others_p50) * c.op->stats.count;
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
    ev.note = fmt::format("{}{} on rank {}: median {:.1f} us over {} calls, {:.2f}x the other {} rank(s)' median {:.1f} us",
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

// A step far longer than the rank's usual one (a GC-like pause, a host stall, a slow iteration),
// named with what was different in it: the idle time and the operators that took longer than in
// the median step, each against its own median over the rank's complete steps.
void OutlierSteps(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  std::map<int, std::vector<const Step*>> by_rank;
  for (const Step& s : res.steps)
    if (s.complete && !s.partial_capture_boundary && s.anatomy.wall_ns > 0) by_rank[s.rank].push_back(&s);
  for (auto& [rank, steps] : by_rank) {
    if (static_cast<int>(steps.size()) < std::max(2, th.outlier_step_min_steps)) continue;
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v.empty() ? 0.0 : 0.5 * (v[(v.size() - 1) / 2] + v[v.size() / 2]);
    };
    std::vector<double> walls, idles;
    for (const Step* s : steps) {
      walls.push_back(Ms(s->anatomy.wall_ns));
      idles.push_back(Ms(s->anatomy.bubble_ns));
    }
    const double m = median(walls), idle_m = median(idles);
    std::vector<const Step*> out;
    for (const Step* s : steps) {
      double w = Ms(s->anatomy.wall_ns);
      if (w >= th.outlier_step_ratio * m && w - m >= th.outlier_step_min_ms) out.push_back(s);
    }
    if (out.empty()) continue;
    const RankTable& t = *res.FindRank(rank);
    // Per operator name: its time in the steps that run it, then its median over all steps (the
    // steps without it count as 0). Memory is O(events), not names x steps.
    std::unordered_map<uint32_t, std::vector<double>> per_name;
    std::unordered_map<uint32_t, double> in_step;
    for (const Step* s : steps) {
      in_step.clear();
      for (uint32_t i = s->events.first; i < s->events.last; ++i) in_step[t.events[i].name] += Ms(t.events[i].dur_ns);
      for (const auto& [name, ms] : in_step) per_name[name].push_back(ms);
    }
    std::unordered_map<uint32_t, double> name_median;
    for (auto& entry : per_name) {  // (not a structured binding: clang will not capture one in a lambda)
      std::vector<double>& v = entry.second;
      std::sort(v.begin(), v.end());
      const size_t n = steps.size(), zeros = n - v.size();
      auto at = [&](size_t k) { return k < zeros ? 0.0 : v[k - zeros]; };
      name_median[entry.first] = 0.5 * (at((n - 1) / 2) + at(n / 2));
    }
    std::stable_sort(out.begin(), out.end(), [](const Step* a, const Step* c) { return a->anatomy.wall_ns > c->anatomy.wall_ns; });
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "outlier_step";
    f.rank = rank;
    f.step_id = out.front()->step_id;
    std::string worst_what;
    for (const Step* s : out) {
      std::unordered_map<uint32_t, double> mine;
      for (uint32_t i = s->events.first; i < s->events.last; ++i) mine[t.events[i].name] += Ms(t.events[i].dur_ns);
      std::vector<std::pair<double, uint32_t>> extra;
      for (const auto& [name, ms] : mine)
        if (ms - name_median[name] > 0) extra.push_back({ms - name_median[name], name});
      std::sort(extra.begin(), extra.end(), [](auto& a, auto& c) { return a.first > c.first; });
      double idle_extra = Ms(s->anatomy.bubble_ns) - idle_m;
      std::string what;
      if (idle_extra > 0 && (extra.empty() || idle_extra >= extra.front().first))
        what = fmt::format("{:.2f} ms more idle device time than the median step (no device work: a host-side pause, "
                           "GC, a synchronize or data loading)",
                           idle_extra);
      for (size_t k = 0; k < extra.size() && k < 3; ++k)
        what += fmt::format("{}{} +{:.2f} ms", what.empty() ? "" : "; ", res.Str(extra[k].second), extra[k].first);
      if (what.empty()) what = "no single operator or idle gap stands out";
      if (worst_what.empty()) worst_what = what;
      f.evidence.push_back(b.RangeEvidence(rank, s->events, s->step_id,
                                           fmt::format("step {}: {:.2f} ms wall vs median {:.2f} ms ({:.2f}x); {}",
                                                       s->step_id, Ms(s->anatomy.wall_ns), m,
                                                       Ms(s->anatomy.wall_ns) / m, what)));
    }
    const Step* w = out.front();
    f.summary = fmt::format(
        "On rank {}, {} of {} complete steps take at least {:.1f}x the median step ({:.2f} ms); worst: step {} at "
        "{:.2f} ms ({:.2f}x). What was different in it: {}.",
        rank, out.size(), steps.size(), th.outlier_step_ratio, m, w->step_id, Ms(w->anatomy.wall_ns),
        Ms(w->anatomy.wall_ns) / m, worst_what);
    f.numbers = {{"outlier_steps", double(out.size())},
                 {"median_wall_ms", m},
                 {"max_wall_ms", Ms(w->anatomy.wall_ns)},
                 {"max_ratio", Ms(w->anatomy.wall_ns) / m}};
    b.Add(std::move(f));
  }
}

// One rank of an expert-parallel group persistently carries more routed tokens (expert_load.h).
void ExpertLoadImbalance(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  for (const ExpertGroupLoad& g : res.cross_rank.expert_load) {
    const ExpertRankLoad* hot = nullptr;
    for (const ExpertRankLoad& l : g.ranks)
      if (l.rank == g.hot_rank) hot = &l;
    if (!hot || g.mean_peak_to_mean < th.ep_peak_to_mean || hot->hot_steps < th.ep_hot_step_share * g.steps) continue;
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "expert_load_imbalance";
    f.rank = g.hot_rank;
    f.step_id = g.worst_step_id;
    const char* unit = g.by_tokens ? "tokens" : "ms";
    for (const ExpertRankLoad& l : g.ranks) {
      const RankTable& t = *res.FindRank(l.rank);
      Evidence ev;
      ev.rank = l.rank;
      ev.file = t.files[l.file].path + (t.files[l.file].table.empty() ? "" : "#" + t.files[l.file].table);
      ev.row_first = l.first_row;
      ev.row_last = l.last_row;
      ev.note = fmt::format("rank {}: {:.1f} {} per step over {} grouped-matmul calls; hot in {} of {} steps", l.rank,
                            g.by_tokens ? l.tokens_per_step : l.ms_per_step, unit, l.calls, l.hot_steps, g.steps);
      f.evidence.push_back(ev);
    }
    f.summary = fmt::format(
        "Expert-parallel group {}: rank {} carries the most {} in {} of {} steps; per step the busiest rank has "
        "{:.2f}x the group's mean on average (worst {:.2f}x in step {}, {:.2f}x the least loaded rank). The router "
        "sends this rank's experts more tokens: check the auxiliary balance loss / capacity factor, or redistribute "
        "hot experts across ranks.",
        g.group, g.hot_rank, g.by_tokens ? "routed tokens" : "grouped-matmul time", hot->hot_steps, g.steps,
        g.mean_peak_to_mean, g.max_peak_to_mean, g.worst_step_id, g.max_over_min);
    f.numbers = {{"mean_peak_to_mean", g.mean_peak_to_mean},
                 {"max_peak_to_mean", g.max_peak_to_mean},
                 {"max_over_min", g.max_over_min},
                 {"hot_steps", double(hot->hot_steps)}};
    b.Add(std::move(f));
  }
}

// The pipeline stage that bounds the step: the others wait for it (pipeline_stages.h).
void SlowPipelineStage(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  const std::vector<PipelineStage>& stages = res.cross_rank.pipeline_stages;
  if (stages.size() < 2) return;
  const PipelineStage* top = nullptr;
  int steps = 0;
  for (const PipelineStage& p : stages) {
    steps = std::max(steps, p.steps);
    if (!top || p.bounding_steps > top->bounding_steps) top = &p;
  }
  double others = 0;
  for (const PipelineStage& p : stages)
    if (&p != top) others += p.compute_ms;
  others /= double(stages.size() - 1);
  if (steps == 0 || top->bounding_steps < th.pp_stage_bound_share * steps || others <= 0 ||
      top->compute_ms < th.pp_stage_imbalance_ratio * others)
    return;
  Finding f;
  f.severity = Severity::kMedium;
  f.type = "slow_pipeline_stage";
  f.rank = top->worst_rank;
  f.ranks = top->ranks;
  f.step_id = top->worst_step_id;
  for (const PipelineStage& p : stages) {
    for (const Step& s : res.steps) {
      if (s.rank != p.worst_rank || s.step_id != p.worst_step_id) continue;
      f.evidence.push_back(b.RangeEvidence(
          s.rank, s.events, s.step_id,
          fmt::format("stage {} (ranks {}): {:.2f} ms compute, {:.2f} ms communication, {:.2f} ms idle per step; "
                      "bounds {} of {} steps",
                      p.stage, FormatRankList(p.ranks), p.compute_ms, p.comm_ms, p.bubble_ms, p.bounding_steps, steps)));
      break;
    }
  }
  f.summary = fmt::format(
      "Pipeline stage {} (ranks {}) bounds {} of {} steps: {:.2f} ms compute per step, {:.2f}x the other stages' "
      "{:.2f} ms, so they wait for it (their idle time grows in the warm-up and cool-down). Move layers off stage {} "
      "or rebalance its layer split.",
      top->stage, FormatRankList(top->ranks), top->bounding_steps, steps, top->compute_ms, top->compute_ms / others,
      others, top->stage);
  f.numbers = {{"stage", double(top->stage)},
               {"bounding_steps", double(top->bounding_steps)},
               {"compute_ms", top->compute_ms},
               {"imbalance_ratio", top->compute_ms / others}};
  b.Add(std::move(f));
}

void LayerOutliers(AnalysisResult& res, const Rules& rules, Builder& b) {
  std::vector<const Layer*> out;
  for (const Layer& l : res.layers)
    if (l.outlier) out.push_back(&l);
  if (out.empty()) return;
  std::stable_sort(out.begin(), out.end(), [](const Layer* a, const Layer* c) {
    return a->end_ns - a->start_ns > c->end_ns - c->start_ns;
  });
  std::map<int, std::vector<double>> walls;
  for (const Layer& l : res.layers)
    if (!l.outlier) walls[l.rank].push_back(Ms(l.end_ns - l.start_ns));
  double median = 0;
  if (auto it = walls.find(out.front()->rank); it != walls.end()) {
    std::sort(it->second.begin(), it->second.end());
    median = it->second[(it->second.size() - 1) / 2];
  }
  Finding f;
  f.severity = Severity::kLow;
  f.type = "layer_outlier";
  const Layer& w = *out.front();
  const Step& ws = res.steps[w.step];
  f.rank = w.rank;
  f.step_id = ws.step_id;
  std::vector<int> ranks;
  for (const Layer* l : out) {
    ranks.push_back(l->rank);
    const Step& st = res.steps[l->step];
    f.evidence.push_back(b.RangeEvidence(l->rank, l->events, st.step_id,
                                         fmt::format("rank {} step {} layer {}: {:.3f} ms; longest: {}", l->rank,
                                                     st.step_id, l->index_in_step, Ms(l->end_ns - l->start_ns),
                                                     l->absorbed)));
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  f.ranks = ranks;
  f.summary = fmt::format(
      "{} layer(s) on rank(s) {} are more than {:.0f}x the median layer wall and were kept out of layer statistics: "
      "they absorbed work that is not a layer, such as a collective, the output head or the loss (worst: rank {} "
      "step {} layer {}, {:.3f} ms vs median {:.3f} ms; longest operators {}).",
      out.size(), FormatRankList(ranks), rules.thresholds.layer_outlier_ratio, w.rank, ws.step_id, w.index_in_step,
      Ms(w.end_ns - w.start_ns), median, w.absorbed);
  f.numbers = {{"outlier_layers", double(out.size())},
               {"max_layer_ms", Ms(w.end_ns - w.start_ns)},
               {"median_layer_ms", median}};
  b.Add(std::move(f));
}

// The device waited on the host: idle gaps that end with a task launched only after the device
// had gone idle (host_launch.h), a large share of the step in most complete steps.
void DeviceWaitsOnLaunch(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  std::map<int, std::vector<const StepLaunch*>> by_rank;
  for (const StepLaunch& L : res.cross_rank.launches)
    if (L.complete && L.step_wall_ns > 0 && L.launches > 0) by_rank[L.rank].push_back(&L);
  for (auto& [rank, steps] : by_rank) {
    std::vector<const StepLaunch*> hit;
    for (const StepLaunch* L : steps)
      if (double(L->launch_bound_idle_ns) >= th.launch_bound_idle_share * double(L->step_wall_ns)) hit.push_back(L);
    if (hit.empty() || double(hit.size()) < th.launch_bound_step_share * double(steps.size())) continue;
    std::stable_sort(hit.begin(), hit.end(), [](const StepLaunch* a, const StepLaunch* c) {
      return double(a->launch_bound_idle_ns) / double(a->step_wall_ns) > double(c->launch_bound_idle_ns) / double(c->step_wall_ns);
    });
    const StepLaunch& w = *hit.front();
    const double share = double(w.launch_bound_idle_ns) / double(w.step_wall_ns);
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "device_waits_on_launch";
    f.rank = rank;
    f.step_id = w.step_id;
    const RankTable& t = *res.FindRank(rank);
    for (const StepLaunch* L : hit) {
      if (f.evidence.size() >= size_t(th.max_evidence_items)) break;
      f.evidence.push_back(b.WindowEvidence(
          rank, L->step_id, L->longest_wait_start_ns - t.base_ns, L->longest_wait_end_ns - t.base_ns,
          fmt::format("rank {} step {}: {:.3f} ms of launch-bound idle in {} gap(s) ({:.0f}% of the step); longest gap "
                      "here; launch delay p50 {:.3f} ms{}",
                      rank, L->step_id, Ms(L->launch_bound_idle_ns), L->launch_bound_gaps,
                      100.0 * double(L->launch_bound_idle_ns) / double(L->step_wall_ns), Ms(L->delay_p50_ns),
                      L->max_queue_depth >= 0 ? fmt::format(", task queue at most {} deep", L->max_queue_depth) : "")));
    }
    f.summary = fmt::format(
        "Rank {} waits on the host in {} of {} complete steps: device idle time that ends with a task launched only "
        "after the device had gone idle (trace_view.json HostToDevice flows). Worst, step {}: {:.3f} ms ({:.0f}% of the "
        "step) in {} gap(s){}. The host does not launch fast enough: fuse small operators, move host-side work "
        "(Python, .item(), data loading) off the launch path, or enable the task queue / graph mode.",
        rank, hit.size(), steps.size(), w.step_id, Ms(w.launch_bound_idle_ns), 100.0 * share, w.launch_bound_gaps,
        w.max_queue_depth >= 0 ? fmt::format("; the task queue was at most {} deep", w.max_queue_depth) : "");
    f.numbers = {{"max_idle_share", share},
                 {"launch_bound_idle_ms", Ms(w.launch_bound_idle_ns)},
                 {"steps_hit", double(hit.size())},
                 {"delay_p50_ms", Ms(w.delay_p50_ns)}};
    b.Add(std::move(f));
  }
}

// One finding per pattern: a per-rank pattern seen on several ranks becomes one finding that
// lists the ranks, leads with the worst rank's numbers and interleaves the ranks' evidence (the
// worst first), so an 8-rank root does not repeat the same finding 8 times.
void RollUp(std::vector<Finding>& in, const AnalysisResult& res, const Rules& rules) {
  static const std::map<std::string, std::string> kWorstBy = {
      {"communication_dominated_step", "max_comm_share"}, {"recurring_bubble_pattern", "bubble_recurrence_ratio"},
      {"prelaunch_gap_heavy", "max_gap_ms"},             {"tail_gap_heavy", "max_gap_ms"},
      {"aicpu_on_critical_path", "exposed_us"},           {"exposed_communication", "max_exposed_share"},
      {"outlier_step", "max_ratio"},                     {"device_waits_on_launch", "max_idle_share"}};
  auto number = [](const Finding& f, const std::string& name) {
    for (const auto& [k, v] : f.numbers)
      if (k == name) return v;
    return 0.0;
  };
  std::vector<Finding> out;
  std::map<std::string, std::vector<Finding>> groups;
  for (Finding& f : in) {
    if (kWorstBy.count(f.type) && f.rank >= 0) groups[f.type].push_back(std::move(f));
    else out.push_back(std::move(f));
  }
  for (auto& [type, list] : groups) {
    const std::string& key = kWorstBy.at(type);
    std::stable_sort(list.begin(), list.end(),
                     [&](const Finding& a, const Finding& b) { return number(a, key) > number(b, key); });
    Finding merged = list.front();
    for (const Finding& f : list) merged.ranks.push_back(f.rank);
    std::sort(merged.ranks.begin(), merged.ranks.end());
    if (list.size() > 1) {
      merged.summary = fmt::format("Seen on {} of {} ranks ({}). Worst, rank {}: {}", list.size(), res.ranks.size(),
                                   FormatRankList(merged.ranks), merged.rank, list.front().summary);
      merged.evidence.clear();
      for (size_t k = 0; merged.evidence.size() < size_t(rules.thresholds.max_evidence_items); ++k) {
        bool any = false;
        for (const Finding& f : list) {
          if (k >= f.evidence.size()) continue;
          any = true;
          if (merged.evidence.size() < size_t(rules.thresholds.max_evidence_items)) merged.evidence.push_back(f.evidence[k]);
        }
        if (!any) break;
      }
    }
    merged.numbers.push_back({"ranks", double(list.size())});
    out.push_back(std::move(merged));
  }
  in = std::move(out);
}

}  // namespace

void Diagnose(AnalysisResult& res, const Rules& rules) {
  Builder b(res, rules);
  SlowRank(res, rules, b);
  int slow_rank = -1;
  for (const Finding& f : b.out())
    if (f.type == "slow_rank") slow_rank = f.rank;
  CrossRankFindings(res, rules, b);
  CollectiveSkew(res, rules, b, slow_rank);
  PerRankStepFindings(res, rules, b);
  Aicpu(res, rules, b);
  SlowOperators(res, rules, b);
  OutlierSteps(res, rules, b);
  DeviceWaitsOnLaunch(res, rules, b);
  SlowPipelineStage(res, rules, b);
  ExpertLoadImbalance(res, rules, b);
  LayerOutliers(res, rules, b);
  TopOperators(res, rules, b);
  for (Finding& c : CommunicationFindings(res, rules, slow_rank)) b.Add(std::move(c));
  std::vector<Finding>& f = b.out();
  RollUp(f, res, rules);
  std::stable_sort(f.begin(), f.end(), [](const Finding& a, const Finding& c) { return a.severity > c.severity; });
  for (size_t i = 0; i < f.size(); ++i) f[i].id = fmt::format("F{:03d}", i + 1);
  res.findings = std::move(f);
}

}  // namespace optrace::analyze
