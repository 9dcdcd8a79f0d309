// Device memory per rank from torch_npu's text export: memory_record.csv (per component: PTA,
// GE, APP, ... with Total Allocated / Reserved over time) and operator_memory.csv (each
// allocation with its size, allocation and release time).
//
//   for (const RankMemory& m : SummarizeMemory(result)) ... m.components[0].peak_reserved_mb
//
// Read when the report is written, from the rank's ASCEND_PROFILER_OUTPUT, or from the db layout's
// MEMORY_RECORD / OP_MEMORY tables (bytes and ns, the row is the rowid); a rank without either has
// no entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <optional>

#include "analyze/hardware.h"
#include "analyze/model.h"
#include "analyze/rules.h"

namespace optrace::analyze {

struct LiveAllocation {
  std::string name;       // "aten::empty_strided"
  double size_mb = 0;
  uint64_t row = 0;       // line in operator_memory.csv
};

struct ComponentMemory {
  std::string component;  // "PTA", "APP", ...
  double peak_reserved_mb = kMissing, peak_allocated_mb = kMissing;
  int64_t peak_rel_ns = 0;  // when the reserved peak was reached, rank-relative
  int64_t peak_step_id = -1;
  uint64_t peak_row = 0;    // line in memory_record.csv
  uint64_t samples = 0;
};

struct RankMemory {
  int rank = -1;
  std::string memory_record, operator_memory;  // paths ("" when absent)
  std::vector<ComponentMemory> components;      // by peak reserved, largest first
  // Allocations live at the reserved peak of the largest component that reports allocated
  // memory (live_component), largest first (at most 5).
  std::vector<LiveAllocation> live_at_peak;
  std::string live_component;
};

std::vector<RankMemory> SummarizeMemory(const AnalysisResult& r);

// One rank's memory over time: the allocator component of its peak (RankMemory::live_component's
// choice: the first that reports allocated memory, else the largest), reserved and allocated MB.
// At most `max_points` points: the samples are cut into equal time buckets and each bucket keeps
// its largest reserved sample, so the peak is always drawn.
struct MemoryPoint {
  int64_t rel_ns = 0;  // rank-relative
  double reserved_mb = kMissing, allocated_mb = kMissing;
};
struct MemorySeries {
  int rank = -1;
  std::string component;
  std::vector<MemoryPoint> points;  // in time order
};
std::vector<MemorySeries> MemoryTimeline(const AnalysisResult& r, const std::vector<RankMemory>& memory,
                                         size_t max_points);

// memory_near_device_limit: a rank whose peak reserved memory (any component) reaches
// `memory_near_limit_share` of the device's HBM. Added at the report stage, where the device is
// known (--hardware-model / --hardware-profile, or the capture's own device name); without a
// device or its HBM size, nothing is added (the report says the limit is unknown).
void AddMemoryLimitFinding(AnalysisResult& r, const std::vector<RankMemory>& memory,
                           const std::optional<HardwarePeaks>& hardware, const Thresholds& th);

}  // namespace optrace::analyze
