// The joined trace as one Perfetto protobuf file (perfetto.protos.Trace), read by ui.perfetto.dev
// and trace_processor without a JSON parse. Per rank a process "rank N" with, in this order:
// the host's events of trace_view.json ("host: <process>"), every stream of the export
// ("stream 2", "stream 5 (HCCL)") with its tasks, and one track per core of the traced kernel
// ("<kernel> AIV 3") with its phases inside the launch's task slice; analyze's findings on a
// track of their own. Slices that would overlap without nesting on one track go to a second lane
// ("stream 2 (2)"). Each kernel task slice carries its residuals (launch, phases_lead_us,
// phases_tail_us, phases_outside). Every track is its own packet sequence, in time order.
//
//   std::ofstream out("merged.pftrace", std::ios::binary);
//   OPTRACE_RETURN_IF_ERROR(WriteJoinedTrace(result, out));
#pragma once

#include <ostream>

#include "core/status.h"
#include "join/join.h"

namespace optrace::join {

Status WriteJoinedTrace(const JoinResult& r, std::ostream& out);

}  // namespace optrace::join
