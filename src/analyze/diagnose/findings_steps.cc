// Findings per rank and step: communication-dominated and exposed-communication steps, recurring
// bubbles, heavy gaps, AI CPU on the critical path, outlier steps and layers, the device waiting on
// host launches.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analyze/diagnose/finding_builder.h"

namespace optrace::analyze::findings {

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
      comm.evidence.push_back(
          b.RangeEvidence(s->rank, s->events, s->step_id,
                          fmt::format("step {}: communication {:.2f} of {:.2f} ms wall ({:.0f}%)", s->step_id,
                                      Ms(s->comm_ns), Ms(s->anatomy.wall_ns), 100 * share)));
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
        Evidence ev = b.RangeEvidence(
            s->rank, {next > s->events.first ? next - 1 : next, next + 1}, s->step_id,
            fmt::format("step {}: idle gap of {:.3f} ms inside the step", s->step_id, Ms(s->anatomy.max_gap_ns)));
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
        f.evidence.push_back(
            b.WindowEvidence(s->rank, s->step_id, ws, ws + gap,
                             fmt::format("step {}: {:.3f} ms device idle {} the step (wall {:.3f} ms)", s->step_id,
                                         Ms(gap), pre ? "before" : "after", Ms(s->anatomy.wall_ns))));
      }
      if (f.evidence.empty()) continue;
      int count = static_cast<int>(f.evidence.size());
      f.severity = Severity::kLow;
      f.type = pre ? "prelaunch_gap_heavy" : "tail_gap_heavy";
      f.rank = rs.rank;
      f.summary =
          fmt::format("Rank {} idles {} {} steps for at least max(1 ms, 10% of the step wall) (worst {:.3f} ms).",
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
      if (!busy.empty() && e.start_ns <= busy.back().second)
        busy.back().second = std::max(busy.back().second, e.end_ns());
      else
        busy.push_back({e.start_ns, e.end_ns()});
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
      f.evidence.push_back(b.RangeEvidence(t.rank, {i, i + 1}, e.step_id,
                                           fmt::format("{}{}: {:.1f} us not overlapped", res.Str(e.name),
                                                       dt.empty() ? "" : " (input dtypes " + dt + ")", ex)));
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
    f.numbers = {{"exposed_us", exposed_us},
                 {"aicpu_ops", double(worst.size())},
                 {"wall_share", wall_us > 0 ? exposed_us / wall_us : 0}};
    b.Add(std::move(f));
  }
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
    std::stable_sort(out.begin(), out.end(),
                     [](const Step* a, const Step* c) { return a->anatomy.wall_ns > c->anatomy.wall_ns; });
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
        what = fmt::format(
            "{:.2f} ms more idle device time than the median step (no device work: a host-side pause, "
            "GC, a synchronize or data loading)",
            idle_extra);
      for (size_t k = 0; k < extra.size() && k < 3; ++k)
        what += fmt::format("{}{} +{:.2f} ms", what.empty() ? "" : "; ", res.Str(extra[k].second), extra[k].first);
      if (what.empty()) what = "no single operator or idle gap stands out";
      if (worst_what.empty()) worst_what = what;
      f.evidence.push_back(
          b.RangeEvidence(rank, s->events, s->step_id,
                          fmt::format("step {}: {:.2f} ms wall vs median {:.2f} ms ({:.2f}x); {}", s->step_id,
                                      Ms(s->anatomy.wall_ns), m, Ms(s->anatomy.wall_ns) / m, what)));
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

void LayerOutliers(AnalysisResult& res, const Rules& rules, Builder& b) {
  std::vector<const Layer*> out;
  for (const Layer& l : res.layers)
    if (l.outlier) out.push_back(&l);
  if (out.empty()) return;
  std::stable_sort(out.begin(), out.end(),
                   [](const Layer* a, const Layer* c) { return a->end_ns - a->start_ns > c->end_ns - c->start_ns; });
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
    f.evidence.push_back(
        b.RangeEvidence(l->rank, l->events, st.step_id,
                        fmt::format("rank {} step {} layer {}: {:.3f} ms; longest: {}", l->rank, st.step_id,
                                    l->index_in_step, Ms(l->end_ns - l->start_ns), l->absorbed)));
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
  f.numbers = {
      {"outlier_layers", double(out.size())}, {"max_layer_ms", Ms(w.end_ns - w.start_ns)}, {"median_layer_ms", median}};
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
      return double(a->launch_bound_idle_ns) / double(a->step_wall_ns) >
             double(c->launch_bound_idle_ns) / double(c->step_wall_ns);
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
        "after the device had gone idle (trace_view.json HostToDevice flows). Worst, step {}: {:.3f} ms ({:.0f}% of "
        "the "
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

}  // namespace optrace::analyze::findings
