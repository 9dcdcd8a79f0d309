// A JSON number read as an integer, range-checked. nlohmann's get<int>() converts a float with a
// cast (1e300 -> int is undefined behaviour) and an int64 by truncation (4294967297 -> 1): a
// user's rules file or plan must get a message instead.
//
//   std::optional<int64_t> n = JsonInteger(j["top_operators"], 0, 1000000);
//   if (!n) return BadInputError("{}: 'top_operators' must be an integer from 0 to 1000000", origin);
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace optrace {

// The value when `v` is a whole number (an integer, or a float with no fraction) in [lo, hi];
// nullopt for anything else (a string, 1.5, NaN, a value out of range).
std::optional<int64_t> JsonInteger(const nlohmann::json& v, int64_t lo, int64_t hi);

}  // namespace optrace
