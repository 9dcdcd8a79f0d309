// Coverage rules, on the code index shared with `optrace plan`:
//   coverage-file  a file holding a main-flow phase of a kernel (per-core operator(), Process,
//                  communication, epilogue, big compute blocks; seed 000's list; a traced loop of
//                  such code) on a path the entry calls holds trace points. The phases are the plan's decisions on the
//                  same code: tiling, layout and tile-level helpers, set-up (Init), code called
//                  per element of a loop, and code below a range traced by hand never need marks.
//   coverage-density  the same, warned, for a file whose only main-flow range the plan keeps or
//                  merges by the label count (a kernel at the limit of 30: PlanSite::density_sensitive).
//   density-aic / density-aiv  10 to 30 distinct labels reachable on each core type the kernel
//                  runs on, counted on the instantiated call graph (marks in branches a core
//                  type never takes do not count for it).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "source/index/call_graph.h"
#include "source/index/code_index.h"
#include "source/lint/lint_context.h"
#include "source/plan/plan.h"

namespace optrace::source {
namespace ix = index;
namespace {

void CheckCoverageFiles(LintContext& ctx) {
  // Only a file the kernels' call graphs run through and that holds no trace point can be
  // reported; when there is none, the plan (a second index of the reverted text) is not built.
  std::set<const SourceFile*> unmarked;
  for (const ix::CallGraph& g : ctx.Graphs())
    for (const ix::GraphNode& n : g.nodes()) {
      const SourceFile* f = n.inst.fn->file;
      if (f && std::none_of(f->traces.sites.begin(), f->traces.sites.end(),
                            [](const TraceSite& t) { return !t.in_define; }))
        unmarked.insert(f);
    }
  if (unmarked.empty()) return;
  // The plan reads the sources without the lines optrace inserted (a range instrument added is
  // judged like the plan that proposed it); when there are none it is made on lint's own index.
  bool inserted = false;
  for (const SourceFile* f : ctx.Index().files())
    inserted = inserted || f->text->find("// optrace:") != std::string::npos;
  Result<Plan> plan = Plan{};
  if (inserted) {
    PlanOptions po;
    po.op_dir = ctx.root;
    po.entry = ctx.entry_option;
    po.include_dirs = ctx.include_dirs;
    plan = BuildPlan(po);
  } else {
    std::vector<const SourceFile*> entries;
    for (const IncludeTree& t : ctx.trees) entries.push_back(t.entry);
    plan->op_dir = ctx.root;
    if (PlanOnIndex(*ctx.sources, ctx.Index(), entries, &*plan, &ctx.Graphs()) == 0) return;
  }
  if (!plan.ok()) return;  // the plan's own error (no kernel) is not a coverage finding
  auto uncovered = [&](const PlanSite& s) -> const SourceFile* {
    // A main-flow function phase, or a traced loop / statement of main-flow code (the tile loop of
    // a Process merged into the kernel's range).
    // A main-flow range merged only for density still asks its file for marks: the plan merges it
    // only where other ranges of the file stay, so a file emptied of them is a gap either way.
    bool phase = s.density_merged ||
                 (s.kind == SiteKind::kFunction ? s.decision == Decision::kPhase || s.under_hand_shell
                                                : Inserts(s.decision));
    if (!phase || !s.main_flow || s.outside) return nullptr;
    const SourceFile* f = ctx.sources->Find(s.file);
    if (!f) return nullptr;
    bool has_point = std::any_of(f->traces.sites.begin(), f->traces.sites.end(),
                                 [](const TraceSite& t) { return !t.in_define; });
    return has_point ? nullptr : f;
  };
  // A phase called from an uncovered phase is the same gap: marking the caller (as the plan
  // proposes) covers it, so only the outermost uncovered phases are reported. "Called from" is
  // read on the plan's tree, which holds loops and statements too (a merged loop of a helper
  // under a kernel file emptied of its marks is that file's gap, not the helper's).
  std::set<std::string> reported;
  std::function<void(const PlanNode&, bool)> walk = [&](const PlanNode& n, bool under_gap) {
    const PlanSite* s = n.site >= 0 && static_cast<size_t>(n.site) < plan->sites.size()
                            ? &plan->sites[static_cast<size_t>(n.site)]
                            : nullptr;
    const SourceFile* f = s ? uncovered(*s) : nullptr;
    if (f && !under_gap && reported.insert(s->file).second) {
      std::string via = s->path.empty() ? "" : " the kernel runs through " + s->path;
      // At the label limit the plan keeps or merges a file's only range by the rest of the tree's
      // label count: not certain enough for an error.
      if (s->density_sensitive)
        ctx.Report(f, s->line, 1, "coverage-density",
                   fmt::format("{} holds {}, a main-flow phase{}, but no trace point; the kernel is at the limit of "
                               "{} labels, where the plan keeps or merges this file's only range by how many labels "
                               "the rest of the tree has: mark it, or merge thin ranges elsewhere",
                               f->rel, s->name, via, kDensityMax));
      else
        ctx.Report(f, s->line, 1, "coverage-file",
                   fmt::format("{} holds {}, a main-flow phase ({}){}, but no trace point; add B/E marks at its phase "
                               "boundaries (`optrace plan` proposes them)",
                               f->rel, s->name, s->reason, via));
    }
    for (const PlanNode& c : n.children) walk(c, under_gap || f != nullptr);
  };
  for (const PlanKernel& k : plan->kernels) walk(k.root, false);
}

// Trace marks (B) of a function body with the stream positions they sit at.
std::vector<std::pair<size_t, const TraceSite*>> MarksIn(const ix::FunctionDef& fn) {
  std::vector<std::pair<size_t, const TraceSite*>> out;
  const ix::TokenStream& s = *fn.stream;
  std::map<const SourceFile*, std::map<size_t, const TraceSite*>> by_token;
  for (size_t p = fn.body_open; p <= fn.body_close && p < s.size(); ++p) {
    const ix::StreamToken& st = s[p];
    if (!st.source || !st.tok->Is("TRACE_POINT")) continue;
    auto& m = by_token[st.source];
    if (m.empty())
      for (const TraceSite& t : st.source->traces.sites) m[t.token] = &t;
    auto it = m.find(st.index);
    if (it != m.end() && it->second->event_type == 'B') out.push_back({p, it->second});
  }
  return out;
}

}  // namespace

void CheckCoverage(LintContext& ctx, CoreDensity* density) {
  CheckCoverageFiles(ctx);
  const ix::CodeIndex& index = ctx.Index();
  std::set<std::string> all_aic, all_aiv;
  bool split = false;
  for (const ix::CallGraph& g : ctx.Graphs()) {
    std::set<std::string> aic, aiv;
    for (const ix::GraphNode& n : g.nodes()) {
      const ix::FunctionDef& fn = *n.inst.fn;
      const ix::FunctionBody& body = index.Body(fn);
      for (auto [pos, site] : MarksIn(fn)) {
        int control = body.ControlAt(pos);
        if (control >= 0 && n.control_dead[static_cast<size_t>(control)]) continue;
        unsigned cores = n.CoresAt(control);
        unsigned region = index.RegionCore((*fn.stream)[pos].file, (*fn.stream)[pos].line);
        if (region != ix::kCoreNone) cores &= region;
        if (cores & ix::kCoreAic) aic.insert(site->label);
        if (cores & ix::kCoreAiv) aiv.insert(site->label);
      }
    }
    const ix::FunctionDef& k = *g.root().inst.fn;
    unsigned kc = g.kernel_type().cores;
    if (kc == ix::kCoreBoth) split = true;
    all_aic.insert(aic.begin(), aic.end());
    all_aiv.insert(aiv.begin(), aiv.end());
    constexpr size_t kMin = 10, kMax = 30;
    auto check = [&](const char* rule, const char* core, unsigned bit, size_t n) {
      if (!(kc & bit) || (n >= kMin && n <= kMax)) return;
      std::string who = ctx.Graphs().size() > 1 ? fmt::format("{}: ", k.name) : "";
      ctx.Report(k.file, k.line, k.column, rule,
                 fmt::format("{}{} distinct label(s) reachable on {} paths; expected {} to {} ({})", who, n, core, kMin,
                             kMax, n < kMin ? "add marks at phase boundaries" : "merge thin ranges"));
    };
    // A kernel without any mark is a coverage problem, not a density one.
    if (aic.empty() && aiv.empty()) continue;
    check("density-aic", "AIC", ix::kCoreAic, aic.size());
    check("density-aiv", "AIV", ix::kCoreAiv, aiv.size());
  }
  density->known = true;
  density->split = split;
  density->aic_labels.assign(all_aic.begin(), all_aic.end());
  density->aiv_labels.assign(all_aiv.begin(), all_aiv.end());
}

}  // namespace optrace::source
