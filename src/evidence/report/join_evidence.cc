#include "evidence/report/join_evidence.h"

#include <nlohmann/json.hpp>

#include "core/file_io.h"

namespace optrace::evidence {

Result<JoinEvidence> ReadJoinEvidence(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("launches") || !j["launches"].is_array() ||
      !j.contains("kernel") || !j["kernel"].is_string())
    return BadInputError("{}: not a join summary (kernel, launches[]); write one with `optrace join ... --summary FILE`",
                         path.string());
  JoinEvidence e;
  e.path = path;
  e.kernel = j["kernel"].get<std::string>();
  e.trace = j.value("trace", "");
  e.capture = j.value("capture", "");
  auto i64 = [](const nlohmann::json& o, const char* k) -> int64_t {
    return o.contains(k) && o[k].is_number() ? o[k].get<int64_t>() : 0;
  };
  for (const nlohmann::json& l : j["launches"]) {
    if (!l.is_object()) continue;
    JoinedLaunch x;
    x.rank = static_cast<int>(i64(l, "rank"));
    x.launch = static_cast<int>(i64(l, "launch"));
    x.slice_dur_ns = i64(l, "slice_dur_ns");
    x.lead_ns = i64(l, "lead_ns");
    x.tail_ns = i64(l, "tail_ns");
    x.phases = static_cast<uint64_t>(i64(l, "phases"));
    x.outside = static_cast<uint64_t>(i64(l, "phases_outside"));
    e.launches.push_back(x);
  }
  if (j.contains("issues") && j["issues"].is_array())
    for (const nlohmann::json& i : j["issues"])
      if (i.is_string()) e.issues.push_back(i.get<std::string>());
  return e;
}

}  // namespace optrace::evidence
