// Kernel rows against the rank's step_trace_time.csv and communication.json.
#include "analyze/summarize/source_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analyze/read/normalize.h"

namespace optrace::analyze {

namespace {

// kernel / summary, NaN when the summary has nothing to compare with.
double Ratio(double kernel, double summary) {
  if (IsMissing(kernel) || IsMissing(summary) || summary <= 1e-3) return kMissing;
  return kernel / summary;
}

double Ms(int64_t ns) { return double(ns) / 1e6; }

// Every number the export states about a step is checked against ours (issue 52): the device wall
// against Stage (2%), communication, exposed communication and idle time against Communication,
// Communication(Not Overlapped) and Free (3%). A difference is named, never chosen silently: the
// export's table is the profiler's own reference, ours comes from the operator rows.
void CheckStepTrace(AnalysisResult& res, const RankTable& t, const std::map<int64_t, const StepTraceRow*>& rows) {
  struct Quantity {
    const char* name;
    const char* column;
    double ours_ms, theirs_us, tolerance;
  };
  int steps = 0;
  std::string first;
  for (const Step& st : res.steps) {
    if (st.rank != t.rank || st.step_source == "whole_capture") continue;
    auto row = rows.find(st.step_id);
    if (row == rows.end()) continue;
    const StepTraceRow& r = *row->second;
    const Quantity qs[] = {
        {"device wall", "Stage", Ms(st.anatomy.wall_ns), r.stage_us, 0.02},
        {"communication", "Communication", Ms(st.comm_ns), r.communication_us, 0.03},
        {"exposed communication", "Communication(Not Overlapped)", Ms(st.exposed_comm_ns()), r.comm_not_overlapped_us,
         0.03},
        {"idle", "Free", Ms(st.anatomy.bubble_ns), r.free_us, 0.03},
    };
    std::string parts;
    for (const Quantity& q : qs) {
      if (IsMissing(q.theirs_us)) continue;
      double theirs = q.theirs_us / 1e3, diff = std::abs(q.ours_ms - theirs);
      if (diff <= 0.05 || diff <= q.tolerance * std::max(std::abs(theirs), std::abs(q.ours_ms))) continue;
      parts += fmt::format("{}{} {:.3f} ms, the export's {} {:.3f} ms", parts.empty() ? "" : "; ", q.name, q.ours_ms,
                           q.column, theirs);
    }
    if (parts.empty()) continue;
    if (++steps == 1) first = fmt::format("step {}: {}", st.step_id, parts);
  }
  if (steps == 0) return;
  res.issues.push_back(
      {"step_trace_mismatch", "mismatch",
       fmt::format("rank {}: the operator rows and the export's own step trace disagree in {} step(s) ({}); the "
                   "step trace is the profiler's reference, the operator-row numbers are what optrace can attribute",
                   t.rank, steps, first),
       static_cast<uint64_t>(steps), t.dir});
}

}  // namespace

void CheckSources(AnalysisResult& res, const Rules& rules) {
  Summaries& S = res.summaries;
  S.coverage.clear();
  const double min_cov = rules.thresholds.kernel_coverage_min;
  for (RankSummary& rs : S.ranks) {
    const RankTable* t = res.FindRank(rs.rank);
    if (!t) continue;
    rs.event_source = t->event_source;
    if (!t->has_timeline()) continue;
    std::map<int64_t, const StepTraceRow*> rows;
    for (const StepTraceRow& r : t->step_trace)
      if (r.step_id >= 0) rows[r.step_id] = &r;
    std::map<int64_t, int> json_ops;
    for (const CommOp& op : t->comm_ops) ++json_ops[StepOfCommKey(op.step)];
    const bool have_json = !t->comm_ops.empty();
    CheckStepTrace(res, *t, rows);
    const StepCoverage* worst = nullptr;
    size_t first = S.coverage.size();
    for (const Step& st : res.steps) {
      if (st.rank != rs.rank || st.step_source == "whole_capture") continue;
      auto row = rows.find(st.step_id);
      if (row == rows.end() && !have_json) continue;
      StepCoverage c;
      c.rank = st.rank;
      c.step_id = st.step_id;
      c.kernel_compute_ms = double(st.compute_ns) / 1e6;
      c.kernel_comm_ms = double(st.comm_ns) / 1e6;
      c.kernel_wall_ms = double(st.anatomy.wall_ns) / 1e6;
      for (uint32_t i = st.events.first; i < st.events.last; ++i)
        c.kernel_hccl_ops += t->events[i].op_type == OpType::kCommunication;
      if (row != rows.end()) {
        const StepTraceRow& r = *row->second;
        c.trace_compute_ms = r.computing_us / 1e3;
        c.trace_comm_ms = r.communication_us / 1e3;
        if (!IsMissing(r.computing_us) && !IsMissing(r.comm_not_overlapped_us) && !IsMissing(r.free_us))
          c.trace_step_ms = (r.computing_us + r.comm_not_overlapped_us + r.free_us) / 1e3;
      }
      if (have_json) c.json_hccl_ops = json_ops.count(st.step_id) ? json_ops[st.step_id] : 0;
      double cov = kMissing;
      for (double x : {Ratio(c.kernel_compute_ms, c.trace_compute_ms), Ratio(c.kernel_comm_ms, c.trace_comm_ms),
                       Ratio(c.kernel_wall_ms, c.trace_step_ms),
                       c.json_hccl_ops > 0 ? double(c.kernel_hccl_ops) / c.json_hccl_ops : kMissing})
        if (!IsMissing(x)) cov = IsMissing(cov) ? x : std::min(cov, x);
      c.coverage = cov;
      S.coverage.push_back(c);
    }
    for (size_t i = first; i < S.coverage.size(); ++i) {
      const StepCoverage& c = S.coverage[i];
      if (IsMissing(c.coverage)) continue;
      if (!worst || c.coverage < worst->coverage) worst = &c;
    }
    if (!worst) continue;
    rs.kernel_coverage = worst->coverage;
    rs.low_confidence = worst->coverage < min_cov;
    if (!rs.low_confidence) continue;
    auto ms = [](double v) { return IsMissing(v) ? std::string("-") : fmt::format("{:.3f}", v); };
    std::string ops = worst->json_hccl_ops >= 0
                          ? fmt::format(", {} of {} HCCL ops of communication.json", worst->kernel_hccl_ops,
                                        worst->json_hccl_ops)
                          : "";
    res.issues.push_back(
        {"kernel_rows_incomplete", "data_loss",
         fmt::format("rank {}: its kernel rows hold {:.0f}% of what its own summaries report for step {} (compute {} of "
                     "{} ms, communication {} of {} ms, step wall {} of {} ms{}); below kernel_coverage_min {:.0f}%, "
                     "its KPIs are low confidence",
                     rs.rank, 100 * worst->coverage, worst->step_id, ms(worst->kernel_compute_ms),
                     ms(worst->trace_compute_ms), ms(worst->kernel_comm_ms), ms(worst->trace_comm_ms),
                     ms(worst->kernel_wall_ms), ms(worst->trace_step_ms), ops, 100 * min_cov),
         1, t->dir});
  }
}

}  // namespace optrace::analyze
