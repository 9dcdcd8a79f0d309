// Device memory per rank from torch_npu's text export: memory_record.csv (per component: PTA,
// GE, APP, ... with Total Allocated / Reserved over time) and operator_memory.csv (each
// allocation with its size, allocation and release time).
//
//   for (const RankMemory& m : result.summaries.memory) ... m.components[0].peak_reserved_mb
//
// Read at the summarize stage from the rank's ASCEND_PROFILER_OUTPUT, or from the db layout's
// MEMORY_RECORD / OP_MEMORY tables (bytes and ns, the row is the rowid); a rank without either has
// no entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/model/model.h"

namespace optrace::analyze {

// Per rank with memory records: peaks per component, the allocations live at the allocator's
// peak and its timeline (RankMemory, model.h). Part of the summarize stage (Summaries::memory):
// it needs the steps, and reads each file once.
std::vector<RankMemory> SummarizeMemory(const AnalysisResult& r);

// The timeline cut to at most `max_points`: the samples (in time order) fall into equal time
// buckets and each bucket keeps its largest reserved sample, so the peak is always drawn.
std::vector<MemoryPoint> DecimateMemory(std::vector<MemoryPoint> all, size_t max_points);

}  // namespace optrace::analyze
