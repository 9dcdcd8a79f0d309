// Plan step 4, density: plain loops added or thin ranges dropped until each core type's distinct
// labels fall in the target (seed 000: 8-15), and the per-kernel summary with its warnings.
#include "source/plan/plan_builder.h"

#include <map>

namespace optrace::source {

namespace plan_steps {

void Builder::Count(const PlanKernel& k, std::set<std::string>* aic, std::set<std::string>* aiv) {
  std::set<int> seen;
  ForEach(k.root, [&](const PlanNode& n) {
    const PlanSite& s = plan_.sites[static_cast<size_t>(n.site)];
    std::vector<std::string> labels;
    if (Inserts(s.decision) && !s.label.empty()) labels.push_back(s.label);
    if (s.decision == Decision::kExisting) labels = Facts(*info_[static_cast<size_t>(n.site)].fn).existing;
    unsigned cores = (n.cores ? n.cores : s.cores) & k.cores;
    for (const std::string& l : labels) {
      if (cores & kPlanAic) aic->insert(l);
      if (cores & kPlanAiv) aiv->insert(l);
    }
  });
}

bool Builder::InKernel(const PlanKernel& k, int site) {
  bool found = false;
  ForEach(k.root, [&](const PlanNode& n) { found = found || n.site == site; });
  return found;
}

void Builder::TopUp(size_t ki) {
  PlanKernel& k = plan_.kernels[ki];
  for (int round = 0; round < 64; ++round) {
    std::set<std::string> aic, aiv;
    Count(k, &aic, &aiv);
    unsigned need = 0;
    if ((k.cores & kPlanAic) && static_cast<int>(aic.size()) < kTargetMin) need |= kPlanAic;
    if ((k.cores & kPlanAiv) && static_cast<int>(aiv.size()) < kTargetMin) need |= kPlanAiv;
    if (!need) return;
    int best = -1;
    for (size_t i = 0; i < plan_.sites.size(); ++i) {
      const PlanSite& s = plan_.sites[i];
      if (!s.optional || s.decision != Decision::kSkip || !(s.cores & need)) continue;
      if (!info_[i].kernels.count(static_cast<int>(ki))) continue;
      if ((s.cores & kPlanAic) && static_cast<int>(aic.size()) >= kTargetMax) continue;
      if ((s.cores & kPlanAiv) && static_cast<int>(aiv.size()) >= kTargetMax) continue;
      if (best < 0 || s.tokens > plan_.sites[static_cast<size_t>(best)].tokens) best = static_cast<int>(i);
    }
    if (best < 0) return;
    PlanSite& s = plan_.sites[static_cast<size_t>(best)];
    s.decision = Decision::kPhase;
    s.reason = fmt::format("plain loop ({} tokens) added to reach the density target ({} AIC, {} AIV labels before)",
                           s.tokens, aic.size(), aiv.size());
    Label();
  }
}

void Builder::TrimDown(size_t ki) {
  PlanKernel& k = plan_.kernels[ki];
  // A function's weight is what runs under it (`AllToAllSend` is short but runs the combine):
  // its own tokens plus its callees' in the plan tree, once per site.
  std::map<int, long> inclusive;
  std::function<long(const PlanNode&, std::set<int>&)> weigh = [&](const PlanNode& n, std::set<int>& path) -> long {
    long w = plan_.sites[static_cast<size_t>(n.site)].tokens;
    if (!path.insert(n.site).second) return 0;
    for (const PlanNode& c : n.children) w += weigh(c, path);
    path.erase(n.site);
    long& best = inclusive[n.site];
    best = std::max(best, w);
    return w;
  };
  std::set<int> path;
  weigh(k.root, path);
  for (int round = 0; round < 400; ++round) {
    std::set<std::string> aic, aiv;
    Count(k, &aic, &aiv);
    unsigned over = 0;
    if (static_cast<int>(aic.size()) > kTargetMax) over |= kPlanAic;
    if (static_cast<int>(aiv.size()) > kTargetMax) over |= kPlanAiv;
    if (!over) return;
    // Lint's coverage-file asks marks in every file holding a main-flow phase. A main-flow range
    // that is the last one its file would keep is merged only to get under the hard maximum, never
    // for the target: otherwise whether its file needs marks would depend on how many labels the
    // rest of the tree has (a range renamed elsewhere flipped lint's verdict on it).
    unsigned over_max = 0;
    if (static_cast<int>(aic.size()) > kDensityMax) over_max |= kPlanAic;
    if (static_cast<int>(aiv.size()) > kDensityMax) over_max |= kPlanAiv;
    std::map<std::string, int> ranges_in_file;
    for (const PlanSite& s : plan_.sites)
      if (Inserts(s.decision)) ++ranges_in_file[s.file];
    auto key = [&](size_t i) {
      const PlanSite& s = plan_.sites[i];
      bool signal =
          s.kind == SiteKind::kStatement && (s.word.rfind("set", 0) == 0 || s.word.find("notify") != std::string::npos);
      // Seed 000's hot semantics keep their own range longest: hot statements and loops, and
      // functions whose name says wait/send/recv/copy/quant (`AllToAllSend`).
      bool hot = s.decision == Decision::kHot ||
                 (s.kind == SiteKind::kFunction && info_[i].fn && !HotNameWord(info_[i].fn->name).empty());
      return std::make_tuple(s.depth, signal, !hot, -inclusive[static_cast<int>(i)]);
    };
    std::vector<size_t> candidates;
    for (size_t i = 0; i < plan_.sites.size(); ++i) {
      const PlanSite& s = plan_.sites[i];
      if (!Inserts(s.decision) || s.label.empty() || !(s.cores & over) || info_[i].root || info_[i].per_core_entry ||
          !info_[i].kernels.count(static_cast<int>(ki)))
        continue;
      if (s.main_flow && ranges_in_file[s.file] <= 1 && !(s.cores & over_max)) continue;
      // Do not take a core type under the floor while trimming the other.
      if ((s.cores & kPlanAic) && !(over & kPlanAic) && static_cast<int>(aic.size()) <= kTargetMin) continue;
      if ((s.cores & kPlanAiv) && !(over & kPlanAiv) && static_cast<int>(aiv.size()) <= kTargetMin) continue;
      candidates.push_back(i);
    }
    if (candidates.empty()) return;
    // One merge removes at most one label: far over the target (a generated or huge kernel),
    // merge the excess less a margin at once instead of relabelling the tree per merge.
    int excess = std::max(static_cast<int>(aic.size()), static_cast<int>(aiv.size())) - kTargetMax;
    size_t batch = excess > 8 ? static_cast<size_t>(excess - 8) : 1;
    batch = std::min(batch, candidates.size());
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<long>(batch), candidates.end(),
                      [&](size_t a, size_t b) { return key(a) > key(b) || (!(key(b) > key(a)) && a < b); });
    for (size_t c = 0; c < batch; ++c) {
      PlanSite& s = plan_.sites[candidates[c]];
      // One batch may hold several ranges of a file: keep the file's last main-flow one as above.
      if (s.main_flow && ranges_in_file[s.file] <= 1 && !(s.cores & over_max)) continue;
      s.density_merged = ranges_in_file[s.file]-- > 1;
      s.decision = Decision::kMerge;
      s.reason = fmt::format("merged to keep {} at the target ({} AIC, {} AIV labels): {}", PlanCoreName(over),
                             aic.size(), aiv.size(), s.depth >= 4 ? "detail below level 3" : "a small range");
    }
    Label();
  }
}

void Builder::MarkDensitySensitive(size_t ki, size_t before_aic, size_t before_aiv) {
  const PlanKernel& k = plan_.kernels[ki];
  unsigned near = 0;
  if ((k.cores & kPlanAic) && static_cast<int>(before_aic) > kDensityMax - kDensitySlack) near |= kPlanAic;
  if ((k.cores & kPlanAiv) && static_cast<int>(before_aiv) > kDensityMax - kDensitySlack) near |= kPlanAiv;
  if (!near) return;
  std::map<std::string, int> ranges_in_file;
  for (const PlanSite& s : plan_.sites)
    if (Inserts(s.decision)) ++ranges_in_file[s.file];
  for (size_t i = 0; i < plan_.sites.size(); ++i) {
    PlanSite& s = plan_.sites[i];
    // The sites TrimDown may merge past the maximum: labelled main-flow ranges, not a root or a
    // per-core entry, the last of their file.
    if (!s.main_flow || !(s.cores & near) || s.label.empty() || info_[i].root || info_[i].per_core_entry ||
        !info_[i].kernels.count(static_cast<int>(ki)))
      continue;
    if (Inserts(s.decision) && ranges_in_file[s.file] == 1) s.density_sensitive = true;
  }
}

void Builder::Summarize(PlanKernel& k) {
  std::set<std::string> aic, aiv;
  Count(k, &aic, &aiv);
  k.labels.aic.assign(aic.begin(), aic.end());
  k.labels.aiv.assign(aiv.begin(), aiv.end());
  ForEach(k.root, [&](const PlanNode& n) {
    const PlanSite& s = plan_.sites[static_cast<size_t>(n.site)];
    int d = s.depth;
    if (s.decision == Decision::kExisting) d = static_cast<int>(std::count(s.label.begin(), s.label.end(), ' ')) + 2;
    if ((Inserts(s.decision) || s.decision == Decision::kExisting) && d > k.max_depth) k.max_depth = d;
  });
  std::string who = plan_.kernels.size() > 1 ? k.function + ": " : "";
  for (auto [name, n, bit] :
       {std::tuple<const char*, size_t, unsigned>{"AIC", aic.size(), kPlanAic}, {"AIV", aiv.size(), kPlanAiv}}) {
    if (!(k.cores & bit)) continue;
    int c = static_cast<int>(n);
    if (c < kDensityMin || c > kDensityMax) {
      plan_.warnings.push_back(fmt::format("{}{}: {} distinct labels, outside {}-{}: {}", who, name, c, kDensityMin,
                                           kDensityMax,
                                           c < kDensityMin ? "the kernel has few phase boundaries the code names; "
                                                             "add ranges by hand or edit the plan"
                                                           : "merge thin ranges in the plan"));
    } else if (c < kTargetMin || c > kTargetMax) {
      plan_.warnings.push_back(fmt::format("{}{}: {} distinct labels, within {}-{} but off the target {}-{}", who, name,
                                           c, kDensityMin, kDensityMax, kTargetMin, kTargetMax));
    }
  }
  if (k.max_depth > kMaxLevels)
    plan_.warnings.push_back(fmt::format("{}depth {} exceeds {} levels", who, k.max_depth, kMaxLevels));
}

}  // namespace plan_steps
}  // namespace optrace::source
