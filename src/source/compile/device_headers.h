// The device headers (include/optrace/*.h) embedded in the binary, and a folder that holds
// them, for compiling instrumented kernels wherever optrace runs (`lint --compile`):
//
//   Result<std::filesystem::path> inc = DeviceHeaderDir();   // <tmp>/optrace-device-<hash>
//   args.push_back("-I" + inc->string());                   // #include "optrace/trace.h"
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace optrace::source {

// (path relative to include/, text), e.g. ("optrace/trace.h", "..."), sorted by path.
const std::vector<std::pair<std::string, std::string>>& DeviceHeaders();

// A folder under the temporary directory holding DeviceHeaders(), written once per content
// (the name carries a hash of it) and atomically (a temporary folder renamed into place).
Result<std::filesystem::path> DeviceHeaderDir();

}  // namespace optrace::source
