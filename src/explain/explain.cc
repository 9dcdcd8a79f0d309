#include "explain/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <sstream>

#include "core/markdown_escape.h"
#include "core/file_io.h"
#include "core/quantile.h"

namespace optrace::explain {
namespace {

using Json = nlohmann::ordered_json;
using Iv = std::pair<double, double>;

// The built-in hot-semantic words (seed 000: wait, sync, send, recv, copy, quant, dequant; compute
// and epilogue words). Order matters: the first rule that matches a label decides.
const char* kBuiltinRules = R"({
  "categories": [
    {"regex": "wait|poll|spin|flag_check|signal_check", "category": "wait"},
    {"regex": "sync|barrier|fence|crosscore|cross_core|handshake", "category": "sync"},
    {"regex": "dequant|quant|scale", "category": "quant"},
    {"regex": "epilogue|finali[sz]e|write_?back|writeout|output", "category": "epilogue"},
    {"regex": "init|setup|prepare|prolog|alloc", "category": "init"},
    {"regex": "cleanup|clear|reset|teardown|release|free", "category": "cleanup"},
    {"regex": "send|recv|receive|dispatch|combine|all_?to_?all|allreduce|allgather|reduce_?scatter|put|get|comm|rdma|shmem|transfer", "category": "communication"},
    {"regex": "copy|move|load|store|datacopy|mte|gather|scatter", "category": "copy"},
    {"regex": "matmul|gmm|gemm|mmad|mm\\b|cube|compute|calc|swiglu|silu|gelu|act|norm|softmax|expert|ffn|vec|add|mul|reduce|topk|sort", "category": "compute"}
  ],
  "roles": [
    {"regex": "send|dispatch", "group": "vector_send"},
    {"regex": "recv|receive|combine", "group": "vector_recv"}
  ]
})";

Result<std::vector<PhaseRule>> Rules(const nlohmann::json& j, const char* key, const char* value_key,
                                     const std::string& origin) {
  std::vector<PhaseRule> out;
  if (!j.contains(key)) return out;
  if (!j[key].is_array()) return BadInputError("{}: '{}' must be an array", origin, key);
  for (const auto& item : j[key]) {
    if (!item.is_object() || !item.contains("regex") || !item["regex"].is_string() || !item.contains(value_key) ||
        !item[value_key].is_string())
      return BadInputError("{}: each entry of '{}' needs string 'regex' and '{}'", origin, key, value_key);
    PhaseRule r;
    r.pattern = item["regex"].get<std::string>();
    r.value = item[value_key].get<std::string>();
    if (r.pattern.size() > kRegexPatternLimit)
      return BadInputError("{}: a regex of {} characters (at most {})", origin, r.pattern.size(), kRegexPatternLimit);
    try {
      r.re = std::regex(r.pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
    } catch (const std::regex_error& e) {
      return BadInputError("{}: bad regex '{}': {}", origin, r.pattern, e.what());
    }
    out.push_back(std::move(r));
  }
  return out;
}

// Sum of the merged intervals.
double UnionOf(std::vector<Iv> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double total = 0, b = v[0].first, e = v[0].second;
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i].first > e) {
      total += e - b;
      b = v[i].first, e = v[i].second;
    } else {
      e = std::max(e, v[i].second);
    }
  }
  return total + (e - b);
}

std::vector<Iv> Merged(std::vector<Iv> v) {
  std::sort(v.begin(), v.end());
  std::vector<Iv> out;
  for (const Iv& x : v) {
    if (!out.empty() && x.first <= out.back().second) out.back().second = std::max(out.back().second, x.second);
    else out.push_back(x);
  }
  return out;
}

double IntersectionOf(const std::vector<Iv>& a, const std::vector<Iv>& b) {  // both merged
  double total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    double lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return total;
}

std::string CoreName(const Span& s) {
  return fmt::format("{} {}", collect::CoreKindName(s.kind), s.core);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return Quantile(v, 0.5);
}

std::string Pct(double v) { return fmt::format("{:.1f}%", v * 100); }

