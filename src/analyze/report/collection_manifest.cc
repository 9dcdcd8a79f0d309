#include "analyze/report/collection_manifest.h"

#include <nlohmann/json.hpp>

#include "core/file_io.h"

namespace optrace::analyze::report {

Result<CollectionManifest> ReadCollectionManifest(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return BadInputError("--manifest {}: not a JSON object (the manifest.json the collection step writes)",
                         path.string());
  auto text_of = [&](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  CollectionManifest m;
  m.analysis_status = text_of("analysis_status");
  m.execution_id = text_of("execution_id");
  m.host = text_of("host");
  if (j.contains("schema_version") && j["schema_version"].is_number_integer()) m.schema_version = j["schema_version"];
  if (m.analysis_status.empty())
    return BadInputError("--manifest {}: no analysis_status; the collection step records \"ok\" for a capture that "
                         "can be analyzed",
                         path.string());
  if (m.analysis_status != "ok")
    return BadInputError("--manifest {}: the collection recorded analysis_status \"{}\", not \"ok\": the capture is "
                         "not analyzable as recorded{}; collect again, or analyze the root by hand if you know why",
                         path.string(), m.analysis_status,
                         m.analysis_status == "missing_kernel_details" ? " (it holds no kernel_details: no device "
                                                                         "operator data)"
                                                                       : "");
  std::string root = text_of("remote_profile_root");
  if (root.empty()) root = text_of("profile_root");
  if (root.empty())
    return BadInputError("--manifest {}: no remote_profile_root (or profile_root) naming the profiling root",
                         path.string());
  m.profile_root = std::filesystem::path(root);
  if (m.profile_root.is_relative()) m.profile_root = path.parent_path() / m.profile_root;
  std::error_code ec;
  if (!std::filesystem::is_directory(m.profile_root, ec))
    return NotFoundError("--manifest {}: its profiling root {} is not a directory on this machine{}; run analyze "
                         "where the capture lives",
                         path.string(), m.profile_root.string(), m.host.empty() ? "" : " (recorded on " + m.host + ")");
  return m;
}

}  // namespace optrace::analyze::report
