// Host-side costs the export's api_statistic.csv states (issue 52): operators compiled on the host
// at run time (aclopCompileAndExecute) and device synchronizations that stop the host
// (aten::item / _local_scalar_dense reach aclrtSynchronizeStream*).
#include <fmt/format.h>

#include <map>

#include "analyze/diagnose/finding_builder.h"

namespace optrace::analyze::findings {
namespace {

bool StartsWith(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

// The rank's complete steps and their profiler step time (the device wall where the export
// states no host part), ms.
std::pair<int, double> StepsOf(const AnalysisResult& res, int rank) {
  int n = 0;
  double ms = 0;
  for (const Step& s : res.steps) {
    if (s.rank != rank || !s.complete) continue;
    ++n;
    ms += Ms(s.profiler_step_ns >= 0 ? s.profiler_step_ns : s.anatomy.wall_ns);
  }
  return {n, ms};
}

Evidence RowEvidence(const RankTable& t, const ApiStat& a, std::string note) {
  Evidence ev;
  ev.file = t.api_statistic;
  ev.row_first = ev.row_last = a.row;
  ev.rank = t.rank;
  ev.note = std::move(note);
  return ev;
}

}  // namespace

void HostApiFindings(AnalysisResult& res, const Rules& rules, Builder& b) {
  const Thresholds& th = rules.thresholds;
  for (const RankTable& t : res.ranks) {
    if (t.api_stats.empty()) continue;
    auto [steps, step_ms] = StepsOf(res, t.rank);
    if (steps == 0 || step_ms <= 0) continue;
    const ApiStat* compile = nullptr;
    std::vector<const ApiStat*> syncs;
    int64_t sync_calls = 0;
    double sync_ms = 0;
    for (const ApiStat& a : t.api_stats) {
      if (a.name == "aclopCompileAndExecute" && !IsMissing(a.time_us)) compile = &a;
      if ((StartsWith(a.name, "aclrtSynchronizeStream") || a.name == "aclrtSynchronizeDevice") && a.count > 0) {
        syncs.push_back(&a);
        sync_calls += a.count;
        if (!IsMissing(a.time_us)) sync_ms += a.time_us / 1e3;
      }
    }
    if (compile) {
      double ms = compile->time_us / 1e3, share = ms / step_ms;
      if (ms >= 1.0 && share >= th.host_compile_min_share) {
        Finding f;
        f.severity = share >= th.host_compile_medium_share ? Severity::kMedium : Severity::kLow;
        f.type = "host_op_compile";
        f.rank = t.rank;
        f.summary = fmt::format(
            "Rank {}: {} aclopCompileAndExecute calls take {:.2f} ms of host time in a capture of {} step(s) ({:.1f}% "
            "of {:.1f} ms of profiler step): operators that take the single-operator compile path (no aclnn binary "
            "kernel, or jit_compile=True) are compiled and dispatched on the host while the device waits; "
            "torch_npu.npu.set_compile_mode(jit_compile=False) keeps them on the prebuilt binary kernels.",
            t.rank, compile->count, ms, steps, 100 * share, step_ms);
        f.numbers = {{"calls", double(compile->count)}, {"host_ms", ms}, {"share_of_step", share},
                     {"steps", double(steps)}};
        f.evidence.push_back(RowEvidence(t, *compile, fmt::format("aclopCompileAndExecute: {} calls, {:.2f} ms",
                                                                  compile->count, ms)));
        b.Add(std::move(f));
      }
    }
    if (double(sync_calls) >= th.host_sync_min_calls_per_step * steps) {
      Finding f;
      f.severity = Severity::kLow;
      f.type = "host_sync";
      f.rank = t.rank;
      std::string parts;
      for (const ApiStat* a : syncs) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", a->name, a->count);
      f.summary = fmt::format(
          "Rank {}: {} device synchronizations in a capture of {} step(s) ({}), {:.2f} ms of host waiting: each "
          "(tensor.item(), .cpu(), printing a tensor: aten::item / aten::_local_scalar_dense) stops the host until "
          "the device drains, so the launches after it start late; keep such scalars on the device or read them "
          "every N steps.",
          t.rank, sync_calls, steps, parts, sync_ms);
      f.numbers = {{"calls", double(sync_calls)}, {"host_wait_ms", sync_ms}, {"steps", double(steps)}};
      for (const ApiStat* a : syncs)
        f.evidence.push_back(RowEvidence(t, *a, fmt::format("{}: {} calls, {:.2f} ms", a->name, a->count,
                                                            IsMissing(a->time_us) ? 0.0 : a->time_us / 1e3)));
      b.Add(std::move(f));
    }
  }
}

}  // namespace optrace::analyze::findings
