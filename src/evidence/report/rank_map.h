// Seed 003: "keep the mapping of hostname, node rank, global rank, device id and PID" with the
// capture. `optrace analyze` reads them from the exports (analyze/read/process_identity.h) into
// analysis_summary.json's identity.ranks; the report shows them in section 1.
//
//   OPTRACE_ASSIGN_OR_RETURN(RankMap m, ReadRankMap("an/"));  // or "an/analysis_summary.json"
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace optrace::evidence {

struct RankMapRow {
  int rank = -1;
  std::string node;            // the export folder the rank came from
  int device_id = -1;          // -1: not stated
  std::string hostname, hostname_from;
  int64_t pid = -1;
  std::string pid_from;
  bool inferred = false;       // from torch_npu's folder name only
  std::string conflict;        // files of the rank that disagree, "" when none
};

struct RankMap {
  std::filesystem::path path;  // the analysis_summary.json read
  std::vector<RankMapRow> ranks;
};

// `path`: an analyze output folder or its analysis_summary.json. Fails when neither is readable or
// the file has no identity.ranks (the message says which command writes it).
Result<RankMap> ReadRankMap(const std::filesystem::path& path);

}  // namespace optrace::evidence
