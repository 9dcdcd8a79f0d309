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

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <future>
#include <string_view>

#include "analyze/model/model.h"
#include "analyze/pipeline/pipeline.h"
#include "core/status.h"

namespace optrace::analyze {

// 3: FNV-1a 64 trailer; 4: capture identity; 5: word-wise checksum (StageChecksum);
// 6: packed pipeline fields, 80-byte events, layer / block classes by index; 9: a layer's blocks as
// one index range; 10: pipeline fields stored sparsely (PipeStore: masks, nonzero values), 72-byte
// events (a 4-byte wait, long ones in RankTable::long_waits); 11: a step's profiler step and host parts;
// 12: a rank's host name and process id (RankIdentity::process), its SDMA copy sizes (sdma_alignment)
inline constexpr uint32_t kStageFileVersion = 12;

// The trailer of a stage file: FNV-1a 64 over the bytes as little-endian 64-bit words (the last
// n % 8 bytes one at a time), the same however the bytes arrive in pieces. A flipped bit must be
// caught before decoding (it would index past the tables later stages read), and a stage file is
// as large as the event table, so the hash takes one multiply per 8 bytes, not per byte.
class StageChecksum {
 public:
  void Update(const void* data, size_t n);
  uint64_t Final() const;
  static uint64_t Of(std::string_view bytes) {
    StageChecksum c;
    c.Update(bytes.data(), bytes.size());
    return c.Final();
  }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
  unsigned char pending_[8] = {};
  size_t npending_ = 0;
};

std::filesystem::path StageFilePath(const std::filesystem::path& stages_dir, Stage stage);
Status SaveStage(const std::filesystem::path& stages_dir, Stage stage, const AnalysisResult& result);
Status LoadStage(const std::filesystem::path& stages_dir, Stage stage, AnalysisResult& result);

// The normalize stage file (the largest: every event) written on another thread while the later
// stages run; they read the rank tables and never change them. What they do change (strings,
// issues, timings, identity) is copied before this returns. Wait on the future before `result`
// goes away or its ranks change.
std::future<Status> SaveNormalizeStageAsync(const std::filesystem::path& stages_dir, const AnalysisResult& result);

}  // namespace optrace::analyze
