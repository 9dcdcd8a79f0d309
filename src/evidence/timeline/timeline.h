// Pipe and instruction timelines of msOpProf (seed 003 step 4): which pipe of which core was
// busy when, how much data movement (MTE1/2/3) overlapped compute (CUBE/VECTOR), how long the
// instructions of each pipe took, and where the simulator saw ICache misses.
//
//   OPTRACE_ASSIGN_OR_RETURN(TimelineRun run, LoadTimelines({"OPPROF_x/trace.json"}));
//   TimelineSummary s = SummarizeTimeline(run, &roles);     // nullptr: one role per core kind
//   WriteTimelineText(s, std::cout);  // or TimelineJson(s), WriteMergedTrace(run, &roles, os)
//
// Inputs (docs/evidence.md, "Pipe and instruction timelines", for the sources):
//  - trace.json of `msopprof --aic-metrics=PipeTimeline` and `--aic-metrics=InstrTimeline`
//    (Ascend 950): Chrome trace X events, pid = core ("core3.veccore1"), tid = pipe ("MTE2"),
//    ts/dur in microseconds; InstrTimeline events are instructions with args pc_addr and code.
//  - trace.json of `msopprof simulator` (whole run or one core's core<N>.veccore<k>/trace.json):
//    pids named by process_name metadata; a pipe CACHEMISS whose events are ICache misses.
//  - a timeline CSV with columns core, pipe, ts(us), dur(us) (or end(us)), optionally name,
//    pc_addr, code: the same events flattened (msOpProf itself writes JSON).
// Busy time of a pipe is the union of its intervals, never their sum. WAIT_FLAG / wait_event
// instructions and MarkStamp points are kept but do not count as busy.
#pragma once

#include <nlohmann/json.hpp>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/roles.h"
#include "core/status.h"
#include "optrace/format.h"

namespace optrace::evidence {

inline constexpr int kTimelineSchemaVersion = 1;

enum class TimelineSource { kPipeTimeline, kInstrTimeline, kSimulator, kCsv };
std::string_view TimelineSourceName(TimelineSource s);  // "PipeTimeline", ...

enum class TimelineEventKind { kInterval, kWait, kMark, kIcacheMiss };

struct TimelineEvent {
  size_t input = 0;      // index into TimelineRun::inputs
  size_t core = 0;       // index into TimelineRun::cores
  std::string pipe;      // upper case: VECTOR, MTE2, CACHEMISS, ...
  std::string name;      // the instruction, or the pipe name for PipeTimeline busy intervals
  double ts_us = 0, dur_us = 0;
  TimelineEventKind kind = TimelineEventKind::kInterval;
  bool instruction = false;  // an instruction (InstrTimeline, simulator, CSV name != pipe)
  std::string pc;            // args.pc_addr
  std::string location;      // first line of args.code ("add.cpp:42"), "" when not given
};

struct TimelineCore {
  std::string name;  // as written: "core3.veccore1"
  format::CoreKind kind = format::CoreKind::kUnknown;
  uint32_t block = 0, sub = 0;
};

struct TimelineInput {
  std::string path;
  TimelineSource source = TimelineSource::kPipeTimeline;
  size_t events = 0;   // events kept
  size_t ignored = 0;  // metadata, flow and other events that carry no interval
};

struct TimelineRun {
  std::vector<TimelineInput> inputs;
  std::vector<TimelineCore> cores;  // in order of first appearance
  std::vector<TimelineEvent> events;
  uint32_t vectors_per_block = 1;   // largest veccore<k> + 1 (as opprof.h)
  // Role index: AIC = block; AIV = block * vectors_per_block + sub.
  uint32_t CoreIndex(const TimelineCore& c) const;
};

// "core3.veccore1" -> (kAiv, 3, 1); "core0.cubecore" -> (kAic, 0, 0); also "aiv 7" / "aic7".
std::optional<TimelineCore> ParseTimelineCore(std::string_view name);

// Files (trace.json or CSV) and directories (searched for trace.json and *.csv, recursively).
// The same core seen twice by inputs of the same source is an error (one replay per summary).
Result<TimelineRun> LoadTimelines(const std::vector<std::filesystem::path>& paths);
// One input from text (tests); `origin` names it in messages and its parent directory may name
// the core ("core0.veccore0/trace.json").
Status AddTimelineText(TimelineRun& run, std::string text, const std::string& origin);

// Interval arithmetic on [begin, end) pairs.
std::vector<std::pair<double, double>> MergeIntervals(std::vector<std::pair<double, double>> v);
double TotalLength(const std::vector<std::pair<double, double>>& merged);
double IntersectionLength(const std::vector<std::pair<double, double>>& a_merged,
                          const std::vector<std::pair<double, double>>& b_merged);

struct PipeBusy {
  std::string pipe;
  double busy_us = 0;    // union of the pipe's intervals
  size_t intervals = 0;
};

struct InstrStats {
  std::string pipe;
  size_t count = 0;
  double total_us = 0, mean_us = 0, min_us = 0, max_us = 0;
};

struct CoreTimeline {
  std::string core;
  std::string role;  // "" when no role claims it
  TimelineSource source = TimelineSource::kPipeTimeline;
  std::string input;
  double begin_us = 0, end_us = 0;  // first start, last end of its intervals
  std::vector<PipeBusy> busy;       // pipe order: see PipeOrder()
  double mte_us = 0;      // union of MTE1, MTE2, MTE3
  double compute_us = 0;  // union of CUBE, VECTOR
  double overlap_us = 0;  // |MTE union ∩ compute union|
  std::vector<InstrStats> instructions;
  size_t waits = 0, marks = 0, icache_misses = 0;
};

struct RoleTimeline {
  std::string role;
  TimelineSource source = TimelineSource::kPipeTimeline;
  size_t cores = 0;
  std::vector<PipeBusy> mean_busy;  // busy_us averaged over the role's cores (0 where absent)
  double mean_mte_us = 0, mean_compute_us = 0, mean_overlap_us = 0;
  size_t icache_misses = 0;
};

struct IcacheSite {
  std::string location;  // source location, or "core <name>" when the export gives none
  bool has_location = false;
  size_t count = 0;
  std::vector<std::string> cores;
};

struct TimelineSummary {
  std::vector<TimelineInput> inputs;
  bool default_roles = true;
  std::vector<CoreTimeline> cores;
  std::vector<RoleTimeline> roles;
  std::vector<IcacheSite> icache;  // most misses first
  std::string unassigned;          // cores no role claims, "aiv 9"
};

// Display order of pipes: SCALAR VECTOR CUBE MTE1 MTE2 MTE3 FIXP, then the others by name.
int PipeOrder(std::string_view pipe);

TimelineSummary SummarizeTimeline(const TimelineRun& run, const RoleMap* roles);
void WriteTimelineText(const TimelineSummary& s, std::ostream& out);
nlohmann::ordered_json TimelineJson(const TimelineSummary& s);
// One Chrome/Perfetto JSON trace of every input on one time axis: one process per core, one
// thread per (pipe, source), X events; ICache misses and MarkStamps as instant events.
void WriteMergedTrace(const TimelineRun& run, const RoleMap* roles, std::ostream& out);

}  // namespace optrace::evidence
