// Data problems found while collecting: counted, not fatal (Perfetto's stats table idea).
//
//   Diagnostics diag;
//   diag.Add(Problem::kUnmatchedBegin, "rank0 AIV 3: 'dispatch send' B at kernel.cc:42");
//   if (diag.HasDataLoss()) ...;   // --strict turns that into exit 1
//
// Every problem has one fixed entry (name, severity, one-line description); Add() counts it
// and keeps the first few examples so reports stay short on huge inputs.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace optrace::collect {

enum class Severity { kInfo, kDataLoss, kError };

enum class Problem {
  kNeverWrittenSlot,
  kSlotOverflow,
  kSkippedNoMapping,
  kMapFromOtherBuild,
  kNoMap,
  kUnmatchedBegin,
  kUnmatchedEnd,
  kCrossedNesting,
  kTimestampBackwards,
  kClockMissing,
  kLegacyRowFull,
  kRoleMatchesNoCore,  // --roles: a role none of whose cores is in the dumps
  kRoleCoresAbsent,    // --roles: some of a role's declared cores are not in the dumps
  kCoreWithoutRole,    // --roles: cores in the dumps that no role covers
  kRankUnreadable,     // a rank's dump is empty, truncated, corrupt or unreadable: the others are kept
  kCorruptSlot,        // a slot whose header is damaged (magic, impossible counts): its events are not used
  kDuplicateCore,      // two slots of one rank claim the same core
  kMapMismatch,        // ids shared with the map but most records unmapped or unpaired: another build
  kCpuDebugClock,      // legacy timestamps are CLOCK_REALTIME ns (CANN CPU-debug mode): read at 1 GHz
  kMapOtherScan,       // the slots' point-set fingerprint (word 7) is not the map's: a map of another scan
  kCount_,  // number of problems; not a problem
};

struct ProblemInfo {
  std::string_view name;
  Severity severity;
  std::string_view description;
};

const ProblemInfo& InfoOf(Problem p);
std::string_view SeverityName(Severity s);  // "info", "data_loss", "error"

class Diagnostics {
 public:
  static constexpr size_t kMaxExamples = 5;

  struct Entry {
    uint64_t count = 0;         // what the problem counts (events, slots, rows: see its description)
    uint64_t with_example = 0;  // reports that came with an example; the first kMaxExamples are kept
    std::vector<std::string> examples;
    std::string summary;  // optional one-line figure, e.g. "PROF_SIZE_PER_CORE 4096 would fit"
  };

  void Add(Problem p, std::string example = {}, uint64_t n = 1);
  void SetSummary(Problem p, std::string summary);
  const Entry& Get(Problem p) const { return entries_[static_cast<size_t>(p)]; }
  uint64_t Count(Problem p) const { return Get(p).count; }
  bool HasDataLoss() const;
  bool Empty() const;
  // Problems with a non-zero count, in table order.
  std::vector<Problem> Present() const;

 private:
  std::array<Entry, static_cast<size_t>(Problem::kCount_)> entries_{};
};

// Text table for the terminal: severity, name, count, description, summary and examples.
std::string FormatDiagnostics(const Diagnostics& d);

}  // namespace optrace::collect
