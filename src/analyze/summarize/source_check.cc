// Kernel rows against the rank's step_trace_time.csv and communication.json.
#include "analyze/summarize/source_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analyze/read/normalize.h"

namespace optrace::analyze {

namespace {

// kernel / summary, NaN when the summary has nothing to compare with.
double Ratio(double kernel, double summary) {
  if (IsMissing(kernel) || IsMissing(summary) || summary <= 1e-3) return kMissing;
  return kernel / summary;
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
