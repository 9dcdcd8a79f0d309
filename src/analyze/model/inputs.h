// The discover stage's part of the model: each rank's input files as found on disk.
#pragma once

#include "analyze/model/strings.h"

namespace optrace::analyze {

enum class InputKind : uint8_t {
  kTorchText,  // *_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv (+ trace_view.json, ...)
  kTorchDb,    // ascend_pytorch_profiler_<rank>.db
  kMsprof,     // PROF_*/mindstudio_profiler_output/op_summary_*.csv
};
std::string_view InputKindName(InputKind k);

// One rank's input files as found on disk. Paths are absolute.
struct RankInput {
  int rank = -1;
  std::string rank_source;  // how the rank id was decided: "profiler_info_3.json", "rank_id", "RANK_DEVICE_MAP", "order"
  InputKind kind = InputKind::kTorchText;
  std::filesystem::path dir;  // the *_ascend_pt or PROF_* directory
  std::filesystem::path kernel_details;  // kernel_details.csv or op_summary_*.csv (empty for db)
  std::vector<std::filesystem::path> kernel_slices;  // further slices of a sliced op_summary (_2, _3, ...)
  std::filesystem::path db;              // ascend_pytorch_profiler_<rank>.db
  std::filesystem::path trace_view;
  std::filesystem::path communication;
  std::filesystem::path communication_matrix;
  std::filesystem::path step_trace_time;
  std::filesystem::path op_statistic;
  std::filesystem::path api_statistic;   // api_statistic.csv: host API calls (count, time) of the capture
  std::filesystem::path profiler_info;
  std::filesystem::path profiler_metadata;
  std::filesystem::path analysis_db;     // db export: communication tables (CommAnalyzerTime, ...)
  bool has_kernel_data() const { return !kernel_details.empty() || !db.empty(); }
  // Without kernel rows a rank still takes part with its step and communication summaries.
  bool has_partial_data() const { return !step_trace_time.empty() || !communication.empty() || !trace_view.empty(); }
};

struct Discovery {
  std::vector<std::filesystem::path> roots;  // absolute; --from-stage refuses stage files of other roots
  std::string rules_fingerprint;             // Rules::fingerprint of the run that discovered (same check)
  int run = 0;                               // --run N when the roots held several captures (0: not given)
  int capture_count = 0;                     // captures found under the roots
  std::string capture;                       // the analyzed capture, described (capture.h)
  std::vector<RankInput> ranks;             // with kernel data or partial data (has_partial_data), sorted by rank
  std::vector<RankInput> ranks_without_kernels;  // seen (profiler_info, ...) with nothing to analyze
};

}  // namespace optrace::analyze