// The slowest rank's cores, each a row of its spans (Explanation::gantt).
CoreGantt BuildGantt(const std::vector<Span>& spans, const std::vector<bool>& has_child, const PhaseRules& rules,
                     const std::map<int, double>& wall_us,
                     const std::map<std::tuple<int, int, uint32_t>, std::string>& group_of) {
  CoreGantt g;
  double longest = -1;
  for (const auto& [rank, w] : wall_us)
    if (w > longest) longest = w, g.rank = rank;
  if (g.rank < 0) return g;
  size_t total = 0;
  std::tuple<int, int, uint32_t> current{-1, -1, 0};
  bool skipping = false;
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    if (s.rank != g.rank) continue;
    std::tuple<int, int, uint32_t> key{s.rank, int(s.kind), s.core};
    if (key != current) {
      current = key;
      // A core's spans are contiguous (spans are sorted by rank, kind, core): count them first,
      // so a core is drawn whole or not at all.
      size_t n = 0;
      for (size_t k = i; k < spans.size() && spans[k].rank == s.rank && spans[k].kind == s.kind && spans[k].core == s.core;
           ++k)
        ++n;
      skipping = g.cores.size() >= kGanttCores || total + n > kGanttSpans;
      if (skipping) {
        ++g.dropped_cores;
        g.dropped_spans += n;
        continue;
      }
      auto grp = group_of.find(key);
      g.cores.push_back({CoreName(s), grp == group_of.end() ? "" : grp->second, {}});
      total += n;
    }
    if (skipping) continue;
    int depth = 0;
    for (int p = s.parent; p >= 0 && size_t(p) < spans.size(); p = spans[size_t(p)].parent) ++depth;
    g.cores.back().spans.push_back(
        {s.label, has_child[i] ? "container" : rules.Category(s.label), s.begin_us, s.end_us, depth});
  }
  return g;
}

}  // namespace

std::string PhaseRules::Category(const std::string& label) const {
  for (const PhaseRule& r : categories)
    if (BoundedSearch(label, r.re)) return r.value;
  return "other";
}

Result<PhaseRules> LoadPhaseRules(const std::string& path) {
  PhaseRules rules;
  auto apply = [&](const std::string& text, const std::string& origin, bool user) -> Status {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object())
      return BadInputError("{}: not a JSON object; a phase map is {{\"categories\": [{{\"regex\", \"category\"}}], "
                           "\"roles\": [{{\"regex\", \"group\"}}]}}",
                           origin);
    OPTRACE_ASSIGN_OR_RETURN(std::vector<PhaseRule> cats, Rules(j, "categories", "category", origin));
    OPTRACE_ASSIGN_OR_RETURN(std::vector<PhaseRule> roles, Rules(j, "roles", "group", origin));
    // A user's rules are tried before the built-in ones.
    if (user) {
      cats.insert(cats.end(), rules.categories.begin(), rules.categories.end());
      roles.insert(roles.end(), rules.roles.begin(), rules.roles.end());
    }
    rules.categories = std::move(cats);
    rules.roles = std::move(roles);
    for (auto [key, out] : {std::pair{"wait_share_min", &rules.wait_share_min},
                            std::pair{"wait_concentration", &rules.wait_concentration},
                            std::pair{"straggler_ratio", &rules.straggler_ratio},
                            std::pair{"straggler_min_us", &rules.straggler_min_us}})
      if (j.contains(key) && j[key].is_number()) *out = j[key].get<double>();
    rules.sources.push_back(origin);
    return Status::Ok();
  };
  OPTRACE_RETURN_IF_ERROR(apply(kBuiltinRules, "builtin", false));
  if (!path.empty()) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(ResolveAgainstCwd(path)));
    OPTRACE_RETURN_IF_ERROR(apply(text, path, true));
  }
  return rules;
}

