// The point set's fingerprint, stamped where the kernel build picks it up, so that every slot the
// binary writes says which scan it was built with (word 7) and collect can refuse to trust a map
// of another scan.
//
//   OPTRACE_ASSIGN_OR_RETURN(int n, StampPointSet(roots, map));   // optrace scan --stamp-fingerprint
//
// One optrace_point_set.h goes beside each optrace_trace.h under the scanned roots; the single
// header includes it when present (__has_include), so the build needs no flag. A stamp whose text
// is already right is not rewritten (no rebuild).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/point_map.h"
#include "core/status.h"

namespace optrace::source {

// The stamp file's text for `map` (its first line marks it as optrace's).
std::string PointSetStampText(const PointMap& map);

// Writes the stamp beside every optrace_trace.h under `roots` (files or folders); returns how
// many it wrote or found already right.
Result<int> StampPointSet(const std::vector<std::filesystem::path>& roots, const PointMap& map);

}  // namespace optrace::source
