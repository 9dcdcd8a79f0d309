// Integer arithmetic on values read from a user's file, where overflow would be undefined
// behaviour: a timestamp of 9.2e18 ns minus the capture's base must give a (clamped) number, not a
// sanitizer report or a wrapped one.
#pragma once

#include <cstdint>
#include <limits>

namespace optrace {

// a - b, clamped to the int64 range.
inline int64_t SubSaturating(int64_t a, int64_t b) {
  int64_t out = 0;
  if (!__builtin_sub_overflow(a, b, &out)) return out;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace optrace
