// The rule table: ids, severities and one-line fixes (docs/source.md mirrors it).
#include "source/lint/lint.h"

namespace optrace::source {

const std::vector<LintRule>& AllLintRules() {
  static const std::vector<LintRule> kRules = [] {
    std::vector<LintRule> rules = {
      {"hook-installed", Severity::kError, "hook",
       "the operator's build script runs the point-map hook (checked with --gates)",
       "optrace hook install --script <build script>"},
      {"hook-modify", Severity::kError, "hook",
       "a tree whose TRACE_POINT is a `0` fallback has a hook that rewrites the marks into ids (scan --modify)",
       "optrace hook install --script <build script> --modify (reinstalling replaces the block)"},
      {"label-style", Severity::kError, "labels", "labels are lowercase words (a-z, 0-9, '-') separated by single spaces",
       "rename the label, e.g. \"Dispatch_Send\" -> \"dispatch-send\""},
      {"event-type", Severity::kError, "labels", "the second TRACE_POINT argument is \"B\" or \"E\"",
       "use \"B\" to open a range and \"E\" to close it"},
      {"root-label", Severity::kError, "labels", "the outermost range is \"processing\" and it is never nested",
       "wrap the kernel body in TRACE_POINT(\"processing\", \"B\") ... (\"processing\", \"E\")"},
      {"depth", Severity::kError, "labels", "a label has at most 7 levels (processing + 6 words); ranges nest at most 7 deep",
       "merge deep levels into their level-7 ancestor"},
      {"pairing", Severity::kError, "labels", "every B has an E of the same label in the same block, nested properly",
       "add the missing E (or B), or swap the E marks so ranges close innermost first"},
      {"early-return", Severity::kError, "labels", "no return leaves a range open; no break/continue leaves a range opened in the loop body open",
       "emit the E marks of open ranges before the return (break/continue)"},
      {"label-collision", Severity::kError, "labels", "distinct labels never share a 31-bit label id",
       "rename one of the two labels"},
      {"trace-syntax", Severity::kError, "compile", "TRACE_POINT(\"label\", \"B\"|\"E\") with two string literals",
       "write the label and the type as string literals"},
      {"brace-balance", Severity::kError, "compile", "(), [] and {} are balanced in active code",
       "close the bracket opened at the reported location"},
      {"pp-balance", Severity::kError, "compile", "#if/#ifdef/#ifndef, #else, #elif and #endif pair up",
       "add the missing #endif or remove the stray directive"},
      {"literal-closed", Severity::kError, "compile", "comments and string literals are closed",
       "close the comment or literal"},
      {"header-reachable", Severity::kError, "compile", "a file calling MoeTracing reaches a header that defines it",
       "#include the operator's *_base.h or \"optrace/trace.h\" before the first MoeTracing"},
      {"index-scope", Severity::kError, "compile", "index arguments of MoeTracing are declared in an enclosing scope",
       "pass a variable visible at the call, e.g. the loop index of the enclosing loop"},
      {"compile-error", Severity::kError, "compile",
       "with --compile: each kernel entry compiles, per core type, in CANN's CPU-debug mode against the SDK",
       "fix the code the compiler rejects (the message names the core type; rerun the command it prints)"},
      {"compile-inserted", Severity::kError, "compile",
       "with --compile: the lines optrace inserted or rewrote, and optrace's device headers, compile",
       "revert with 'optrace instrument --revert' and report the message; or fix the inserted line by hand"},
      {"compile-unchecked", Severity::kNote, "compile",
       "with --compile: the compile check ran (a CANN SDK, its CPU-debug headers and a host compiler were found)",
       "set ASCEND_HOME_PATH or pass --sdk DIR (a CANN toolkit with tools/tikicpulib), and --cxx COMPILER"},
      {"macro-budget", Severity::kWarning, "compile",
       "macro expansion stays within its token budget (4M tokens per file, 12M per tree)",
       "check the macros the file uses: one that expands exponentially is read unexpanded past the budget"},
      {"stack-buffer", Severity::kWarning, "compile",
       "an AscendC profiling buffer on the AI core stack is at most 2048 words (16 KiB of the 32 KiB v220 stack)",
       "lower PROF_SIZE_PER_CORE, or record in GM: ENABLE_MOE_PROFILING_GM_BUFFER 1 with OPTRACE_KERNEL_BEGIN_GM(profiling)"},
      {"index-group-loop", Severity::kError, "labels",
       "a range opened per iteration of an expert-group or stage loop passes the loop index",
       "pass the loop variable: MoeTracing(TRACE_POINT(\"label\", \"B\"), groupIdx)"},
      {"guard-closed", Severity::kError, "compile",
       "every #if ENABLE_MOE_PROFILING guard is closed, in the block it was opened in",
       "put the #endif in the same block as its #if"},
      {"coverage-file", Severity::kError, "coverage",
       "every reachable file that implements an AIC/AIV phase holds trace points",
       "add B/E marks at the phase boundaries of the reported function"},
      {"density-aic", Severity::kWarning, "coverage", "10 to 30 distinct labels are reachable on AIC paths",
       "add marks at AIC phase boundaries (below 10) or merge thin ranges (above 30)"},
      {"density-aiv", Severity::kWarning, "coverage", "10 to 30 distinct labels are reachable on AIV paths",
       "add marks at AIV phase boundaries per role (below 10) or merge thin ranges (above 30)"},
      {"binding-opdef-last", Severity::kError, "binding", "the profiling output is the last output in the OpDef",
       "move this->Output(\"profiling_data\") after every other Output"},
      {"binding-infer", Severity::kError, "binding", "the infer functions set the profiling output's shape and dtype, and the dtype is DT_INT64",
       "set GetOutputShape(<index>) and SetOutputDataType(<index>, ge::DT_INT64) for it"},
      {"binding-kernel-order", Severity::kError, "binding",
       "the __global__ GM_ADDR list puts profiling after the main outputs, in OpDef order",
       "reorder the kernel parameters to match the OpDef outputs"},
      {"binding-init-order", Severity::kError, "binding",
       "the kernel class's Init gets the profiling buffer in its profiling parameter, and no two buffers swapped",
       "pass the profiling buffer (and every GM_ADDR) at the position Init's definition declares it"},
      {"binding-init-names", Severity::kWarning, "binding",
       "Init's buffer arguments agree with its parameter names and with the __global__ order of the outputs (a heuristic: names are not proof)",
       "check Init's definition; pass the buffers in the order it declares them"},
      {"binding-pybind", Severity::kError, "binding",
       "pybind passes profiling to EXEC_NPU_CMD or a direct aclnn*GetWorkspaceSize call last and returns it last",
       "allocate the profiling tensor, pass it after the main outputs and return it last"},
      {"binding-example", Severity::kWarning, "binding",
       "C++ aclnn example programs (a main() calling aclnn*GetWorkspaceSize) pass the profiling tensor after the outputs",
       "create an int64 aclTensor of [blocks * 3 * PROF_SIZE_PER_CORE], pass it after the outputs, save it after a synchronize"},
      {"binding-aclnn", Severity::kError, "binding", "hand-written aclnn_* signatures put profiling after the outputs",
       "make the aclTensor* profiling parameter the last output, before workspaceSize/executor"},
      {"binding-unchecked", Severity::kWarning, "binding",
       "the binding layers lie in the operator tree (infer functions, launches); when they do not, G2 is not checkable here",
       "check the layer outside the tree by hand, or lint the directory that holds it"},
      {"binding-required-null", Severity::kError, "binding", "REQUIRED outputs are never given nullptr/nullopt",
       "pass a real tensor, or declare the output OPTIONAL"},
      {"entry-buffer", Severity::kError, "binding",
       "a kernel that records marks sets up its per-core buffer and writes it back in its entry",
       "call OPTRACE_KERNEL_BEGIN() first and OPTRACE_KERNEL_END(profiling_data) last in the __global__ function"},
      {"no-profiling-op", Severity::kError, "binding",
       "profiling is added to the operator itself: no second *_profiling / *_with_profiling op or torch.ops entry",
       "delete the second op and add profiling_data as the last output of the original one"},
      {"sample-sync", Severity::kError, "sample", "save_profiling_data runs after a device synchronize",
       "call torch_npu.npu.synchronize() (or torch.cuda.synchronize()) before saving"},
      {"sample-output", Severity::kError, "sample",
       "a sample that calls the operator unpacks its profiling output and saves it",
       "unpack one more output (`*outs, profiling_data = op(...)`) and call save_profiling_data after a synchronize"},
      {"sample-path-resolve", Severity::kError, "sample",
       "path-like arguments handed to spawn (args=...) come from variables last assigned through .expanduser().resolve()",
       "resolve the path in the parent process before multiprocessing.spawn"},
    };
    // The seed's delivery gates: G1 build hook, G2 output binding, G3 full build (labels,
    // compile safety and coverage are its static pre-checks), G4 sample, G5 paths.
    for (LintRule& r : rules) {
      std::string_view g = r.group, id = r.id;
      r.gate = g == "hook" ? "G1" : g == "binding" ? "G2" : g == "sample" ? (id == "sample-path-resolve" ? "G5" : "G4") : "G3";
    }
    return rules;
  }();
  return kRules;
}

const LintRule* FindLintRule(std::string_view id) {
  for (const LintRule& r : AllLintRules())
    if (id == r.id) return &r;
  return nullptr;
}

}  // namespace optrace::source
