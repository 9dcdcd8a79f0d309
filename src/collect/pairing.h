// Pairing B/E events of one core into intervals, then nesting (depth, self time).
//
//   std::vector<Interval> out; std::vector<Instant> orphans;
//   PairStats st = PairCore(core, events, PairMode::kNest, out, orphans);
//   ComputeNesting(std::span(out).subspan(first_of_this_core));
//
// Modes:
//   kNest  (native default): a stack per core; an E closes the most recent open B of the same
//          label. When that B is not the innermost open one, the B's opened after it stay open
//          (counted as crossed nesting) and may still be closed later.
//   kSeq   (legacy default, SPEC section 5 --extra-mode seq): per label, an E closes the oldest
//          open B with the same sequence number (payload >> 8).
//   kFifo  (--extra-mode legacy): per label, an E closes the oldest open B.
// What is left unmatched (a B never closed, an E with nothing open) becomes an Instant.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "collect/model.h"

namespace optrace::collect {

enum class PairMode { kNest, kSeq, kFifo };

struct ResolvedEvent {
  uint32_t label = 0;
  bool is_end = false;
  uint32_t point_id = 0;
  uint32_t payload = 0;
  int64_t ticks = 0;
};

struct CoreRef {
  int32_t rank = 0;
  CoreKind kind = CoreKind::kUnknown;
  uint32_t core_index = 0;
  uint32_t series = 0;
};

struct PairStats {
  uint64_t crossed = 0;   // kNest: E closed a B that was not innermost
  uint64_t reversed = 0;  // an E earlier than its B (clock went backwards): kept as two instants
};

PairStats PairCore(const CoreRef& core, std::span<const ResolvedEvent> events, PairMode mode,
                   std::vector<Interval>& intervals, std::vector<Instant>& instants);

// Sorts one core's intervals by (begin, longer first) and fills depth (height from the leaves:
// a leaf is 1) and self time (duration minus the time covered by its direct children).
// A parent contains its child: parent.begin <= child.begin and child.end <= parent.end; ties
// go to the interval paired first. `parents`, when given, gets each interval's direct parent
// (an index into the sorted span, -1 for a top-level one).
void ComputeNesting(std::span<Interval> core_intervals, std::vector<int64_t>* parents = nullptr);

// Keeps intervals with depth <= max_depth (0 keeps all).
void ApplyDepth(std::vector<Interval>& intervals, uint32_t max_depth);

}  // namespace optrace::collect
