// PointMap: what each point id in a dump means (label, B/E, source location).
//
//   OPTRACE_ASSIGN_OR_RETURN(PointMap map, LoadPointMap("build/point_map.json"));
//   if (const PointInfo* p = map.Find(id)) use(p->label, p->file, p->line);
//
// Reads both schemas: the legacy toolchain's (ids sequential from 1, SPEC section 5) and
// optrace's superset (FNV-1a ids, "format": "optrace-point-map", SPEC section 6).
// SerializePointMap always writes optrace's schema, keys in a stable order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace {

enum class PointIdScheme {
  kLegacySequential,  // legacy trace_preprocessor: ids 1, 2, 3, ... in scan order
  kFnv1a31,           // optrace: label_id << 1 | is_end, label_id = FNV-1a 31 bits
};

struct PointInfo {
  uint32_t id = 0;
  std::string label;
  char event_type = 'B';  // 'B' or 'E'
  std::string file;       // relative to the map's source root
  int line = 0;           // 1-based; 0 if unknown
  int column = 0;         // 1-based; 0 if unknown (not in the legacy schema)
  int64_t event_id = 0;   // legacy field, kept for round trips
};

struct PointMap {
  static constexpr int kSchemaVersion = 1;

  PointIdScheme scheme = PointIdScheme::kFnv1a31;
  std::string source_root;              // absolute path the scan ran on ("" if unknown)
  std::map<uint32_t, PointInfo> points;  // by point id, ordered for stable output

  const PointInfo* Find(uint32_t id) const {
    auto it = points.find(id);
    return it == points.end() ? nullptr : &it->second;
  }
};

// `origin` names the input in error messages (usually the file path).
Result<PointMap> ParsePointMap(std::string_view json_text, std::string_view origin);
Result<PointMap> LoadPointMap(const std::filesystem::path& path);
std::string SerializePointMap(const PointMap& map);

// What identifies the point set a build was made from: 64-bit FNV-1a over the map's ids in
// ascending order (4 little-endian bytes each), never 0 (0 is "unknown" in a slot's word 7).
// `optrace scan --stamp-fingerprint` writes it where the kernel's optrace_trace.h picks it up,
// so each slot carries the fingerprint of the scan its binary was built with, and collect can
// tell a map of another scan from the right one.
uint64_t PointSetFingerprint(const PointMap& map);

}  // namespace optrace
