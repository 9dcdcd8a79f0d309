// Whether a sequential (legacy) point map still names the points of the binary that wrote the
// dumps. Such ids are positions in scan order: a B/E pair added or removed in the sources after
// the map was made shifts every later id by two, B stays B and E stays E, everything still
// pairs, and every later interval silently takes another point's label. What the dumps can
// still show is the nesting: a label whose words name a parent label of the map ("dispatch
// send" under "dispatch") nests inside that parent when the names are right, and almost never
// when they are shifted.
//
//   LabelNestingCheck check(map);
//   ComputeNesting(core, &parents);
//   check.AddCore(core, parents, collection.labels);
//   if (check.Contradicts()) ...   // map_mismatch
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "collect/model.h"
#include "core/point_map.h"

namespace optrace::collect {

class LabelNestingCheck {
 public:
  explicit LabelNestingCheck(const PointMap& map);

  // One core's intervals as ComputeNesting sorted them, with the parents it found.
  void AddCore(std::span<const Interval> intervals, const std::vector<int64_t>& parents,
               const std::vector<LabelInfo>& labels);

  uint64_t checked() const { return checked_; }            // intervals whose label names a parent label
  uint64_t contradicted() const { return contradicted_; }  // of those, inside another range or none
  const std::string& example() const { return example_; }
  // Enough evidence, and most of it against the map.
  bool Contradicts() const { return checked_ >= kMinChecked && contradicted_ * 2 > checked_; }

  static constexpr uint64_t kMinChecked = 8;

 private:
  bool Checkable(uint32_t label, const std::vector<LabelInfo>& labels);

  std::unordered_set<std::string> names_;
  std::vector<int8_t> checkable_;  // per label index: -1 not decided yet, 0 no, 1 yes
  uint64_t checked_ = 0, contradicted_ = 0;
  std::string example_;
};

}  // namespace optrace::collect
