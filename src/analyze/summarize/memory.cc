#include "analyze/summarize/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analyze/read/memory_export.h"
#include "analyze/summarize/step_lookup.h"

namespace optrace::analyze {
namespace fs = std::filesystem;
namespace {

// The allocator's peak (a component that reports allocated memory: PTA, PTA+GE), not the
// process-level APP line, is when the operators' allocations pile up.
const ComponentMemory& AllocatorPeak(const RankMemory& m) {
  for (const ComponentMemory& c : m.components)
    if (!IsMissing(c.peak_allocated_mb)) return c;
  return m.components.front();
}

}  // namespace

std::vector<RankMemory> SummarizeMemory(const AnalysisResult& r) {
  std::vector<RankMemory> out;
  const StepLookup steps(r.steps);
  for (const RankTable& t : r.ranks) {
    std::optional<MemoryRecords> records = ReadMemoryRecords(t);
    if (!records || records->components.empty()) continue;
    RankMemory m;
    m.rank = t.rank;
    m.memory_record = records->source;
    for (auto& [name, c] : records->components) {
      if (IsMissing(c.peaks.peak_reserved_mb)) continue;
      c.peaks.peak_step_id = steps.StepAt(t.rank, c.peaks.peak_rel_ns);
      m.components.push_back(c.peaks);
    }
    if (m.components.empty()) continue;
    std::stable_sort(m.components.begin(), m.components.end(),
                     [](const ComponentMemory& a, const ComponentMemory& b) { return a.peak_reserved_mb > b.peak_reserved_mb; });
    const ComponentMemory& at = AllocatorPeak(m);
    m.timeline_component = at.component;
    m.timeline = DecimateMemory(std::move(records->components[at.component].samples), kMemoryTimelinePoints);
    m.live_at_peak = ReadLiveAllocations(t, *records, at.peak_rel_ns, &m.operator_memory);
    if (!records->db.empty() || !m.operator_memory.empty()) m.live_component = at.component;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<MemoryPoint> DecimateMemory(std::vector<MemoryPoint> all, size_t max_points) {
  std::stable_sort(all.begin(), all.end(), [](const MemoryPoint& a, const MemoryPoint& b) { return a.rel_ns < b.rel_ns; });
  if (all.size() <= max_points) return all;
  std::vector<MemoryPoint> points;
  if (max_points == 0) return points;
  const int64_t t0 = all.front().rel_ns, span = std::max<int64_t>(1, all.back().rel_ns - t0);
  size_t bucket = SIZE_MAX;
  for (const MemoryPoint& p : all) {
    size_t b = std::min(max_points - 1, static_cast<size_t>(double(p.rel_ns - t0) / double(span) * double(max_points)));
    if (b != bucket || points.empty()) {
      points.push_back(p);
      bucket = b;
    } else if (p.reserved_mb > points.back().reserved_mb) {
      points.back() = p;
    }
  }
  return points;
}

}  // namespace optrace::analyze
