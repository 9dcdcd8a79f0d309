// Pieces shared by the collect and demo commands: loading the point map (--map or --source),
// progress lines on stderr, and the human-readable summary.
#pragma once

#include <functional>
#include <string>

#include "cli/command.h"
#include "collect/collect_job.h"
#include "core/point_map.h"

namespace optrace::cli {

// --map FILE, or --source DIR scanned with the source layer.
Result<PointMap> LoadMapForCollect(const std::string& map_path, const std::string& source_dir, CommandIo& io);

// Progress callback: a line on stderr at most once a second, and only after the first second.
std::function<void(size_t, size_t, const std::string&)> MakeProgress(std::string command, CommandIo& io);

// Statistics table, problems, and where the outputs are.
void PrintCollectSummary(const collect::CollectReport& rep, const std::string& trace_path,
                         const std::string& stats_path, CommandIo& io);

}  // namespace optrace::cli
