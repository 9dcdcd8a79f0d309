// `optrace plan`: for each kernel entry of an operator, the call tree the kernel really runs
// (followed through functors, template instantiations, aliases, member objects and macros by
// the code index, source/index/), a decision per node (instrument as a phase, keep as a hot
// semantic, merge into the parent, skip) and labels from the code's own words, following seed
// 000's naming and density rules.
//
//   PlanOptions o;
//   o.op_dir = "examples/moe_dispatch_combine";          // kernels found by __global__
//   OPTRACE_ASSIGN_OR_RETURN(Plan plan, BuildPlan(o));
//   std::string text = FormatPlanText(plan);             // or PlanToJson(plan) for `instrument --plan`
//
// Sites are where instrument puts B/E marks: a function body, a loop body (per iteration, with
// the loop index), a whole loop, or one statement (a sync/wait call). Lines refer to the source
// with optrace-inserted lines removed, so a plan made before or after `instrument` is the same.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "source/lexer/source_set.h"

namespace optrace::source {

enum class SiteKind { kFunction, kLoopBody, kLoop, kStatement };
enum class Decision { kPhase, kHot, kMerge, kSkip, kExisting };

const char* SiteKindName(SiteKind k);   // "function", "loop-body", "loop", "statement"
const char* DecisionName(Decision d);   // "phase", "hot", "merge", "skip", "existing"
bool ParseSiteKind(std::string_view s, SiteKind* k);
bool ParseDecision(std::string_view s, Decision* d);
// True when instrument inserts marks for the decision.
inline bool Inserts(Decision d) { return d == Decision::kPhase || d == Decision::kHot; }

// Core types as bits (the code index's CoreMask values).
inline constexpr unsigned kPlanAic = 1, kPlanAiv = 2;
std::string PlanCoreName(unsigned cores);  // "AIC", "AIV", "AIC+AIV"

struct PlanSite {
  int id = 0;
  SiteKind kind = SiteKind::kFunction;
  std::string file;  // relative to the op directory
  int line = 0;      // function: its name (in a #define: its '{'); loop: the keyword; statement: its first token
  bool in_macro = false;          // the function is written in a #define (marks become continuation lines)
  std::string name;  // Kernel::operator()<AscendC::AIC>, "for groupIdx", "AscendC::SyncAll"
  unsigned cores = 0;             // bits: kPlanAic, kPlanAiv
  std::set<std::string> roles;    // AIV roles it runs under ("send", "recv")
  Decision decision = Decision::kSkip;
  std::string reason;
  std::string label;               // when instrumented or existing
  std::vector<std::string> index;  // MoeTracing arguments after the point: {"g"} or {"0", "groupIdx"}
  int depth = 0;                   // levels of the label, processing = 1
  bool optional = false;           // a plain loop, traced only when the density target needs it
  bool outside = false;            // the file is outside the operator directory: never edited
  // Skipped only because a hand range in a shell that just forwards to it covers it (one B/E
  // around the call in the entry shell): instrument keeps the hand granularity, lint's coverage
  // still counts it as a gap.
  bool under_hand_shell = false;
  int tokens = 0;                  // size of the range, for choosing optional sections
  std::string word;                // the label's own word, before prefix and core suffix
  bool main_flow = false;          // a main-flow phase (per-core entry, Process, communication, group loops):
                                   // its file must hold marks (lint's coverage-file)
  std::string path;                // how the kernel reaches it: "entry -> A::Process -> B::operator()<AIC>"
  // Merged by the density step (to keep its core type at the target), not for what the code is,
  // while other ranges of its file stay: a main-flow one still asks its file for marks, which
  // those ranges give. (Past the hard maximum the last range of a file may go too: not set then.)
  bool density_merged = false;
  // The only range of its file left, main flow, in a kernel whose labels came to the hard maximum
  // (within kDensitySlack): past the maximum the density step merges such ranges too, so whether it
  // stays depends on how many labels the rest of the tree has (one rename elsewhere can keep or
  // drop it). Lint's verdict on its file without marks is then a warning (coverage-density).
  bool density_sensitive = false;
};

struct PlanNode {
  int site = -1;    // index into Plan::sites
  int calls = 1;    // call sites merged into this node
  int at_line = 0;  // line of the call (or loop) in the parent's function: children are in this order
  unsigned cores = 0;
  std::string role;
  std::string variant;  // template arguments of this instantiation ("AscendC::AIC"), "" if none
  std::vector<PlanNode> children;
};

struct CoreLabels {
  std::vector<std::string> aic, aiv;
};

// One kernel entry (a `__global__` function) and its planned tree.
struct PlanKernel {
  std::string entry;       // file, relative to op_dir
  std::string function;    // the kernel's name
  int line = 0;
  unsigned cores = 3;      // core types it runs on (bits)
  std::string core_source;  // "KERNEL_TYPE_MIX_AIC_1_2", or why it was inferred
  bool split = false;      // AIC- and AIV-specific code: labels carry " aic" / " aiv"
  PlanNode root;
  CoreLabels labels;       // distinct labels per core type (new and existing)
  int max_depth = 0;
};

struct Plan {
  std::filesystem::path op_dir;  // absolute
  std::vector<PlanKernel> kernels;
  std::vector<PlanSite> sites;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // files reached outside the operator directory, unresolved calls, ...

  // Files (relative) holding at least one site whose decision inserts or keeps marks.
  std::set<std::string> TracedFiles() const;
};

inline constexpr int kDensityMin = 10, kDensityMax = 30, kTargetMin = 15, kTargetMax = 20, kMaxLevels = 7;
// How near the hard maximum a kernel's labels (before trimming) make its files' last main-flow
// ranges density_sensitive: an edit of a label or two elsewhere must not flip lint's error.
inline constexpr int kDensitySlack = 2;

struct PlanOptions {
  std::filesystem::path op_dir;
  std::filesystem::path entry;  // empty: every kernel entry (.cpp/.cc/.cu/.asc with __global__) under op_dir
  std::vector<std::filesystem::path> include_dirs;
};

Result<Plan> BuildPlan(const PlanOptions& options);

namespace index {
class CodeIndex;
class CallGraph;
}  // namespace index
// The plan of the kernels defined in `entry_files`, on an index already built over `set` (lint
// shares its own, and its call graphs, when the sources hold no optrace-inserted lines).
// Returns the kernels planned.
int PlanOnIndex(const SourceSet& set, const index::CodeIndex& index, const std::vector<const SourceFile*>& entry_files,
                Plan* plan, const std::vector<index::CallGraph>* graphs = nullptr);

std::string FormatPlanText(const Plan& plan);
// The JSON plan (schema_version 2, docs/plan.md); `instrument --plan` reads it back.
std::string PlanToJson(const Plan& plan);
// Reads a JSON plan; errors name `path` and the offending site.
Result<Plan> PlanFromJson(std::string_view json, const std::string& path);

}  // namespace optrace::source
