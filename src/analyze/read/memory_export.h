// torch_npu's device-memory records of one rank: memory_record.csv / operator_memory.csv of the
// text export, or the db layout's MEMORY_RECORD / OP_MEMORY tables (bytes and ns, names as
// STRING_IDS ids, the rowid as the row). Times come back rank-relative.
//
//   if (auto rec = ReadMemoryRecords(table)) ... rec->components["PTA"].peaks.peak_reserved_mb
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyze/model/model.h"

namespace optrace::analyze {

// Each component's peaks (the step unknown here) and samples (time and reserved known), in file order.
struct ComponentRecords {
  ComponentMemory peaks;
  std::vector<MemoryPoint> samples;
};

struct MemoryRecords {
  std::string source;  // memory_record.csv's path, or "<db>#MEMORY_RECORD"
  std::string db;      // the db they came from ("" for the text export)
  std::map<std::string, ComponentRecords> components;
};

// memory_record.csv when the rank's ASCEND_PROFILER_OUTPUT has one, else the db's MEMORY_RECORD;
// nullopt when the rank has neither or it cannot be read (no header, no such table).
std::optional<MemoryRecords> ReadMemoryRecords(const RankTable& table);

// The allocations live at `rel_ns` (allocated at or before it, not released by then), largest
// first, at most 5, from the same layout as `records` (OP_MEMORY of its db, else
// operator_memory.csv). `source` gets the file or table read; "" when there is none (and, for the
// db, when nothing is live).
std::vector<LiveAllocation> ReadLiveAllocations(const RankTable& table, const MemoryRecords& records, int64_t rel_ns,
                                                std::string* source);

}  // namespace optrace::analyze
