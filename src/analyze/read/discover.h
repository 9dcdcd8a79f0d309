// discover: find the ranks' profiler exports under one or more roots.
//
//   OPTRACE_ASSIGN_OR_RETURN(Discovery d, Discover({"prof_root"}, issues));
//
// Recognized (FORMATS.md section 1): torch_npu text export (<x>_ascend_pt/ASCEND_PROFILER_OUTPUT/
// kernel_details.csv), torch_npu db export (ascend_pytorch_profiler_<rank>.db) and msprof
// (PROF_*/mindstudio_profiler_output/op_summary_*.csv). A root may itself be a rank directory.
// Rank ids: profiler_info_<rank>.json, else its "rank_id", else the db file name, else order.
// Errors: a missing root, an empty directory, or no kernel data at all (the message lists
// what was found instead), several captures under the roots without --run (the message lists
// them). Duplicate rank ids within one capture keep the last directory by path and add an issue.
#pragma once

#include <filesystem>
#include <vector>

#include "analyze/model/model.h"
#include "core/status.h"

namespace optrace::analyze {

// `run` (1-based) picks one capture when the roots hold several (capture.h); 0 refuses them with
// the list of captures found.
Result<Discovery> Discover(const std::vector<std::filesystem::path>& roots, std::vector<DataIssue>& issues,
                           int run = 0);

}  // namespace optrace::analyze
