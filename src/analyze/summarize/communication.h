// communication: what a rank's communication.json and communication_matrix.json say about its
// HCCL ops: time split (transit, wait, synchronization, idle), bandwidth per transport and
// packet size, and bandwidth per link. Part of the summarize stage.
//
//   SummarizeCommunication(result, rules);   // fills comm_ranks, comm_transports, comm_links
//
// Field meanings are the Ascend profiler's (docs/analyze-pipeline.md, "Communication"): wait
// ratio = wait / (wait + transit), synchronization ratio = sync / (sync + transit), bandwidth =
// transit size / transit time. Sums are over the ops of every step in the export (the time split
// over collectives only: a p2p receive waits for its pipeline stage by design); a field no op of
// the rank gives stays NaN ("not provided" in the report), never 0.
//
// communication_matrix.json lists each op (2023 exports) or each op class (2025: "allreduce-top1",
// "-middle", "-bottom1", "-total"); the classes overlap, so where a rank's file has "-total"
// entries only those are summed. Links are keyed by (group, src, dst, transport) with src / dst
// local to the group, as the export writes them.
#pragma once

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {

void SummarizeCommunication(AnalysisResult& result, const Rules& rules);

}  // namespace optrace::analyze
