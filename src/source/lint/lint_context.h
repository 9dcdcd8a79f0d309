// Internal to the lint rules: what every rule group sees, and how it reports.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "source/lexer/code_structure.h"
#include "source/lexer/diagnostic.h"
#include "source/lexer/include_tree.h"
#include "source/lint/lint.h"
#include "source/lexer/source_set.h"

namespace optrace::source {

namespace index {
class CodeIndex;
class CallGraph;
}  // namespace index

// What the gate verdicts need beyond the findings.
struct GateFacts {
  std::vector<std::string> build_scripts;  // relative to the root
  bool hooked = false;                     // one of them has a hook block
  std::string rewrite_only;                // "file:line `#define ...`" of a `0` TRACE_POINT fallback
  std::vector<std::string> binding_checked;  // G2 layers found in the tree: OpDef, infer, __global__, ...
  std::vector<std::string> binding_missing;
  bool profiling_output = false;             // an OpDef output or a __global__ parameter carries the buffer  // ... and expected but absent (a torch adapter kept elsewhere)
  size_t samples = 0;                      // Python files linted
  size_t saving_samples = 0;               // ... that call save_profiling_data
  size_t spawning_samples = 0;             // ... that hand arguments to spawned workers
  std::string compile_check;               // "2 compile(s) against <sdk>" when lint --compile ran
};

struct LintContext {
  LintContext();
  ~LintContext();
  SourceSet* sources = nullptr;
  std::filesystem::path root;            // findings' paths are relative to it
  std::vector<const SourceFile*> files;  // C/C++ files to lint, path order
  std::optional<IncludeTree> tree;       // from the (first) kernel entry, when there is one
  std::vector<IncludeTree> trees;        // one per kernel entry file
  std::filesystem::path entry_option;    // --entry as given
  std::filesystem::path op_dir;          // empty without --op
  std::vector<std::filesystem::path> python_files;
  std::vector<std::filesystem::path> single_headers;  // optrace_trace.h files in the linted folders (absolute)
  std::vector<std::filesystem::path> include_dirs;
  std::vector<Diagnostic> diagnostics;
  bool gates = false;  // --gates: also report what only a delivery verdict needs (a missing hook)
  GateFacts facts;

  const CodeStructure& Structure(const SourceFile* f);
  // The code index over every entry's include tree, and the call graph of each kernel defined in
  // an entry file; built on first use and shared by the rules.
  const index::CodeIndex& Index();
  const std::vector<index::CallGraph>& Graphs();
  void Report(const SourceFile* f, int line, int column, std::string_view rule, std::string message);
  void Report(const std::string& rel, int line, int column, std::string_view rule, std::string message);

 private:
  std::map<const SourceFile*, std::unique_ptr<CodeStructure>> structures_;
  std::unique_ptr<index::CodeIndex> index_;
  std::unique_ptr<std::vector<index::CallGraph>> graphs_;
};

void CheckLabels(LintContext& ctx);         // label-style event-type root-label depth pairing early-return label-collision
void CheckCompileSafety(LintContext& ctx);  // trace-syntax brace-balance pp-balance literal-closed header-reachable
                                            // index-scope guard-closed
void CheckCoverage(LintContext& ctx, CoreDensity* density);  // coverage-file density-aic density-aiv
void CheckBinding(LintContext& ctx);        // binding-*
void CheckSamples(LintContext& ctx);        // sample-*
void CheckCallGraph(LintContext& ctx);      // root-label across calls, index-group-loop, entry-buffer
void CheckHook(LintContext& ctx, const std::filesystem::path& build_script);  // hook-*
void CheckTraceHeader(LintContext& ctx);    // trace-header-version trace-header-outside
// compile-error compile-inserted compile-unchecked (lint --compile); an SDK or compiler named on
// the command line that cannot be used is an error Status.
Status CheckCompiles(LintContext& ctx, const LintOptions& options, LintReport* report);
// G1..G5 from the findings (already filtered and sorted) and the facts.
std::vector<GateVerdict> JudgeGates(const std::vector<Diagnostic>& diagnostics, const GateFacts& facts, bool op);

}  // namespace optrace::source
