// Stage files: each stage's part of AnalysisResult in a small versioned binary file
// OUT/stages/<stage>.bin, so later runs can start from any stage (--from-stage).
//
//   OPTRACE_RETURN_IF_ERROR(SaveStage(out_dir / "stages", Stage::kSegment, result));
//   OPTRACE_RETURN_IF_ERROR(LoadStage(out_dir / "stages", Stage::kSegment, result));
//
// Layout: "OPTRACE-STAGE\n", u32 format version, u32 model schema version, u8 stage, then the
// stage's fields (little-endian, length-prefixed strings and vectors). A file of another
// version, stage or a truncated file is an error naming it and what to re-run.
#pragma once

#include <filesystem>

#include "analyze/model.h"
#include "analyze/pipeline.h"
#include "core/status.h"

namespace optrace::analyze {

inline constexpr uint32_t kStageFileVersion = 4;  // 3: FNV-1a 64 trailer; 4: capture identity

std::filesystem::path StageFilePath(const std::filesystem::path& stages_dir, Stage stage);
Status SaveStage(const std::filesystem::path& stages_dir, Stage stage, const AnalysisResult& result);
Status LoadStage(const std::filesystem::path& stages_dir, Stage stage, AnalysisResult& result);

}  // namespace optrace::analyze