Explanation Explain(const SpanSet& set, const PhaseRules& rules, const RoleMap* roles) {
  Explanation e;
  e.source = set.source;
  e.inputs = set.inputs;
  e.warnings = set.warnings;
  const std::vector<Span>& spans = set.spans;
  std::vector<bool> has_child(spans.size(), false);
  for (const Span& s : spans)
    if (s.parent >= 0 && size_t(s.parent) < spans.size()) has_child[size_t(s.parent)] = true;

  // Walls per rank.
  std::map<int, std::pair<double, double>> extent;
  for (const Span& s : spans) {
    auto [it, fresh] = extent.try_emplace(s.rank, s.begin_us, s.end_us);
    if (!fresh) it->second.first = std::min(it->second.first, s.begin_us), it->second.second = std::max(it->second.second, s.end_us);
  }
  for (const auto& [rank, x] : extent) {
    e.ranks.push_back(rank);
    e.wall_us[rank] = x.second - x.first;
    e.kernel_wall_us = std::max(e.kernel_wall_us, x.second - x.first);
  }

  // Core groups.
  using CoreKey = std::tuple<int, int, uint32_t>;  // rank, kind, core
  std::map<CoreKey, std::string> group_of;
  std::map<CoreKey, std::map<std::string, int>> role_votes;
  for (const Span& s : spans) {
    CoreKey k{s.rank, int(s.kind), s.core};
    if (s.kind == collect::CoreKind::kAiv && !roles)
      for (const PhaseRule& r : rules.roles)
        if (BoundedSearch(s.label, r.re)) ++role_votes[k][r.value];
    group_of.try_emplace(k, "");
  }
  std::map<std::string, int> group_cores;
  for (auto& [k, g] : group_of) {
    auto kind = collect::CoreKind(std::get<1>(k));
    if (kind == collect::CoreKind::kAic) {
      g = "cube";
    } else if (kind == collect::CoreKind::kAiv) {
      if (roles) {
        const Role* role = roles->Find(kind, std::get<2>(k));
        g = role ? role->name : "vector";
      } else {
        const auto& votes = role_votes[k];
        g = votes.size() == 1 ? votes.begin()->first : "vector";  // one role's words only
      }
    } else {
      g = collect::CoreKindKey(kind);
    }
    ++group_cores[g];
    e.cores.push_back({std::get<0>(k), fmt::format("{} {}", collect::CoreKindName(collect::CoreKind(std::get<1>(k))),
                                                   std::get<2>(k)),
                       g});
  }
  for (const auto& [g, n] : group_cores) e.groups.push_back({g, n});
  auto group = [&](const Span& s) -> const std::string& { return group_of[{s.rank, int(s.kind), s.core}]; };

  // Phases: per (group, label), intervals by rank and by core.
  struct PhaseAcc {
    std::string category;
    uint64_t count = 0;
    double total = 0;
    bool leaf = true;
    std::map<int, std::vector<Iv>> by_rank;
    std::map<std::pair<int, std::string>, std::vector<Iv>> by_core;  // (rank, core name)
  };
  std::map<std::pair<std::string, std::string>, PhaseAcc> phases;
  struct CatAcc {
    std::map<int, std::vector<Iv>> by_rank;
  };
  std::map<std::pair<std::string, std::string>, CatAcc> cats;
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    const std::string& g = group(s);
    const std::string category = has_child[i] ? "container" : rules.Category(s.label);
    PhaseAcc& p = phases[{g, s.label}];
    if (p.category.empty() || (has_child[i] && p.category != "container")) p.category = category;
    p.leaf = p.leaf && !has_child[i];
    ++p.count;
    p.total += s.end_us - s.begin_us;
    p.by_rank[s.rank].push_back({s.begin_us, s.end_us});
    p.by_core[{s.rank, CoreName(s)}].push_back({s.begin_us, s.end_us});
    cats[{g, category}].by_rank[s.rank].push_back({s.begin_us, s.end_us});
  }
  e.gantt = BuildGantt(spans, has_child, rules, e.wall_us, group_of);
  auto mean_share = [&](const std::map<int, std::vector<Iv>>& by_rank, std::map<int, double>* unions,
                        double* mean_union) {
    double share = 0, uni = 0;
    for (int rank : e.ranks) {
      auto it = by_rank.find(rank);
      double u = it == by_rank.end() ? 0 : UnionOf(it->second);
      if (unions && it != by_rank.end()) (*unions)[rank] = u;
      uni += u;
      share += e.wall_us[rank] > 0 ? u / e.wall_us[rank] : 0;
    }
    *mean_union = e.ranks.empty() ? 0 : uni / double(e.ranks.size());
    return e.ranks.empty() ? 0 : share / double(e.ranks.size());
  };
  std::map<std::pair<std::string, std::string>, std::vector<std::tuple<double, int, std::string>>> core_unions;
  for (auto& [key, p] : phases) {
    PhaseRow row;
    row.group = key.first, row.phase = key.second, row.category = p.category;
    row.count = p.count, row.total_us = p.total, row.leaf = p.leaf;
    row.share_of_wall = mean_share(p.by_rank, &row.rank_union_us, &row.union_us);
    std::vector<double> per_core;
    auto& cu = core_unions[key];
    for (const auto& [core, ivs] : p.by_core) {
      double u = UnionOf(ivs);
      per_core.push_back(u);
      cu.push_back({u, core.first, core.second});
      if (u > row.core_max_us) row.core_max_us = u, row.slowest_core = core.second, row.slowest_core_rank = core.first;
    }
    row.core_p50_us = Median(per_core);
    double best = -1;
    for (const auto& [rank, u] : row.rank_union_us)
      if (u > best) best = u, row.slowest_rank = rank;
    e.phases.push_back(std::move(row));
  }
  std::sort(e.phases.begin(), e.phases.end(), [](const PhaseRow& a, const PhaseRow& b) {
    return a.share_of_wall != b.share_of_wall ? a.share_of_wall > b.share_of_wall
                                              : std::tie(a.group, a.phase) < std::tie(b.group, b.phase);
  });
  for (auto& [key, c] : cats) {
    CategoryRow row;
    row.group = key.first, row.category = key.second;
    row.share_of_wall = mean_share(c.by_rank, nullptr, &row.union_us);
    for (const auto& [rank, ivs] : c.by_rank)
      row.rank_share[rank] = e.wall_us[rank] > 0 ? UnionOf(ivs) / e.wall_us[rank] : 0;
    e.categories.push_back(std::move(row));
  }
  std::sort(e.categories.begin(), e.categories.end(), [](const CategoryRow& a, const CategoryRow& b) {
    return a.group != b.group ? a.group < b.group : a.share_of_wall > b.share_of_wall;
  });

  // Overlap between sibling top-level phases of a group.
  std::map<std::string, std::map<std::string, std::map<int, std::vector<Iv>>>> top;  // group -> label -> rank
  for (const Span& s : spans)
    if (s.parent < 0) top[group(s)][s.label][s.rank].push_back({s.begin_us, s.end_us});
  for (auto& [g, labels] : top) {
    std::vector<std::string> names;
    for (auto& [l, by_rank] : labels) {
      names.push_back(l);
      for (auto& [rank, ivs] : by_rank) ivs = Merged(std::move(ivs));
    }
    for (size_t i = 0; i < names.size(); ++i)
      for (size_t j = i + 1; j < names.size(); ++j) {
        double ov = 0, ua = 0, ub = 0;
        for (int rank : e.ranks) {
          const auto& a = labels[names[i]][rank];
          const auto& b = labels[names[j]][rank];
          ov += IntersectionOf(a, b);
          ua += UnionOf(a), ub += UnionOf(b);
        }
        if (ov <= 0) continue;
        double n = double(e.ranks.size());
        e.overlaps.push_back({g, names[i], names[j], ov / n, ua > 0 ? ov / ua : 0, ub > 0 ? ov / ub : 0});
      }
  }
  std::sort(e.overlaps.begin(), e.overlaps.end(),
            [](const OverlapRow& a, const OverlapRow& b) { return a.overlap_us > b.overlap_us; });

  // The child that bounds each parent: its longest direct child.
  std::vector<int> longest(spans.size(), -1);
  for (size_t i = 0; i < spans.size(); ++i) {
    int p = spans[i].parent;
    if (p < 0) continue;
    double d = spans[i].end_us - spans[i].begin_us;
    int& cur = longest[size_t(p)];
    if (cur < 0 || d > spans[size_t(cur)].end_us - spans[size_t(cur)].begin_us) cur = int(i);
  }
  std::map<std::tuple<std::string, std::string, std::string>, int> child_wins;
  std::map<std::pair<std::string, std::string>, int> parents;
  for (size_t i = 0; i < spans.size(); ++i) {
    if (longest[i] < 0) continue;
    const std::string& g = group(spans[i]);
    ++parents[{g, spans[i].label}];
    ++child_wins[{g, spans[i].label, spans[size_t(longest[i])].label}];
  }
  for (const auto& [pk, of] : parents) {
    std::string best;
    int times = 0;
    for (const auto& [ck, n] : child_wins)
      if (std::get<0>(ck) == pk.first && std::get<1>(ck) == pk.second && n > times) times = n, best = std::get<2>(ck);
    e.critical.push_back({pk.first, pk.second, best, times, of});
  }

  // Diagnosis.
  int next_id = 1;
  auto finding = [&](std::string type, std::string severity, std::string summary) -> ExplainFinding& {
    e.findings.push_back({fmt::format("E{}", next_id++), std::move(type), std::move(severity), std::move(summary), {}, {}, {}});
    return e.findings.back();
  };
  const PhaseRow* dominant = nullptr;
  for (const PhaseRow& p : e.phases)
    if (p.leaf && (!dominant || p.share_of_wall > dominant->share_of_wall)) dominant = &p;
  if (dominant) {
    ExplainFinding& f = finding("dominant_phase", dominant->share_of_wall >= 0.5 ? "high" : "medium",
                                fmt::format("The dominant phase is {} on the {} cores ({}): {} of the kernel wall.",
                                            dominant->phase, dominant->group, dominant->category,
                                            Pct(dominant->share_of_wall)));
    f.numbers = {{"share_of_wall", dominant->share_of_wall}, {"union_us", dominant->union_us}};
    f.ranks = e.ranks;
  }
  {
    const CategoryRow* top_wait = nullptr;
    double others = 0;
    int n_others = 0;
    for (const CategoryRow& c : e.categories)
      if (c.category == "wait" && (!top_wait || c.share_of_wall > top_wait->share_of_wall)) top_wait = &c;
    if (top_wait) {
      for (const GroupInfo& g : e.groups) {
        if (g.group == top_wait->group) continue;
        double share = 0;
        for (const CategoryRow& c : e.categories)
          if (c.group == g.group && c.category == "wait") share = c.share_of_wall;
        others += share, ++n_others;
      }
      double mean_others = n_others ? others / n_others : 0;
      if (top_wait->share_of_wall >= rules.wait_share_min &&
          (mean_others == 0 || top_wait->share_of_wall >= rules.wait_concentration * mean_others)) {
        int worst_rank = -1;
        double worst = -1;
        for (const auto& [rank, share] : top_wait->rank_share)
          if (share > worst) worst = share, worst_rank = rank;
        ExplainFinding& f = finding(
            "wait_concentration", "high",
            fmt::format("Waiting is concentrated on the {} cores: {} of the wall waiting, against {} on the other "
                        "groups; most on rank {} ({}).",
                        top_wait->group, Pct(top_wait->share_of_wall), Pct(mean_others), worst_rank, Pct(worst)));
        f.numbers = {{"wait_share", top_wait->share_of_wall}, {"other_groups_wait_share", mean_others}};
        f.ranks = {worst_rank};
      }
    }
  }
  // Stragglers: a core (within its group) or a rank whose union of a leaf phase is far above its peers'.
  struct Straggler {
    double ratio;
    const PhaseRow* row;
    int rank;
    std::string core;
    double value, median;
  };
  std::vector<Straggler> cores, ranks_s;
  for (const PhaseRow& p : e.phases) {
    if (!p.leaf) continue;
    auto& cu = core_unions[{p.group, p.phase}];
    if (cu.size() >= 3) {
      std::vector<double> v;
      for (const auto& c : cu) v.push_back(std::get<0>(c));
      auto top = std::max_element(cu.begin(), cu.end());
      std::vector<double> others;
      for (const auto& c : cu)
        if (&c != &*top) others.push_back(std::get<0>(c));
      double med = Median(others);
      double val = std::get<0>(*top);
      if (med > 0 && val >= rules.straggler_ratio * med && val - med >= rules.straggler_min_us)
        cores.push_back({val / med, &p, std::get<1>(*top), std::get<2>(*top), val, med});
    }
    if (p.rank_union_us.size() >= 2) {
      int worst = -1;
      double val = -1;
      for (const auto& [rank, u] : p.rank_union_us)
        if (u > val) val = u, worst = rank;
      std::vector<double> others;
      for (const auto& [rank, u] : p.rank_union_us)
        if (rank != worst) others.push_back(u);
      double med = Median(others);
      if (med > 0 && val >= rules.straggler_ratio * med && val - med >= rules.straggler_min_us)
        ranks_s.push_back({val / med, &p, worst, "", val, med});
    }
  }
  std::sort(cores.begin(), cores.end(), [](const auto& a, const auto& b) { return a.ratio > b.ratio; });
  std::sort(ranks_s.begin(), ranks_s.end(), [](const auto& a, const auto& b) { return a.ratio > b.ratio; });
  for (size_t i = 0; i < cores.size() && i < 3; ++i) {
    const Straggler& s = cores[i];
    ExplainFinding& f = finding("straggler_core", "medium",
                                fmt::format("{} on rank {} spends {:.3f} us in {} ({} cores), {:.2f}x the median "
                                            "{:.3f} us of its peers.",
                                            s.core, s.rank, s.value, s.row->phase, s.row->group, s.ratio, s.median));
    f.numbers = {{"union_us", s.value}, {"peer_median_us", s.median}, {"ratio", s.ratio}};
    f.cores = {s.core};
    f.ranks = {s.rank};
  }
  for (size_t i = 0; i < ranks_s.size() && i < 3; ++i) {
    const Straggler& s = ranks_s[i];
    ExplainFinding& f = finding("straggler_rank", "medium",
                                fmt::format("Rank {} spends {:.3f} us in {} ({} cores), {:.2f}x the median {:.3f} us "
                                            "of the other ranks.",
                                            s.rank, s.value, s.row->phase, s.row->group, s.ratio, s.median));
    f.numbers = {{"union_us", s.value}, {"peer_median_us", s.median}, {"ratio", s.ratio}};
    f.ranks = {s.rank};
  }
  return e;
}

