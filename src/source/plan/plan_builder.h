// Internal to the plan room: the Builder that BuildPlan and PlanOnIndex run, one file per step.
//   plan_walk.cc     walk: the call graph from each kernel entry into sites and a plan tree
//   plan_decide.cc   decide: phase, group loop, existing range or skip, per site
//   plan_names.cc    name: labels from the code's own words, made distinct
//   plan_density.cc  top up / trim: each core type's distinct labels into the density target
// plan_builder.cc sequences them (Builder::Finish) and holds the public entry points (plan.h).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/file_io.h"
#include "source/index/call_graph.h"
#include "source/index/code_index.h"
#include "source/index/function_body.h"
#include "source/lexer/include_tree.h"
#include "source/plan/instrument.h"
#include "source/plan/plan.h"
#include "source/plan/plan_words.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace ix = index;
namespace plan_steps {

using ix::CallGraph;
using ix::Control;
using ix::FunctionBody;
using ix::FunctionDef;
using ix::GraphNode;
using ix::TokenStream;

// Names that only say "the work of this class": the class's name is the better word.
inline bool GenericName(const std::string& n) {
  for (const char* g : {"operator()", "Process", "Run", "Execute", "Main", "Launch", "Invoke", "Apply", "Impl",
                        "DoProcess", "ProcessImpl", "Compute"})
    if (n == g) return true;
  return false;
}

// Identifiers that mark the profiling buffer's own code (setup, write-back).
inline bool ProfilingIdentifier(std::string_view s) {
  return s == "GetMoeProfilePtr" || s == "SetMoeProfilePtr" || s == "PROF_SIZE_PER_CORE" || s == "profiling_data" ||
         s == "profilingData" || s == "OPTRACE_KERNEL_BEGIN" || s == "OPTRACE_KERNEL_END" || s == "MoeTracing" ||
         s == "profiling";
}

struct FnFacts {
  std::vector<int> top_loops;  // loop controls with no loop around them in the function
  bool has_loops = false;
  bool has_hot = false;  // calls a sync/communication primitive
  int statements = 0;
  int locals = 0;  // local declarations (object set-up, not work)
  int tokens = 0;
  std::vector<std::string> existing;  // B labels already in the body
};

struct SiteInfo {
  const FunctionDef* fn = nullptr;  // function site: the function; others: the function holding the site
  int control = -1;                 // loop sites: the loop control
  bool root = false;
  // Some path reaching it runs per element (per tile) of a plain loop: a mark inside would repeat
  // per tile on every core, so the loop is traced as a whole instead.
  bool per_element = false;
  bool reached = false;
  std::string per_element_where;
  bool per_core_entry = false;  // reached as an AIC- or AIV-only specialisation of a both-core caller
  int resolved_calls = 0;       // calls into the index (not constructors) from any instance
  std::string loop_class;       // group, spin, hot, plain, none
  std::string tile_work;        // plain loops: the work it runs per tile that would have been a phase
  std::string loop_var;
  bool loop_var_integer = false;
  std::set<int> kernels;
};

class Builder {
 public:
  Builder(const ix::CodeIndex& index, Plan& plan) : index_(index), plan_(plan) {}

  void AddKernel(const FunctionDef& kernel);

  void Finish();

 private:
  template <typename F>
  void ForEach(const PlanNode& n, F f) {
    f(n);
    for (const PlanNode& c : n.children) ForEach(c, f);
  }

  const FnFacts& Facts(const FunctionDef& fn);

  static bool DoWhileZero(const TokenStream& s, const Control& c);

  // The file and line a function site is planned at: the name, or the '{' of a #define body.
  void FunctionLocation(const FunctionDef& fn, std::string* file, int* line, bool* in_macro);

  int AddSite(SiteKind kind, const std::string& file, int line, const FunctionDef& fn, std::string name);

  int FunctionSite(const FunctionDef& fn);

  int LoopSite(const FunctionDef& fn, int control);

  // The word of a function: its name's words, or for generic names (Process, operator()) its
  // class's, with a first word shared with the kernel's name dropped. "" when the class is the
  // kernel itself (its range would be the kernel's: merged).
  std::string FunctionWord(const FunctionDef& fn, const ix::ClassDef* cls);

  void ClassifyLoop(const FunctionDef& fn, int control, int site);

  // What a plain loop writes: the first variable assigned (`acc_ += ...`, `ws.routeWeight[i] = ...`,
  // `out.SetValue(...)`), as a word; "" when it writes nothing with a name of two letters or more.
  static std::string WrittenWord(const TokenStream& s, const Control& c, const std::string& var);

  void Touch(int site, unsigned cores, const std::string& role, bool per_element, const std::string& where);

