// The rank's metadata files: profiler_metadata.json (parallel_group_info: the parallel groups and
// their ranks) and profiler_info_<rank>.json (profiler level, AIC metrics, torch_npu and CANN versions).
#include <climits>
#include <nlohmann/json.hpp>

#include "analyze/read/json_file.h"
#include "core/json_number.h"
#include "analyze/read/normalize.h"

namespace optrace::analyze {

using nlohmann::json;

Status ReadProfilerMetadata(const std::filesystem::path& path, RankTable& table) {
  OPTRACE_ASSIGN_OR_RETURN(json j, ParseJsonFile(path));
  if (!j.is_object() || !j.contains("parallel_group_info") || !j["parallel_group_info"].is_object())
    return Status::Ok();
  for (auto& [key, info] : j["parallel_group_info"].items()) {
    if (!info.is_object()) continue;
    ParallelGroup g;
    g.key = key;
    g.hash = GroupHash(key);
    if (info.contains("group_name") && info["group_name"].is_string())
      g.pg_name = info["group_name"].get<std::string>();
    g.kind = ParallelKind(g.pg_name);
    if (info.contains("global_ranks") && info["global_ranks"].is_array())
      for (const json& r : info["global_ranks"])
        if (std::optional<int64_t> n = JsonInteger(r, 0, INT_MAX)) g.global_ranks.push_back(static_cast<int>(*n));
    std::sort(g.global_ranks.begin(), g.global_ranks.end());
    table.parallel_groups.push_back(std::move(g));
  }
  return Status::Ok();
}

Status ReadProfilerInfo(const std::filesystem::path& path, RankTable& table) {
  OPTRACE_ASSIGN_OR_RETURN(json j, ParseJsonFile(path));
  if (!j.is_object()) return Status::Ok();
  auto str = [](const json& o, const char* k) -> std::string {
    return o.is_object() && o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : "";
  };
  if (j.contains("config") && j["config"].is_object() && j["config"].contains("experimental_config")) {
    const json& x = j["config"]["experimental_config"];
    table.identity.profiler_level = str(x, "_profiler_level");
    table.identity.aic_metrics = str(x, "_aic_metrics");
  }
  table.identity.torch_npu_version = str(j, "torch_npu_version");
  table.identity.cann_version = str(j, "cann_version");
  return Status::Ok();
}

}  // namespace optrace::analyze