namespace {

// Spans as [phase index, category index, begin, end, depth] with the names once each: a rank of
// 64 cores and thousands of spans stays small in the page.
Json GanttJson(const CoreGantt& g) {
  if (g.rank < 0 || g.cores.empty()) return nullptr;
  std::map<std::string, size_t> phase_index, category_index;
  Json phases = Json::array(), categories = Json::array(), cores = Json::array();
  auto index = [](std::map<std::string, size_t>& m, Json& list, const std::string& name) {
    auto [it, fresh] = m.try_emplace(name, m.size());
    if (fresh) list.push_back(name);
    return it->second;
  };
  for (const GanttCore& c : g.cores) {
    Json spans = Json::array();
    for (const GanttSpan& s : c.spans)
      spans.push_back({index(phase_index, phases, s.phase), index(category_index, categories, s.category),
                       std::round(s.begin_us * 1000) / 1000, std::round(s.end_us * 1000) / 1000, s.depth});
    cores.push_back({{"core", c.core}, {"group", c.group}, {"spans", std::move(spans)}});
  }
  return Json{{"rank", g.rank},       {"phases", std::move(phases)}, {"categories", std::move(categories)},
              {"cores", std::move(cores)}, {"dropped_cores", g.dropped_cores}, {"dropped_spans", g.dropped_spans}};
}

}  // namespace

