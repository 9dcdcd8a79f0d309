// The span inputs of `optrace explain`: labelled intervals per (rank, core), from a collection
// (the collect pipeline's output) or read back from a Chrome / Perfetto JSON trace.
//
//   OPTRACE_ASSIGN_OR_RETURN(SpanSet set, ReadTraceSpans("chrome_trace.json"));
//   ComputeParents(set);
//   for (const Span& s : set.spans) ... s.label, s.end_us - s.begin_us, s.parent ...
//
// Both readers give the same spans for the same data: times in microseconds relative to the
// rank's first span, labels without the legacy collector's decorations (" [extra:3] #7"), sorted
// by (rank, kind, core, begin, -end). Neither prints or throws; data problems that do not stop
// the read (an unmatched B or E, an event without a thread) go to SpanSet::warnings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "collect/model.h"
#include "core/status.h"

namespace optrace::explain {

struct Span {
  int32_t rank = 0;
  collect::CoreKind kind = collect::CoreKind::kUnknown;  // kAic / kAiv / ... (optrace/format.h)
  uint32_t core = 0;                 // core index within its kind
  std::string label;                 // phase label, decorations removed ("dispatch", not "dispatch [extra:3] #7")
  double begin_us = 0, end_us = 0;   // relative to the rank's first span (so ranks compare)
  int parent = -1;                   // index of the innermost enclosing span on the same (rank, kind, core), -1: top level
};

struct SpanSet {
  std::string source;                 // "dumps" or "trace"
  std::vector<std::string> inputs;
  std::vector<Span> spans;            // sorted by (rank, kind, core, begin, -end)
  std::vector<std::string> warnings;  // e.g. unmatched B/E ignored, events without a core
};

// From a collection (collect pipeline output): intervals -> spans (ticks to us with each series'
// clock, rounded to the nanosecond exactly as the Chrome trace writer rounds them).
SpanSet SpansFromCollection(const collect::Collection& c, const std::vector<std::string>& inputs);

// From a Chrome / Perfetto JSON trace (object with traceEvents, or a bare array): X events and B/E
// pairs (per pid/tid, nested LIFO). pid -> rank (process_name "rank N" if present, else the pid);
// tid -> core kind and index from thread_name ("AIC 3", "AIV 12", "aic_3", "vector 5", "cube0",
// "core 2", ...; else kind unknown, core = tid). Labels lose legacy decorations. Errors name the
// file (and the byte offset of malformed JSON); an empty trace (no span) is an error saying so.
// The file is mapped and parsed with a SAX handler: no document tree, whatever its size.
Result<SpanSet> ReadTraceSpans(const std::filesystem::path& path);

// The same, from JSON text already in memory; `origin` names it in messages.
Result<SpanSet> ParseTraceSpans(std::string_view json_text, std::string_view origin);

// Fills Span::parent by nesting on each core (a span inside another on the same core is its child).
// Expects set.spans sorted as above.
void ComputeParents(SpanSet& set);

// "dispatch [extra:3] #7" -> "dispatch", "combine [extra:1027]" -> "combine"; other names unchanged.
std::string StripLegacyDecorations(std::string_view name);

// Core kind and index from a trace thread name ("AIC 3", "aiv_12", "vector 5", "cube0", "core 2");
// false when the name says neither.
bool ParseThreadName(std::string_view name, collect::CoreKind* kind, uint32_t* core);

}  // namespace optrace::explain