  PlanNode* AddChild(PlanNode& parent, int site, unsigned cores, const std::string& role, const std::string& variant,
                     int at_line);

  // The outermost loop control around `control` in the function, -1 if none.
  int TopLoop(const FunctionBody& body, const TokenStream& s, int control);

  // Loops between `control` and the function body: any that is not a traced group loop makes
  // what runs inside it per element.
  bool InPlainLoop(const FunctionBody& body, const TokenStream& s, int control, const std::map<int, size_t>& loop_child,
                   const PlanNode& node);

  void Expand(const CallGraph& g, int n, PlanNode& node, std::vector<const FunctionDef*>& stack, bool per_element);

  // "wait-vec1-done" for CrossCoreWaitFlag(vec1Done): the flag's own name says what is awaited.
  std::string StatementWord(const TokenStream& s, const ix::CallSite& c, const std::string& hw);

  void NameLoopFromCall(int loop_site, const FunctionDef& callee, const ix::ClassDef* cls);

  std::vector<std::string> IndexArgs(int site_index);

  void Decide();

  Status Placeable(const PlanSite& probe);

  // A phase the kernel's main flow runs through (seed 000: per-core operator(), Process,
  // communication, epilogue, big compute blocks), as opposed to set-up (Init, tiling reads,
  // buffer allocation) and helpers.
  bool MainFlow(const FunctionDef& fn, const FnFacts& f, const SiteInfo& info);

  // Below a range traced by hand (other than the root) nothing is added: its author chose the
  // granularity there.
  void SkipUnderExisting(const PlanNode& node, bool under, bool shell = false);

  // What a skipped helper calls is part of that helper: not traced either.
  void SkipUnderSkipped(const PlanNode& node, bool under);

  // Labels: the nearest traced ancestor's label (without its core suffix) as prefix, then the
  // site's own word, then " aic"/" aiv" in a split kernel. A site reached under several
  // ancestors keeps only the prefix they share (a helper called from two phases belongs to
  // neither). Computed to a fixed point, since an ancestor's label is itself a prefix.
  struct Occurrence {
    std::string prefix;
    int level = 0;
    std::string role;  // a new, short AIV role at this site ("" none)
    unsigned cores = 0;
  };

  void Label();

  // Two functions of different classes under one label (`CamMoeDistributeDispatch::Init` and
  // `CamMoeDistributeCombine::Init`, both "init aiv") would pool unrelated ranges: each gets the
  // last word of its class name where the classes differ ("dispatch-init", "combine-init").
  bool DistinguishSameLabels();

  // Whether sites a and b only run in different executions: different kernels, or where their
  // paths in the plan tree part, calls in exclusive branches (if/else, switch cases,
  // TILING_KEY_IS conditions).
  bool Alternatives(int a, int b);

  static bool ExclusiveControls(const FunctionBody& body, const TokenStream& s, int ca, int cb);

  void LabelFixedPoint();

  static std::string CommonWords(const std::string& a, const std::string& b);

  static std::string StripSuffix(const std::string& label);

  void Walk(const PlanKernel& k, const PlanNode& node, const std::string& prefix, int level,
            const std::string& parent_role, std::map<int, std::vector<Occurrence>>* occ);

  void Count(const PlanKernel& k, std::set<std::string>* aic, std::set<std::string>* aiv);

  bool InKernel(const PlanKernel& k, int site);

  // Adds plain loops, largest first, while a core type is under the target and none goes over.
  void TopUp(size_t ki);

  // Over the target: merge the deepest ranges first (signals before others, then the smallest),
  // so the structure near the root stays and detail goes; the root and per-core entries stay.
  void TrimDown(size_t ki);

  // After TrimDown: flags the last main-flow range of each file (PlanSite::density_sensitive) of
  // a core type whose labels before trimming were `before_aic` / `before_aiv`.
  void MarkDensitySensitive(size_t ki, size_t before_aic, size_t before_aiv);

  void Summarize(PlanKernel& k);

 public:
  const SourceSet* sources_ = nullptr;
  const std::vector<CallGraph>* graphs_ = nullptr;  // already built on the same index (lint's)

 private:
  const ix::CodeIndex& index_;
  Plan& plan_;
  int kernel_ = 0;
  std::vector<std::string> kernel_words_;
  std::string kernel_name_;
  std::vector<std::string> path_;
  std::vector<SiteInfo> info_;
  std::map<std::string, int> site_by_key_;
  std::map<const FunctionDef*, FnFacts> facts_;
  std::map<int, int> loop_word_size_;
  std::map<const SourceFile*, std::unique_ptr<CodeStructure>> structures_;
};

}  // namespace plan_steps
}  // namespace optrace::source
