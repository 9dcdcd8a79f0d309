// Compile-time point ids: TRACE_POINT(label, type) = label_id << 1 | (type == "E"),
// label_id = 31-bit FNV-1a of the label bytes, 0 remapped to 1 (SPEC section 3).
//
// Device-safe: constexpr only. The host scanner uses the same functions, so a point map
// made from any revision of the source decodes any binary built with the same labels.
#ifndef OPTRACE_POINT_ID_H_
#define OPTRACE_POINT_ID_H_

#include "optrace/device_types.h"

namespace optrace {

constexpr uint32_t kFnv1aOffset = 2166136261u;
constexpr uint32_t kFnv1aPrime = 16777619u;

// 31-bit FNV-1a of the first `n` bytes of `s`; never 0.
OPTRACE_CONSTEXPR uint32_t LabelId(const char* s, uint32_t n) {
  uint32_t h = kFnv1aOffset;
  for (uint32_t i = 0; i < n; ++i) {
    h ^= static_cast<uint8_t>(s[i]);
    h *= kFnv1aPrime;
  }
  h &= 0x7fffffffu;
  return h == 0 ? 1u : h;
}

OPTRACE_CONSTEXPR uint32_t PointId(uint32_t label_id, bool is_end) {
  return (label_id << 1) | (is_end ? 1u : 0u);
}
OPTRACE_CONSTEXPR uint32_t LabelIdOfPoint(uint32_t point_id) { return point_id >> 1; }
OPTRACE_CONSTEXPR bool IsEndPoint(uint32_t point_id) { return (point_id & 1u) != 0; }

}  // namespace optrace

#endif  // OPTRACE_POINT_ID_H_
