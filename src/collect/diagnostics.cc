#include "collect/diagnostics.h"

#include <fmt/format.h>

namespace optrace::collect {
namespace {

constexpr std::array<ProblemInfo, static_cast<size_t>(Problem::kCount_)> kProblems = {{
    {"never_written_slot", Severity::kInfo,
     "slots without a header: the kernel did not run on that core (or the buffer was saved too early)"},
    {"slot_overflow", Severity::kDataLoss, "events dropped because a slot was full; raise PROF_SIZE_PER_CORE"},
    {"skipped_no_mapping", Severity::kDataLoss, "records whose point id is not in the point map"},
    {"map_from_other_build", Severity::kError,
     "no point id of the dumps is in the map: the map is from another build; rescan the sources the binary was "
     "built from"},
    {"no_point_map", Severity::kInfo, "no point map given: labels are shown as their hashed ids"},
    {"unmatched_begin", Severity::kDataLoss, "B without a matching E (kept as a flagged instant event)"},
    {"unmatched_end", Severity::kDataLoss, "E without a matching B (kept as a flagged instant event)"},
    {"crossed_nesting", Severity::kInfo,
     "an E closed a B that was not the innermost open one (intervals overlap without nesting)"},
    {"timestamp_backwards", Severity::kDataLoss, "a core's timestamp went backwards between consecutive records"},
    {"clock_missing", Severity::kInfo, "a slot header has no clock frequency; --clock-mhz was used"},
    {"legacy_row_full", Severity::kDataLoss,
     "a legacy row holds its maximum (PROF_SIZE - 2) / 2 records: later records were probably lost"},
    {"role_matches_no_core", Severity::kInfo,
     "a role of the --roles file matches no core in the dumps: it has no statistics; check the core kind and "
     "ranges"},
    {"role_cores_absent", Severity::kInfo,
     "some cores a role declares are not in the dumps (the kernel did not run there, or the ranges are wrong)"},
    {"core_without_role", Severity::kInfo,
     "cores in the dumps that no role of the --roles file covers: they are in the per-kind rows only"},
    {"rank_unreadable", Severity::kDataLoss,
     "a rank's dump could not be read (empty, truncated, corrupt, not a file): the other ranks were collected; "
     "save that rank again"},
    {"corrupt_slot", Severity::kDataLoss,
     "a slot whose header is damaged (unknown magic beside an intact header, impossible counts): its events are "
     "not used; check that the kernel writes only its own slot"},
    {"duplicate_core", Severity::kDataLoss,
     "two slots of one rank claim the same core: one core wrote another's slot, or the core index is wrong"},
    {"map_mismatch", Severity::kDataLoss,
     "the map shares ids with the dumps but most records are unmapped or no longer pair: it is probably from "
     "another build"},
    {"cpu_debug_clock", Severity::kInfo,
     "legacy timestamps are nanoseconds since 1970 (CANN CPU-debug mode's GetSystemCycle): read at 1000 MHz "
     "instead of --clock-mhz; pass --clock-mhz to force a rate"},
    {"map_other_scan", Severity::kDataLoss,
     "slots whose point-set fingerprint (stamped at build time by scan --stamp-fingerprint) is not the map's: the "
     "map is from another scan than the binary's; use the point_map.json of that build, or rescan its sources"},
}};

}  // namespace

const ProblemInfo& InfoOf(Problem p) { return kProblems[static_cast<size_t>(p)]; }

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kDataLoss: return "data_loss";
    case Severity::kError: return "error";
  }
  return "?";
}

void Diagnostics::Add(Problem p, std::string example, uint64_t n) {
  Entry& e = entries_[static_cast<size_t>(p)];
  e.count += n;
  if (example.empty()) return;
  ++e.with_example;
  if (e.examples.size() < kMaxExamples) e.examples.push_back(std::move(example));
}

void Diagnostics::SetSummary(Problem p, std::string summary) {
  entries_[static_cast<size_t>(p)].summary = std::move(summary);
}

bool Diagnostics::HasDataLoss() const {
  for (Problem p : Present()) {
    if (InfoOf(p).severity != Severity::kInfo) return true;
  }
  return false;
}

bool Diagnostics::Empty() const { return Present().empty(); }

std::vector<Problem> Diagnostics::Present() const {
  std::vector<Problem> out;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].count > 0) out.push_back(static_cast<Problem>(i));
  }
  return out;
}

std::string FormatDiagnostics(const Diagnostics& d) {
  std::string out;
  for (Problem p : d.Present()) {
    const ProblemInfo& info = InfoOf(p);
    const Diagnostics::Entry& e = d.Get(p);
    out += fmt::format("  {:<9} {:<22} {:>8}  {}\n", SeverityName(info.severity), info.name, e.count,
                       info.description);
    if (!e.summary.empty()) out += fmt::format("  {:<42}{}\n", "", e.summary);
    for (const std::string& ex : e.examples) out += fmt::format("  {:<42}e.g. {}\n", "", ex);
    // More examples, not more of the count: a slot that lost 186 events is one example.
    if (e.with_example > e.examples.size()) {
      out += fmt::format("  {:<42}... {} more\n", "", e.with_example - e.examples.size());
    }
  }
  return out;
}

}  // namespace optrace::collect
