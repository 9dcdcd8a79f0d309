#include "core/json_number.h"

#include <cmath>

namespace optrace {

std::optional<int64_t> JsonInteger(const nlohmann::json& v, int64_t lo, int64_t hi) {
  int64_t n = 0;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    n = static_cast<int64_t>(u);
  } else if (v.is_number_integer()) {
    n = v.get<int64_t>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    // Compared as doubles before any cast: only a whole value inside [lo, hi] is converted.
    // (2^63 itself is past int64: hi = INT64_MAX reads as 2^63 in a double.)
    if (!std::isfinite(d) || d != std::floor(d) || d < -0x1p63 || d >= 0x1p63 || d < static_cast<double>(lo) ||
        d > static_cast<double>(hi))
      return std::nullopt;
    n = static_cast<int64_t>(d);
  } else {
    return std::nullopt;
  }
  if (n < lo || n > hi) return std::nullopt;
  return n;
}

}  // namespace optrace
