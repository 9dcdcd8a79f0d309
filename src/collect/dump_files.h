// Finding the rank dumps named on the command line.
//
//   OPTRACE_ASSIGN_OR_RETURN(std::vector<RankFile> files, FindRankFiles({"dumps/"}));
//
// An INPUT is a file or a directory. In a directory, files named rank<N>.bin (native) or
// rank<N>.pt (legacy, e.g. rank003.pt) are taken, sorted by rank; a directory without any is an
// error that says what it holds instead. The rank comes from the file name.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "collect/model.h"
#include "core/status.h"

namespace optrace::collect {

struct RankFile {
  std::filesystem::path path;
  int rank = 0;
  DumpFormat format = DumpFormat::kNative;
};

// rank<N>.bin / rank<N>.pt -> its rank and format; nullopt for other names.
std::optional<RankFile> ParseRankFileName(const std::filesystem::path& path);

Result<std::vector<RankFile>> FindRankFiles(const std::vector<std::string>& inputs);

}  // namespace optrace::collect
