// discover: find the ranks' profiler exports under one or more roots.
//
//   OPTRACE_ASSIGN_OR_RETURN(Discovery d, Discover({"prof_root"}, issues));
//
// Recognized (FORMATS.md section 1): torch_npu text export (<x>_ascend_pt/ASCEND_PROFILER_OUTPUT/
// kernel_details.csv), torch_npu db export (ascend_pytorch_profiler_<rank>.db) and msprof
// (PROF_*/mindstudio_profiler_output/op_summary_*.csv). A root may itself be a rank directory.
// Rank ids: profiler_info_<rank>.json, else its "rank_id", else the db file name, else order.
// Errors: a missing root, an empty directory, or no kernel data at all (the message lists
// what was found instead). Duplicate rank ids keep the last directory by path and add an issue.
#pragma once

#include <filesystem>
#include <vector>

#include "analyze/model.h"
#include "core/status.h"

namespace optrace::analyze {

Result<Discovery> Discover(const std::vector<std::filesystem::path>& roots, std::vector<DataIssue>& issues);

}  // namespace optrace::analyze
