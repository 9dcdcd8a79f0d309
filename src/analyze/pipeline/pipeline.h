// RunAnalysis: the analyze pipeline from profiling roots to findings, with stage control.
//
//   AnalyzeOptions opt;
//   opt.roots = {"/data/prof_tp4"};
//   opt.out_dir = "out";                       // OUT/stages/<stage>.bin when persist_stages
//   opt.from = Stage::kClassify;               // reuse OUT/stages/segment.bin and everything before
//   opt.progress = &my_sink;                   // one StageEvent per stage start/end
//   OPTRACE_ASSIGN_OR_RETURN(AnalysisResult r, RunAnalysis(opt));
//
// Stages run in order discover, normalize, segment, classify, summarize, cross_rank, diagnose.
// Stages before `from` are loaded from OUT/stages/ (an error names the missing file and the
// stage to run first); stages after `to` are skipped. `only` = from = to. The report stage is
// the CLI's (writers consume AnalysisResult); it is listed so --to-stage report parses.
// Never prints: progress goes through ProgressSink.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/model/model.h"
#include "core/status.h"

namespace optrace::analyze {

enum class Stage : uint8_t { kDiscover, kNormalize, kSegment, kClassify, kSummarize, kCrossRank, kDiagnose, kReport };
inline constexpr int kStageCount = 8;
std::string_view StageName(Stage s);  // "discover", ..., "cross_rank", "diagnose", "report"
// Accepts the names above plus "cross-rank" and "diagnostics".
std::optional<Stage> ParseStage(std::string_view name);

enum class Mode : uint8_t { kFast, kFull };

struct StageEvent {
  Stage stage = Stage::kDiscover;
  std::string status;   // "started", "done" (ran), "loaded" (from OUT/stages), "skipped", "failed"
  double seconds = 0;   // for done/loaded/failed
  std::map<std::string, double> counts;  // "ranks", "events", "steps", "findings", ...
  std::string message;  // for failed: the error
  // Resident memory after the stage (its stage file written) and the peak while it ran, in MB;
  // negative when the platform cannot tell (done/loaded only).
  double rss_mb = -1;
  double peak_rss_mb = -1;
};

// Implemented by the CLI (stderr lines / JSON lines) and by tests.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void OnStage(const StageEvent& event) = 0;
};

struct AnalyzeOptions {
  std::vector<std::filesystem::path> roots;
  std::filesystem::path out_dir;     // needed for persist_stages and for from > discover
  Mode mode = Mode::kFast;
  Stage from = Stage::kDiscover;
  Stage to = Stage::kDiagnose;
  bool persist_stages = true;        // write OUT/stages/<stage>.bin after each stage that ran
  std::filesystem::path rules_dir;   // empty: the built-in rules (data/analyze/*.json embedded)
  int run = 0;                       // 1-based capture when the roots hold several (discover.h)
  int threads = 0;                   // worker threads (0: every core); results never depend on it
  ProgressSink* progress = nullptr;
};

// Runs stages from..to. The result holds everything produced or loaded up to `to`.
Result<AnalysisResult> RunAnalysis(const AnalyzeOptions& options);

// The counts reported for a stage (used in progress events and manifest.json).
std::map<std::string, double> StageCounts(Stage stage, const AnalysisResult& result);

}  // namespace optrace::analyze