Json ExplanationJson(const Explanation& e) {
  Json wall = Json::object();
  for (const auto& [rank, w] : e.wall_us) wall[std::to_string(rank)] = w;
  Json groups = Json::array();
  for (const GroupInfo& g : e.groups) groups.push_back({{"group", g.group}, {"cores", g.cores}});
  Json cores = Json::array();
  for (const CoreInfo& c : e.cores) cores.push_back({{"rank", c.rank}, {"core", c.core}, {"group", c.group}});
  Json phases = Json::array();
  for (const PhaseRow& p : e.phases) {
    Json ru = Json::object();
    for (const auto& [rank, u] : p.rank_union_us) ru[std::to_string(rank)] = u;
    phases.push_back({{"group", p.group}, {"phase", p.phase}, {"category", p.category}, {"leaf", p.leaf},
                      {"count", p.count}, {"total_us", p.total_us}, {"union_us", p.union_us},
                      {"share_of_wall", p.share_of_wall}, {"core_p50_us", p.core_p50_us},
                      {"core_max_us", p.core_max_us}, {"slowest_core", p.slowest_core},
                      {"slowest_core_rank", p.slowest_core_rank}, {"slowest_rank", p.slowest_rank},
                      {"rank_union_us", ru}});
  }
  Json cats = Json::array();
  for (const CategoryRow& c : e.categories)
    cats.push_back({{"group", c.group}, {"category", c.category}, {"union_us", c.union_us},
                    {"share_of_wall", c.share_of_wall}});
  Json overlaps = Json::array();
  for (const OverlapRow& o : e.overlaps)
    overlaps.push_back({{"group", o.group}, {"a", o.a}, {"b", o.b}, {"overlap_us", o.overlap_us},
                        {"share_of_a", o.share_of_a}, {"share_of_b", o.share_of_b}});
  Json critical = Json::array();
  for (const CriticalRow& c : e.critical)
    critical.push_back({{"group", c.group}, {"parent", c.parent}, {"child", c.child}, {"times", c.times}, {"of", c.of}});
  Json findings = Json::array();
  for (const ExplainFinding& f : e.findings) {
    Json numbers = Json::object();
    for (const auto& [k, v] : f.numbers) numbers[k] = v;
    findings.push_back({{"id", f.id}, {"type", f.type}, {"severity", f.severity}, {"summary", f.summary},
                        {"numbers", numbers}, {"cores", f.cores}, {"ranks", f.ranks}});
  }
  return Json{{"schema_version", kExplainSchemaVersion},
              {"kind", "optrace.explain"},
              {"inputs", e.inputs},
              {"source", e.source},
              {"ranks", e.ranks},
              {"wall_us", wall},
              {"kernel_wall_us", e.kernel_wall_us},
              {"core_groups", groups},
              {"cores", cores},
              {"phases", phases},
              {"categories", cats},
              {"overlaps", overlaps},
              {"critical", critical},
              {"findings", findings},
              {"warnings", e.warnings},
              {"core_gantt", GanttJson(e.gantt)}};
}

