// Perfetto protobuf trace writer (SPEC section 7: "offer Perfetto's protobuf format where JSON
// grows too large"). Same content as the Chrome JSON trace; names, categories and source
// locations interned per sequence and packets deflated in batches (about 10x smaller than the
// JSON), and imported by Perfetto without a JSON parse.
//
//   OPTRACE_RETURN_IF_ERROR(WritePerfettoTrace(result.collection, opt, out));   // *.pftrace
//
// The file is a perfetto.protos.Trace: a sequence of TracePackets. One process track per rank
// (pid rank + 1, named "rank N"), one thread track per core ("AIC 0".., "AIV 0"..), slices as
// TYPE_SLICE_BEGIN / TYPE_SLICE_END TrackEvents with the category "AIC"/"AIV"/... and debug
// annotations index/extra/seq/file/line/depth; unmatched B/E as TYPE_INSTANT events with the
// annotation unmatched = "B"/"E". Timestamps are nanoseconds, aligned as in the JSON trace.
// Ranges of one core that cross (an E closing over a still-open B) cannot nest on one track;
// they go to a second track of that core named "<core> (crossed)".
#pragma once

#include <ostream>

#include "collect/chrome_writer.h"
#include "collect/model.h"
#include "core/status.h"

namespace optrace::collect {

Status WritePerfettoTrace(const Collection& c, const ChromeTraceOptions& opt, std::ostream& out);

// True for the extensions that select the protobuf writer: .pftrace, .perfetto-trace, .pb.
bool IsPerfettoPath(const std::string& path);

}  // namespace optrace::collect
