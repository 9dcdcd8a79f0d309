// Shared by every part of the model: missing numbers (NaN) and the string table that interns
// operator names, types and shapes once for all ranks.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/packed_decimal.h"

namespace optrace::analyze {

inline constexpr int kModelSchemaVersion = 1;
inline constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
inline bool IsMissing(double v) { return std::isnan(v); }

// Interned strings shared by all ranks.
class StringTable {
 public:
  StringTable() { Intern(""); }  // id 0 is the empty string ("missing")
  uint32_t Intern(std::string_view s);
  const std::string& Get(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  const std::vector<std::string>& strings() const { return strings_; }
  void Assign(std::vector<std::string> strings);  // used when reloading a stage file

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
};

}  // namespace optrace::analyze
