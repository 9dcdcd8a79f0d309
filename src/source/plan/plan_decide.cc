// Plan step 2, decide: per site, a phase range, a group loop, an existing range kept, or skip.
#include "source/plan/plan_builder.h"

#include <map>

namespace optrace::source {

namespace plan_steps {

void Builder::Decide() {
  for (size_t i = 0; i < plan_.sites.size(); ++i) {
    PlanSite& s = plan_.sites[i];
    SiteInfo& info = info_[i];
    const FnFacts& owner = Facts(*info.fn);
    if (s.cores == 0) s.cores = 3;
    if (info.root) {
      // "processing" opened by hand anywhere the kernel runs: one per core path, never a second.
      std::string opener;
      for (size_t j = 0; j < plan_.sites.size() && opener.empty(); ++j) {
        if (plan_.sites[j].kind != SiteKind::kFunction || !info_[j].reached) continue;
        bool shared = false;
        for (int kk : info.kernels) shared = shared || info_[j].kernels.count(kk);
        const auto& ex = Facts(*info_[j].fn).existing;
        if (shared && std::find(ex.begin(), ex.end(), "processing") != ex.end()) opener = plan_.sites[j].name;
      }
      if (!opener.empty()) {
        s.decision = Decision::kExisting;
        s.label = "processing";
        s.reason = fmt::format("already traced: \"processing\" opens in {}", opener);
      } else {
        s.decision = Decision::kPhase;
        s.reason = "kernel entry: the root range";
      }
      s.word = "processing";
      continue;
    }
    if (s.kind == SiteKind::kFunction) {
      const FunctionDef& fn = *info.fn;
      const FnFacts& f = owner;
      if (s.word.empty()) s.word = FunctionWord(fn, fn.owner);
      std::string hot = HotNameWord(fn.name);
      bool forwards =
          info.resolved_calls > 0 && !f.has_loops && !f.has_hot && f.statements - f.locals - info.resolved_calls <= 1;
      if (!f.existing.empty()) {
        s.decision = Decision::kExisting;
        s.label = f.existing.front();
        s.reason = fmt::format("already traced: {} range(s) in the body, kept", f.existing.size());
      } else if (info.per_element) {
        s.decision = Decision::kSkip;
        s.reason =
            fmt::format("called per element inside a loop ({}); the loop is traced instead", info.per_element_where);
      } else if (!fn.returns_void && !f.has_loops && !f.has_hot) {
        s.decision = Decision::kSkip;
        s.reason = "helper returning a value (no loop, sync or communication)";
      } else if (IsSetUpName(fn.name) && !f.has_loops && !f.has_hot && info.resolved_calls == 0 && f.statements < 15 &&
                 !info.per_core_entry) {
        s.decision = Decision::kSkip;
        s.reason = fmt::format(
            "set-up of a few values ({} statements, no loop, call or sync): part of its caller's range", f.statements);
      } else if (forwards && !info.per_core_entry) {
        s.decision = Decision::kMerge;
        s.reason = "thin wrapper: only forwards to its callees";
      } else if (s.tokens < 40 && !f.has_loops && !f.has_hot && info.resolved_calls == 0) {
        s.decision = Decision::kSkip;
        s.reason = fmt::format("small helper ({} tokens, no loop or sync)", s.tokens);
      } else if (s.word.empty() && info.per_core_entry) {
        // The kernel's own class on one core type: named after the kernel.
        s.word = NameWord(fn.owner ? fn.owner->name : kernel_name_);
        std::vector<std::string> w = NameWords(fn.owner ? fn.owner->name : kernel_name_);
        if (w.size() > 2) s.word = w[0] + "-" + w[1];
        s.decision = Decision::kPhase;
        s.main_flow = true;
        s.reason = "per-core entry of the kernel class";
      } else if (s.word.empty()) {
        s.decision = Decision::kMerge;
        s.reason = "the kernel's own class: its range is the kernel's";
      } else {
        s.decision = Decision::kPhase;
        s.main_flow = MainFlow(fn, f, info);
        s.reason = info.per_core_entry ? "per-core entry of the kernel class"
                   : !hot.empty()      ? fmt::format("phase with hot semantics ({})", hot)
                   : f.has_loops       ? fmt::format("phase: {} top-level loop(s)", f.top_loops.size())
                                       : fmt::format("phase: {} statements", f.statements);
      }
      continue;
    }
    if (!owner.existing.empty()) {
      s.decision = Decision::kSkip;
      s.reason = "the function is already traced by hand";
    } else if (info.per_element) {
      s.decision = Decision::kSkip;
      s.reason = "runs per element of an enclosing loop";
    } else if (s.kind == SiteKind::kStatement) {
      s.decision = Decision::kHot;
      s.reason = fmt::format("hot semantic ({})", s.word);
    } else if (info.loop_class == "none") {
      s.decision = Decision::kSkip;
    } else if (info.loop_class == "group") {
      s.decision = Decision::kPhase;
      s.reason = fmt::format("{} loop: traced per iteration with index {}", s.word, info.loop_var);
    } else if (info.loop_class == "spin") {
      s.decision = Decision::kHot;
      s.reason = "spin-wait on a flag (wait)";
    } else if (info.loop_class == "hot") {
      s.decision = Decision::kHot;
      s.reason = fmt::format("loop around {} per element: traced as a whole", s.word);
    } else if (s.word.empty()) {
      s.decision = Decision::kSkip;
      s.reason = "plain loop the code gives no name (no call or data to name it after)";
    } else if (!info.tile_work.empty()) {
      // Marks in the work it runs would repeat per tile and fill the core's buffer: one range
      // around the whole loop is the finest that stays bounded.
      s.decision = Decision::kHot;
      s.reason = fmt::format("loop running {} per tile: traced as a whole", info.tile_work);
    } else {
      s.decision = Decision::kSkip;
      s.optional = true;
      s.reason = "plain loop without sync or communication; traced only when the density target needs it";
    }
  }
  for (PlanKernel& k : plan_.kernels) {
    const PlanSite& root = plan_.sites[static_cast<size_t>(k.root.site)];
    for (const PlanNode& c : k.root.children) SkipUnderExisting(c, false);
    (void)root;
    SkipUnderSkipped(k.root, false);
  }
  // Marks must be placeable, and only inside the operator directory.
  for (size_t i = 0; i < plan_.sites.size(); ++i) {
    PlanSite& s = plan_.sites[i];
    if (!Inserts(s.decision) && !s.optional) continue;
    if (s.outside) {
      s.decision = Decision::kSkip;
      s.optional = false;
      s.reason = "outside the operator directory (shared code): not edited";
      continue;
    }
    PlanSite probe = s;
    probe.label = "x";
    Status st = Placeable(probe);
    if (!st.ok()) {
      s.decision = Decision::kSkip;
      s.optional = false;
      s.reason = st.message();
    }
  }
  // A traced loop or statement of a main-flow function is main flow too, also when that function
  // is merged into the kernel's range (the kernel's own class: reciprocal's Process, whose tile
  // loop is all the kernel's work): its file must hold marks (lint's coverage-file).
  std::map<const FunctionDef*, size_t> function_site;
  for (size_t i = 0; i < plan_.sites.size(); ++i)
    if (plan_.sites[i].kind == SiteKind::kFunction && !info_[i].root) function_site[info_[i].fn] = i;
  for (size_t i = 0; i < plan_.sites.size(); ++i) {
    PlanSite& s = plan_.sites[i];
    if (s.kind == SiteKind::kFunction || !Inserts(s.decision)) continue;
    auto it = function_site.find(info_[i].fn);
    if (it == function_site.end()) continue;
    const PlanSite& fn_site = plan_.sites[it->second];
    const SiteInfo& fn_info = info_[it->second];
    s.main_flow = fn_site.main_flow || (fn_site.decision == Decision::kMerge && fn_site.word.empty() &&
                                        MainFlow(*fn_info.fn, Facts(*fn_info.fn), fn_info));
  }
}

Status Builder::Placeable(const PlanSite& probe) {
  const SourceFile* f = sources_ ? sources_->Find(probe.file) : nullptr;
  if (!f) return BadInputError("{}: not read", probe.file);
  auto& cs = structures_[f];
  if (!cs) cs = std::make_unique<CodeStructure>(AnalyzeStructure(f->lex));
  Result<SiteMarks> m = ComputeSiteMarks(*f, *cs, probe);
  return m.ok() ? Status::Ok() : m.status();
}

bool Builder::MainFlow(const FunctionDef& fn, const FnFacts& f, const SiteInfo& info) {
  if (info.per_core_entry) return true;
  std::vector<std::string> w = NameWords(fn.name);
  static const char* kSetup[] = {"init", "setup",  "set",   "prepare", "config", "tiling",    "reset",  "alloc",
                                 "get",  "create", "build", "make",    "calc",   "calculate", "compute"};
  if (IsSetUpName(fn.name)) return false;
  if (!w.empty())
    for (const char* x : kSetup)
      if (w[0] == x && HotNameWord(fn.name).empty()) return false;
  if (fn.name.rfind("Process", 0) == 0 || fn.name == "Run" || fn.name == "Execute" || fn.name == "operator()")
    return true;
  if (!HotNameWord(fn.name).empty() || f.has_hot) return true;
  for (const std::string& x : w)
    if (x == "epilogue" || x == "gemm" || x == "matmul" || x == "mmad" || x == "dispatch" || x == "combine")
      return true;
  return f.top_loops.size() >= 1 && f.tokens >= 400;  // a big compute block
}

void Builder::SkipUnderExisting(const PlanNode& node, bool under, bool shell) {
  PlanSite& s = plan_.sites[static_cast<size_t>(node.site)];
  if (under && s.decision != Decision::kExisting) {
    if (shell && s.decision == Decision::kPhase) s.under_hand_shell = true;
    s.decision = Decision::kSkip;
    s.optional = false;
    s.reason = "inside a range traced by hand; kept as it is";
  }
  // A function that only opens "processing" is the root's stand-in: it does not choose the
  // granularity below it.
  bool covers = false;
  bool is_shell = false;
  const SiteInfo& info = info_[static_cast<size_t>(node.site)];
  if (s.decision == Decision::kExisting && s.kind == SiteKind::kFunction && !info.root) {
    const FnFacts& f = Facts(*info.fn);
    for (const std::string& l : f.existing) covers = covers || l != "processing";
    // One range, and besides its B and E only the calls it forwards to: a shell around the work.
    int own = f.statements - f.locals - 2 - info.resolved_calls;
    is_shell = covers && f.existing.size() == 1 && !f.has_loops && !f.has_hot && own <= 1;
  }
  for (const PlanNode& c : node.children)
    SkipUnderExisting(c, under || covers, covers ? is_shell && (!under || shell) : shell);
}

void Builder::SkipUnderSkipped(const PlanNode& node, bool under) {
  PlanSite& s = plan_.sites[static_cast<size_t>(node.site)];
  if (under && (Inserts(s.decision) || s.optional)) {
    s.decision = Decision::kSkip;
    s.optional = false;
    s.reason = "called from a skipped helper";
  }
  bool skipped =
      s.decision == Decision::kSkip && s.kind == SiteKind::kFunction && !info_[static_cast<size_t>(node.site)].root;
  for (const PlanNode& c : node.children) SkipUnderSkipped(c, under || skipped);
}

}  // namespace plan_steps
}  // namespace optrace::source