void WriteExplainText(const Explanation& e, std::ostream& out) {
  out << fmt::format("explain: {} ({}), {} rank(s), kernel wall {:.3f} us\n", fmt::join(e.inputs, ", "), e.source,
                     e.ranks.size(), e.kernel_wall_us);
  out << "core groups:";
  for (const GroupInfo& g : e.groups) out << fmt::format(" {} ({} cores)", g.group, g.cores);
  out << "\n\nfindings:\n";
  for (const ExplainFinding& f : e.findings) out << fmt::format("  [{}] {} {}: {}\n", f.severity, f.id, f.type, f.summary);
  if (e.findings.empty()) out << "  none\n";
  out << "\nphases (union over the group's cores per rank, mean over ranks; share of the kernel wall):\n";
  out << fmt::format("  {:<14} {:<28} {:<13} {:>7} {:>12} {:>7} {:>12} {}\n", "group", "phase", "category", "count",
                     "union us", "share", "core max us", "slowest core");
  for (size_t i = 0; i < e.phases.size() && i < 25; ++i) {
    const PhaseRow& p = e.phases[i];
    out << fmt::format("  {:<14} {:<28} {:<13} {:>7} {:>12.3f} {:>7} {:>12.3f} {} (rank {})\n", p.group, p.phase,
                       p.category, p.count, p.union_us, Pct(p.share_of_wall), p.core_max_us, p.slowest_core,
                       p.slowest_core_rank);
  }
  out << "\ncategories (leaves; container = ranges with children):\n";
  for (const CategoryRow& c : e.categories)
    out << fmt::format("  {:<14} {:<13} {:>12.3f} us {:>7}\n", c.group, c.category, c.union_us, Pct(c.share_of_wall));
  if (!e.overlaps.empty()) {
    out << "\noverlap of sibling top-level phases:\n";
    for (const OverlapRow& o : e.overlaps)
      out << fmt::format("  {:<14} {} & {}: {:.3f} us ({} of {}, {} of {})\n", o.group, o.a, o.b, o.overlap_us,
                         Pct(o.share_of_a), o.a, Pct(o.share_of_b), o.b);
  }
  if (!e.critical.empty()) {
    out << "\ncritical child (longest child of each parent):\n";
    for (const CriticalRow& c : e.critical)
      out << fmt::format("  {:<14} {} -> {} ({} of {})\n", c.group, c.parent, c.child, c.times, c.of);
  }
  for (const std::string& w : e.warnings) out << "warning: " << w << "\n";
}

