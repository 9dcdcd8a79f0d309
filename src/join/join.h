// Kernel phases on the model's timeline: the dumps of an instrumented run placed inside that
// kernel's own task slices of a profiler capture of the same run.
//
//   JoinOptions opt;
//   opt.launches = {"run/launch0", "run/launch1"};   // rank<N>.bin of each launch, in launch order
//   opt.capture = "prof_root";  opt.kernel = "MoeDispatchCombine";  opt.map = &map;
//   OPTRACE_ASSIGN_OR_RETURN(JoinResult r, JoinKernelPhases(opt));
//   WriteJoinedTrace(r, out);   // one Perfetto trace: host, streams, HCCL, the kernel's phases
//
// Per rank, the k-th launch of the dumps is the k-th task slice of the kernel in the export (the
// slices named `kernel`, or of that type, in start order): the counts must agree, or nothing is
// joined. Each core's phases go on the export's clock through the capture's device clock
// (device_clock.h); a phase outside its slice is a data issue with its size, never clipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "analyze/model/events.h"
#include "analyze/model/findings.h"
#include "analyze/model/strings.h"
#include "analyze/read/normalize.h"
#include "collect/model.h"
#include "core/point_map.h"
#include "core/status.h"
#include "join/device_clock.h"

namespace optrace::join {

struct JoinOptions {
  std::vector<std::filesystem::path> launches;  // one dump folder (rank<N>.bin) per launch, in order
  const PointMap* map = nullptr;                 // null: labels are shown as ids
  std::filesystem::path capture;                 // the profiler capture's root
  int run = 0;                                   // analyze's --run when the root holds several captures
  std::string kernel;                            // the kernel's task Name (or Type) in the export
  std::filesystem::path analysis;                // optional: an analyze output folder (its findings)
};

// One launch of one rank, joined.
struct LaunchJoin {
  int rank = 0;
  int launch = 0;                  // 0-based, in the order of JoinOptions::launches
  int64_t slice_start_ns = 0;      // the task slice, Unix ns
  int64_t slice_dur_ns = 0;
  int32_t stream_id = -1;
  int32_t task_id = -1;
  int64_t phases_begin_ns = 0;     // earliest phase begin of any core, Unix ns
  int64_t phases_end_ns = 0;       // latest phase end
  uint32_t cores = 0;
  uint64_t intervals = 0;
  uint64_t outside = 0;            // phases reaching outside the slice by more than the tolerance
  int64_t worst_outside_ns = 0;    // the largest such reach
  // Residuals: how far inside the slice the phases begin and end (negative: outside).
  int64_t lead_ns() const { return phases_begin_ns - slice_start_ns; }
  int64_t tail_ns() const { return slice_start_ns + slice_dur_ns - phases_end_ns; }
};

// A phase of one core, on the export's clock.
struct JoinedPhase {
  int rank = 0;
  int launch = 0;
  collect::CoreKind kind = collect::CoreKind::kUnknown;
  uint32_t core_index = 0;
  std::string label;
  int64_t begin_ns = 0, end_ns = 0;  // Unix ns
  uint32_t depth = 1;
};

// A finding of analyze placed on the timeline (its evidence's rank and time window).
struct JoinedFinding {
  int rank = -1;  // -1: every rank
  std::string title;  // "[high] slow_rank"
  std::string summary;
  int64_t begin_ns = 0, end_ns = 0;
};

struct JoinedRank {
  int rank = 0;
  DeviceClock clock;
  analyze::RankTable table;                      // the export's tasks (Event::start_ns relative to base_ns)
  std::vector<analyze::TraceHostEvent> host;     // trace_view.json host events, when the export has them
};

struct JoinResult {
  std::string kernel;
  std::string capture;                           // what analyze's discovery says it is
  analyze::StringTable strings;                  // names of the ranks' tasks
  std::vector<JoinedRank> ranks;
  std::vector<LaunchJoin> launches;              // by rank, then launch
  std::vector<JoinedPhase> phases;
  std::vector<JoinedFinding> findings;
  int64_t tolerance_ns = 0;                      // two counter ticks
  std::vector<std::string> notes;                // what was assumed (a slot clock unlike the capture's)
  std::vector<std::string> issues;               // data issues (phases outside their slice)
};

Result<JoinResult> JoinKernelPhases(const JoinOptions& options);

}  // namespace optrace::join
