// Streaming a large output file atomically: write to a temp file beside the target, then rename.
//
//   OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic("out/trace.json", [&](std::ostream& os) {
//     return WriteChromeTrace(c, opt, other, os);
//   }));
//
// Like core's WriteFileAtomic, but the contents never have to fit in one string.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

#include "core/status.h"

namespace optrace::collect {

Status WriteStreamAtomic(const std::filesystem::path& path, const std::function<Status(std::ostream&)>& write);

}  // namespace optrace::collect
