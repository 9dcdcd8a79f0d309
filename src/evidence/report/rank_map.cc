#include "evidence/report/rank_map.h"

#include <nlohmann/json.hpp>

#include "core/file_io.h"

namespace optrace::evidence {

Result<RankMap> ReadRankMap(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path file = std::filesystem::is_directory(path, ec) ? path / "analysis_summary.json" : path;
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(file));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("identity") || !j["identity"].is_object() || !j["identity"].contains("ranks") ||
      !j["identity"]["ranks"].is_array())
    return BadInputError("{}: no identity.ranks; give the output folder of `optrace analyze ROOT -o DIR`", file.string());
  auto str = [](const nlohmann::json& o, const char* k) {
    return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
  };
  auto num = [](const nlohmann::json& o, const char* k) -> int64_t {
    return o.contains(k) && o[k].is_number_integer() ? o[k].get<int64_t>() : -1;
  };
  RankMap out;
  out.path = file;
  for (const nlohmann::json& r : j["identity"]["ranks"]) {
    if (!r.is_object()) continue;
    RankMapRow row;
    row.rank = static_cast<int>(num(r, "rank"));
    row.node = str(r, "node");
    row.device_id = static_cast<int>(num(r, "device_id"));
    row.hostname = str(r, "hostname");
    row.hostname_from = str(r, "hostname_from");
    row.pid = num(r, "pid");
    row.pid_from = str(r, "pid_from");
    row.inferred = r.contains("process_inferred") && r["process_inferred"].is_boolean() && r["process_inferred"].get<bool>();
    row.conflict = str(r, "process_conflict");
    out.ranks.push_back(std::move(row));
  }
  return out;
}

}  // namespace optrace::evidence
