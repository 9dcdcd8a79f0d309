// The profiling chain `instrument` adds when an operator has no profiling output yet (seed 000's
// default delivery, mode B): every layer that lists the operator's outputs gets `profiling_data`
// as the last data output, and the kernel entry sets up and writes back the per-core buffer.
//
//   OpDef        this->Output("profiling_data").ParamType(REQUIRED).DataType({ge::DT_INT64, ...})...
//   infer        GetOutputShape(N) -> [128 blocks * 3 cores * PROF_SIZE_PER_CORE], SetOutputDataType(N, DT_INT64)
//   __global__   GM_ADDR profiling_data after the main outputs (the last parameter of a direct launch)
//   entry body   OPTRACE_KERNEL_BEGIN(); ... OPTRACE_KERNEL_END(profiling_data); (before every return too)
//   class Init   profiling after the outputs, where the entry passes them (one direct Init call)
//   adapter      EXEC_NPU_CMD(..., profiling_data) with the tensor allocated and returned last
//   aclnn        aclTensor *profilingData after the outputs of hand-written aclnn*GetWorkspaceSize
//   launcher     <<<>>> / ACLRT_LAUNCH_KERNEL / EXEC_KERNEL_CMD get the buffer last
//
// A layer whose form is not recognised is left alone and listed in `manual` with file:line and
// what to add by hand; nothing is guessed. Every edit is a line insertion or an in-place line
// change that --revert undoes exactly.
//
//   ChainPlan c = PlanProfilingChain(plan, sources);   // sources: reverted texts of the op tree
//   for (const std::string& m : c.manual) warn(m);
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "source/plan/instrument.h"
#include "source/plan/plan.h"
#include "source/lexer/source_set.h"

namespace optrace::source {

struct FileEdits {
  std::vector<SiteMarks::Line> lines;  // inserted lines
  std::vector<SiteMarks::Exit> exits;  // statements before returns (the kernel end)
  // In-place changes: line -> (byte offset in the line, text inserted there).
  std::map<int, std::vector<std::pair<size_t, std::string>>> inserts;
};

struct ChainPlan {
  bool applies = false;                    // the operator had no profiling output: the chain is added
  std::map<std::string, FileEdits> edits;  // by file, relative to the op directory
  std::vector<std::string> done;           // what is edited, "file:line: ..."
  std::vector<std::string> manual;         // what to add by hand, "file:line: ..."
};

// Slots the infer shape reserves: 128 blocks x (1 AIC + 2 AIV) cores x PROF_SIZE_PER_CORE words.
inline constexpr int kInferMaxBlocks = 128, kInferCoresPerBlock = 3, kDefaultProfSizePerCore = 2048;

ChainPlan PlanProfilingChain(const Plan& plan, const SourceSet& sources);

}  // namespace optrace::source
