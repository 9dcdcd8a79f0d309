// The single-step inspector data of report.html: per rank its steps and, for a bounded set of
// them, every device event (lane, stream, operator strings, pipeline split, bound, cost), the
// bubbles inside the step and the roofline inputs, in a compact table-indexed encoding.
//
//   nlohmann::json insp = BuildStepInspector(result, &efficiency, rules.thresholds);
//   view["inspector"] = insp;   // report_view.cc; rendered by page/inspector.js #inspector
//
// Which steps carry events: per rank the slowest complete step, the median complete step and
// the first step, then the others round-robin over the ranks while the total stays within
// `max_events`; the rest are listed with "embedded": false (the page says why). `eff` may be
// null (no costs, no peaks). Only ranks with a device timeline (RankTable::has_timeline) appear.
// Shape (for docs/analyze.md, "report.html data"):
//   {max_events, embedded_events, total_events, lanes[], strings{names,types,shapes,dtypes,
//    op_types,bounds}, pipe_fields[], costs[{family,dtype,peak_key,flops,bytes,intensity,dims,
//    note}], peaks{hardware,tflops{key:v|null},hbm_bandwidth_gbps}|null,
//    ranks[{rank,steps[{step,start_us,wall_us,complete,class_id,events,embedded,pick,
//    bubbles[[start_us,dur_us]],ev}]}]}
// `ev` is one string: events separated by ';', each "start_us,dur_us,stream,lane,name,type,
// in_shapes,out_shapes,dtypes,op_type,cost,bound" then (field index into pipe_fields, us) pairs
// for the pipeline fields present and non-zero. Event times are microseconds from the step start;
// indexes point into the tables above (cost -1: not modelled). A string, not an array per event:
// the page decodes only the step it shows, and 60k events take the memory of their text.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <nlohmann/json.hpp>

#include "analyze/model/model.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {
struct Efficiency;
}  // namespace optrace::analyze

namespace optrace::analyze::report {

// Events embedded in report.html: full mode / fast mode (about 110 bytes of page per event).
inline constexpr size_t kInspectorMaxEvents = 60000;
inline constexpr size_t kInspectorMaxEventsFast = 20000;

nlohmann::json BuildStepInspector(const AnalysisResult& r, const Efficiency* eff, const Thresholds& t,
                                  size_t max_events = kInspectorMaxEvents);

// The same inspector as compact JSON text (what nlohmann's dump writes for BuildStepInspector's
// value, byte for byte), handed to `out` a piece at a time: report.html streams it, so only one
// step's event text is held at once (20k events are ~2 MB of text, 60k ~7 MB).
void WriteStepInspector(const AnalysisResult& r, const Efficiency* eff, const Thresholds& t, size_t max_events,
                        const std::function<void(std::string_view)>& out);

}  // namespace optrace::analyze::report