static void WriteExplainMarkdownUnescaped(const Explanation& e, std::ostream& out) {
  out << "# optrace explain\n\n";
  out << fmt::format("Inputs: {} ({}). {} rank(s); kernel wall {:.3f} us (per rank: ", fmt::join(e.inputs, ", "),
                     e.source, e.ranks.size(), e.kernel_wall_us);
  bool first = true;
  for (const auto& [rank, w] : e.wall_us) out << fmt::format("{}{} {:.3f}", first ? "" : ", ", rank, w), first = false;
  out << ").\n\nTimes are unions: a phase's intervals on all cores of a group on one rank are merged before they "
         "are measured; shares are that union over the rank's kernel wall, averaged over ranks.\n\n## Findings\n\n";
  for (const ExplainFinding& f : e.findings) out << fmt::format("- **{}** `{}` {}: {}\n", f.severity, f.id, f.type, f.summary);
  if (e.findings.empty()) out << "- none\n";
  out << "\n## Phases\n\n| group | phase | category | count | union us | share of wall | core p50 us | core max us | "
         "slowest core | slowest rank |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const PhaseRow& p : e.phases)
    out << fmt::format("| {} | {} | {} | {} | {:.3f} | {} | {:.3f} | {:.3f} | {} (rank {}) | {} |\n", p.group, p.phase,
                       p.category, p.count, p.union_us, Pct(p.share_of_wall), p.core_p50_us, p.core_max_us,
                       p.slowest_core, p.slowest_core_rank, p.slowest_rank);
  out << "\n## Categories\n\n| group | category | union us | share of wall |\n|---|---|---|---|\n";
  for (const CategoryRow& c : e.categories)
    out << fmt::format("| {} | {} | {:.3f} | {} |\n", c.group, c.category, c.union_us, Pct(c.share_of_wall));
  out << "\n## Overlap of sibling top-level phases\n\n";
  if (e.overlaps.empty()) out << "None overlap.\n";
  else out << "| group | a | b | overlap us | of a | of b |\n|---|---|---|---|---|---|\n";
  for (const OverlapRow& o : e.overlaps)
    out << fmt::format("| {} | {} | {} | {:.3f} | {} | {} |\n", o.group, o.a, o.b, o.overlap_us, Pct(o.share_of_a),
                       Pct(o.share_of_b));
  out << "\n## Critical child per parent\n\n";
  if (e.critical.empty()) out << "No nested phases.\n";
  else out << "| group | parent | longest child | times | of |\n|---|---|---|---|---|\n";
  for (const CriticalRow& c : e.critical)
    out << fmt::format("| {} | {} | {} | {} | {} |\n", c.group, c.parent, c.child, c.times, c.of);
  if (!e.warnings.empty()) {
    out << "\n## Warnings\n\n";
    for (const std::string& w : e.warnings) out << "- " << w << "\n";
  }
}

void WriteExplainMarkdown(const Explanation& e, std::ostream& out) {
  // Names and values from the user's files: no inline HTML reaches a Markdown viewer.
  std::ostringstream md;
  WriteExplainMarkdownUnescaped(e, md);
  out << EscapeMarkdownHtml(md.str());
}

}  // namespace optrace::explain
