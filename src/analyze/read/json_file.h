// Internal to the read room: a whole JSON file parsed, with the message every JSON reader gives,
// and a number field that may be written as a JSON number or a string ("12.5").
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/status.h"

namespace optrace::analyze {

Result<nlohmann::json> ParseJsonFile(const std::filesystem::path& path);
// o[key] as a number; kMissing when absent or not a number.
double JsonNumber(const nlohmann::json& o, const char* key);

}  // namespace optrace::analyze
