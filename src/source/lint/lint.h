// `optrace lint`: static checks of instrumentation and operator binding (gates G1-G5 of the
// trace seed), each finding with file:line:column and a stable rule id (see AllLintRules()).
//
//   LintOptions o;
//   o.paths = {"examples/moe_dispatch_combine"};
//   o.op_dir = "examples/moe_dispatch_combine";       // enables binding and sample rules
//   OPTRACE_ASSIGN_OR_RETURN(LintReport r, RunLint(o));
//   for (const Diagnostic& d : r.diagnostics) puts(FormatDiagnostic(d).c_str());
//
// Findings can be silenced in the source with a comment naming the rule:
//   `// optrace-lint: disable=coverage-file` (whole file) or
//   `// optrace-lint: disable-line=index-scope` (that line and the next).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "source/compile/compile_check.h"
#include "source/lexer/diagnostic.h"

namespace optrace::source {

struct LintRule {
  const char* id;
  Severity severity;
  const char* group;    // hook, labels, coverage, compile, binding, sample
  const char* summary;  // what it checks
  const char* fix;      // one line: how to fix a finding
  const char* gate = "";  // G1..G5: the seed's delivery gate a finding breaks
};

// Every rule, in documentation order. Ids are stable.
const std::vector<LintRule>& AllLintRules();
const LintRule* FindLintRule(std::string_view id);

struct LintOptions {
  std::vector<std::filesystem::path> paths;  // files or directories (C/C++/CUDA and Python)
  std::filesystem::path op_dir;              // operator project: op_host/ op_kernel/ pybind/ examples/ ...
  std::filesystem::path entry;               // kernel entry file; default: found in op_kernel/ or paths
  std::vector<std::filesystem::path> include_dirs;
  bool gates = false;                        // judge the seed's delivery gates G1-G5 (LintReport::gates)
  std::filesystem::path build_script;        // the team's build script; default: compile*.sh/build*.sh in op_dir
  // The compile check (rules compile-*): each kernel entry compiled per core type in CANN's
  // CPU-debug mode against `sdk` (default: ASCEND_HOME_PATH), with `cxx` (default: $CXX, clang++, g++).
  bool compile = false;
  std::filesystem::path sdk;
  std::string cxx;
  int npu_arch = 2201;
};

enum class GateState { kSatisfied, kNotSatisfied, kNotCheckable };
const char* GateStateName(GateState s);  // "satisfied", "not satisfied", "not checkable statically"

struct GateVerdict {
  std::string id;      // G1..G5
  std::string title;   // "build hook", "output binding", ...
  GateState state = GateState::kNotCheckable;
  std::string reason;  // one line: why, and what to do next
  std::vector<size_t> findings;  // indices into LintReport::diagnostics
};

struct CoreDensity {
  bool known = false;  // false: no entry file, density not computed
  bool split = false;  // the kernel has AIC- or AIV-specific code (else both lists are equal)
  std::vector<std::string> aic_labels, aiv_labels;
};

struct LintReport {
  std::string root;  // diagnostics' paths are relative to it
  std::string entry;  // relative entry file, "" when none
  std::vector<Diagnostic> diagnostics;
  size_t files_checked = 0;
  size_t lines_checked = 0;
  size_t trace_points = 0;
  CoreDensity density;
  std::vector<GateVerdict> gates;  // G1..G5 with LintOptions::gates, else empty
  std::vector<std::string> unresolved_includes;  // quoted includes found nowhere (IncludeTree)
  std::vector<std::string> includes_found_by_name;  // found by name in the tree (IncludeTree::FoundByName)
  std::optional<CompileCheckReport> compile;     // with LintOptions::compile, when the check ran

  size_t Count(Severity s) const;
};

Result<LintReport> RunLint(const LintOptions& options);

// Output formats. Text: one line per finding, then a summary line.
std::string FormatLintText(const LintReport& report);
std::string FormatLintJson(const LintReport& report);
std::string FormatLintSarif(const LintReport& report);
// "note: N #include \"...\" not found ..." for includes that resolve nowhere ("" for none).
std::string UnresolvedIncludesNote(const std::vector<std::string>& unresolved);
// The gate of a rule id ("" for unknown ids).
std::string_view GateOfRule(std::string_view rule);

}  // namespace optrace::source
