#include "analyze/read/json_file.h"

#include "analyze/model/strings.h"
#include "core/csv_reader.h"
#include "core/file_io.h"

namespace optrace::analyze {

using nlohmann::json;

Result<json> ParseJsonFile(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    return BadInputError("{}: malformed JSON at byte {}: {}; re-export the profiler output", path.string(), e.byte,
                         e.what());
  }
}

double JsonNumber(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key)) return kMissing;
  const json& v = o[key];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    auto d = ParseCsvNumber(v.get<std::string>());
    return d ? *d : kMissing;
  }
  return kMissing;
}

}  // namespace optrace::analyze
