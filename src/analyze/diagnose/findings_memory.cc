// memory_near_device_limit: a rank whose peak reserved memory nears the device's HBM. Made at the
// report stage, where the device is known (diagnose.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analyze/diagnose/diagnose.h"
#include "analyze/diagnose/finding_builder.h"

namespace optrace::analyze {

void AddMemoryLimitFinding(AnalysisResult& r, const std::vector<RankMemory>& memory,
                           const std::optional<HardwarePeaks>& hardware, const Thresholds& th) {
  if (!hardware || !std::isfinite(hardware->hbm_gb) || hardware->hbm_gb <= 0) return;
  const double limit_mb = hardware->hbm_gb * 1024.0;
  Finding f;
  f.severity = Severity::kHigh;
  f.type = "memory_near_device_limit";
  double worst = 0;
  for (const RankMemory& m : memory) {
    const ComponentMemory* peak = nullptr;
    for (const ComponentMemory& c : m.components)
      if (!peak || c.peak_reserved_mb > peak->peak_reserved_mb) peak = &c;
    if (!peak || !(peak->peak_reserved_mb >= th.memory_near_limit_share * limit_mb)) continue;
    f.ranks.push_back(m.rank);
    if (peak->peak_reserved_mb > worst) {
      worst = peak->peak_reserved_mb;
      f.rank = m.rank;
      f.step_id = peak->peak_step_id;
    }
    if (f.evidence.size() < size_t(th.max_evidence_items)) {
      Evidence ev;
      ev.file = m.memory_record;
      ev.row_first = ev.row_last = static_cast<uint32_t>(peak->peak_row);
      ev.rank = m.rank;
      ev.step_id = peak->peak_step_id;
      ev.note = fmt::format("rank {}: {} reserved {:.1f} MB at its peak ({:.1f}% of {:g} GB)", m.rank, peak->component,
                            peak->peak_reserved_mb, 100.0 * peak->peak_reserved_mb / limit_mb, hardware->hbm_gb);
      f.evidence.push_back(ev);
    }
  }
  if (f.ranks.empty()) return;
  f.summary = fmt::format(
      "{} rank(s) ({}) reserve at least {:.0f}% of the device's {:g} GB ({}): worst rank {}, {:.1f} MB{}. The next "
      "larger batch or sequence will not fit: recompute activations, shard optimizer states, or lower the micro-batch; "
      "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True reduces fragmentation of the reserved pool.",
      f.ranks.size(), FormatRankList(f.ranks), 100.0 * th.memory_near_limit_share, hardware->hbm_gb, hardware->name,
      f.rank, worst, f.step_id >= 0 ? fmt::format(" in step {}", f.step_id) : "");
  f.numbers = {{"peak_reserved_mb", worst},
               {"device_mb", limit_mb},
               {"share", worst / limit_mb},
               {"ranks", double(f.ranks.size())}};
  // In its place by severity, as diagnose orders them; ids follow the order.
  r.findings.push_back(std::move(f));
  findings::AddConfidenceAndKnowledge(r, r.findings);
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  for (size_t i = 0; i < r.findings.size(); ++i) r.findings[i].id = fmt::format("F{:03d}", i + 1);
}

}  // namespace optrace::analyze
