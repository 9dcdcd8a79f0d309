// BuildPlan: expands the call tree from the kernel entry, decides per site, names the labels
// (seed 000 steps 1-3) and tops up plain loops until each core type reaches the density target.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

#include "core/file_io.h"
#include "source/include_tree.h"
#include "source/plan/code_index.h"
#include "source/plan/instrument.h"
#include "source/plan/plan.h"
#include "source/plan/plan_words.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace {

bool Code(const Token& t) { return t.active && !t.in_directive; }

bool IsLoopBlock(const Block& b) {
  return b.kind == BlockKind::kControl && (b.name == "for" || b.name == "while" || b.name == "do");
}

struct SiteInfo {
  const FunctionDef* fn = nullptr;     // function site: the function; others: the one holding the site
  int block = -1;                      // loop sites
  bool per_element = false;            // reached only as part of one element of a plain loop
  std::string per_element_where;
  bool root = false;
  std::string loop_class;              // "group", "spin", "hot", "plain"
  std::string loop_var;
};

struct FnFacts {
  std::vector<CallSite> calls;
  std::vector<int> top_loops;
  bool has_loops = false;
  bool has_hot_calls = false;
  int resolved_calls = 0;
  int own_statements = 0;
  std::vector<std::string> existing;  // B labels already in the body
};

class Builder {
 public:
  Builder(const CodeIndex& index, Plan& plan, std::string prefix_word)
      : index_(index), plan_(plan), prefix_word_(std::move(prefix_word)) {}

  void Run(const FunctionDef* entry) {
    plan_.root.site = FunctionSite(entry);
    plan_.root.cores = kCoreBoth;
    info_[static_cast<size_t>(plan_.root.site)].root = true;
    plan_.sites[static_cast<size_t>(plan_.root.site)].cores = kCoreBoth;
    std::vector<const FunctionDef*> stack{entry};
    Expand(*entry, {}, kCoreBoth, "", plan_.root, stack, false);
    for (const PlanSite& s : plan_.sites)
      if (s.cores == kCoreAic || s.cores == kCoreAiv) plan_.split = true;
    Decide();
    Label();
    TopUp();
    TrimDown();
    Summarize();
  }

 private:
  const FnFacts& Facts(const FunctionDef& fn) {
    auto it = facts_.find(&fn);
    if (it != facts_.end()) return it->second;
    FnFacts f;
    f.calls = index_.Calls(fn);
    const CodeStructure& cs = *fn.cs;
    for (size_t b = 0; b < cs.blocks.size(); ++b) {
      const Block& blk = cs.blocks[b];
      if (!IsLoopBlock(blk) || cs.EnclosingFunction(blk.open) != fn.block) continue;
      f.has_loops = true;
      bool top = true;
      for (int p = blk.parent; p >= 0 && p != fn.block; p = cs.blocks[static_cast<size_t>(p)].parent)
        if (IsLoopBlock(cs.blocks[static_cast<size_t>(p)])) top = false;
      if (top) f.top_loops.push_back(static_cast<int>(b));
    }
    const auto& t = fn.file->lex.tokens;
    // Own work: statements that neither call a function of the tree nor declare one of its objects.
    int depth = 0;
    bool stmt_forwards = false;
    for (size_t k = fn.open + 1; k < fn.close && k < t.size(); ++k) {
      if (!Code(t[k])) continue;
      if (t[k].Is("(")) ++depth;
      if (t[k].Is(")")) --depth;
      if (t[k].kind == TokenKind::kIdentifier && (index_.IsClass(std::string(t[k].text)) ||
                                                  (index_.IsDefined(std::string(t[k].text)) && k + 1 < t.size() &&
                                                   (t[k + 1].Is("(") || t[k + 1].Is("<")))))
        stmt_forwards = true;
      if (t[k].Is("operator")) stmt_forwards = true;
      if (t[k].Is(";") && depth == 0) {
        if (!stmt_forwards) ++f.own_statements;
        stmt_forwards = false;
      }
    }
    for (const CallSite& c : f.calls) {
      if (index_.IsDefined(c.callee)) ++f.resolved_calls;
      else if (!HotWord(c.callee).empty()) f.has_hot_calls = true;
    }
    for (const TraceSite& s : fn.file->traces.sites)
      if (s.offset > t[fn.open].offset && s.offset < t[fn.close < t.size() ? fn.close : t.size() - 1].offset &&
          s.event_type == 'B')
        f.existing.push_back(s.label);
    return facts_.emplace(&fn, std::move(f)).first->second;
  }

  int AddSite(SiteKind kind, const FunctionDef& fn, int line, std::string name) {
    std::string key = fmt::format("{}|{}|{}", fn.file->rel, static_cast<int>(kind), line);
    auto it = site_by_key_.find(key);
    if (it != site_by_key_.end()) return it->second;
    PlanSite s;
    s.id = static_cast<int>(plan_.sites.size()) + 1;
    s.kind = kind;
    s.file = fn.file->rel;
    s.line = line;
    s.name = std::move(name);
    plan_.sites.push_back(std::move(s));
    info_.emplace_back();
    info_.back().fn = &fn;
    int idx = static_cast<int>(plan_.sites.size()) - 1;
    site_by_key_[key] = idx;
    return idx;
  }

  int FunctionSite(const FunctionDef* fn) {
    int s = AddSite(SiteKind::kFunction, *fn, fn->cs->blocks[static_cast<size_t>(fn->block)].line, fn->DisplayName());
    PlanSite& site = plan_.sites[static_cast<size_t>(s)];
    site.tokens = static_cast<int>(fn->close - fn->open);
    if (site.word.empty()) site.word = FunctionWord(*fn);
    return s;
  }

  std::string FunctionWord(const FunctionDef& fn) const {
    static const char* kGeneric[] = {"operator()", "Process", "Run", "Execute", "Compute", "Main", "Impl", "Init"};
    std::string name = fn.name;
    bool generic = false;
    for (const char* g : kGeneric) generic = generic || (name == g && std::string(g) != "Init");
    if (!generic || fn.owner.empty()) return KebabCase(name == "operator()" ? "call" : name);
    std::string w = KebabCase(fn.owner);
    if (!prefix_word_.empty() && w.starts_with(prefix_word_ + "-") && w.size() > prefix_word_.size() + 1)
      w = w.substr(prefix_word_.size() + 1);
    return w;
  }

  // The loop's class, variable and word.
  void ClassifyLoop(const FunctionDef& fn, int block, SiteInfo& info, PlanSite& site) {
    const CodeStructure& cs = *fn.cs;
    const Block& b = cs.blocks[static_cast<size_t>(block)];
    const auto& t = fn.file->lex.tokens;
    for (size_t k = b.head_begin; k < b.head_end && k + 1 < t.size(); ++k)
      if (t[k].kind == TokenKind::kIdentifier && (t[k + 1].Is("=") || t[k + 1].Is(":"))) {
        info.loop_var = std::string(t[k].text);
        break;
      }
    site.tokens = static_cast<int>(b.close - b.open);
    std::string g = GroupWord(t, b.head_begin, b.head_end);
    bool has_calls = false;
    for (size_t k = b.open; k + 1 < b.close; ++k)
      if (Code(t[k]) && t[k].kind == TokenKind::kIdentifier && t[k + 1].Is("(") &&
          (index_.IsDefined(std::string(t[k].text)) || !HotWord(std::string(t[k].text)).empty()))
        has_calls = true;
    // A group loop with a one-statement body is not worth a range per iteration.
    if (!g.empty() && b.name == "for" && !info.loop_var.empty() && (has_calls || site.tokens >= 30)) {
      info.loop_class = "group";
      site.word = g;
      site.kind = SiteKind::kLoopBody;
      return;
    }
    // A spin-wait: a while with an empty body somewhere in the loop (or the loop itself).
    bool spin = false;
    for (size_t k = b.open; k <= b.close && k < t.size(); ++k) {
      if (!Code(t[k]) || !t[k].Is("while")) continue;
      size_t open = k + 1;
      while (open < t.size() && !Code(t[open])) ++open;
      if (open >= t.size() || !t[open].Is("(")) continue;
      size_t close = MatchingClose(t, open), after = close + 1;
      while (after < t.size() && !Code(t[after])) ++after;
      if (after + 1 < t.size() && (t[after].Is(";") || (t[after].Is("{") && t[after + 1].Is("}")))) spin = true;
    }
    if (b.name == "while" && b.open + 1 == b.close) spin = true;
    if (spin) {
      info.loop_class = "spin";
      site.word = "wait";
      site.kind = SiteKind::kLoop;
      return;
    }
    info.loop_class = "plain";
    site.kind = SiteKind::kLoop;
    site.word = DataWord(fn.file->lex.tokens, b, info.loop_var);
  }

  void AddChild(PlanNode& parent, int site, unsigned cores, const std::string& role, PlanNode** out,
                const std::string& variant, int at_line) {
    for (PlanNode& c : parent.children)
      if (c.site == site && c.role == role && c.variant == variant) {
        ++c.calls;
        c.cores |= cores;
        *out = nullptr;
        return;
      }
    PlanNode n;
    n.site = site;
    n.cores = cores;
    n.role = role;
    n.variant = variant;
    n.at_line = at_line;
    parent.children.push_back(std::move(n));
    *out = &parent.children.back();
  }

  void Touch(int site, unsigned cores, const std::string& role, bool per_element, const std::string& where) {
    PlanSite& s = plan_.sites[static_cast<size_t>(site)];
    s.cores |= cores;
    if (!role.empty()) s.roles.insert(role);
    SiteInfo& i = info_[static_cast<size_t>(site)];
    if (per_element && !i.per_element) {
      i.per_element = true;
      i.per_element_where = where;
    }
  }

  void Expand(const FunctionDef& fn, const Bindings& bindings, unsigned cores, const std::string& role,
              PlanNode& node, std::vector<const FunctionDef*>& stack, bool per_element) {
    if (stack.size() > 24) return;
    const FnFacts facts = Facts(fn);
    const CodeStructure& cs = *fn.cs;
    std::map<int, size_t> loop_child;  // loop block -> index in node.children
    auto narrow = [&](const std::vector<int>& control, int line, unsigned c, bool* dead) {
      for (int blk : control) {
        unsigned cc = index_.ControlCore(fn, blk, bindings);
        if (cc == kCoreDead) *dead = true;
        if (cc == kCoreAic || cc == kCoreAiv) c &= cc;
      }
      unsigned rc = index_.RegionCore(fn.file, line);
      if (rc == kCoreAic || rc == kCoreAiv) c &= rc;
      if (c == kCoreNone) *dead = true;
      return c;
    };
    auto controls_of = [&](int block) {
      std::vector<int> v;
      for (int b = cs.blocks[static_cast<size_t>(block)].parent; b >= 0 && b != fn.block;
           b = cs.blocks[static_cast<size_t>(b)].parent)
        v.insert(v.begin(), b);
      return v;
    };
    auto role_of = [&](const std::vector<int>& control, size_t token) {
      for (auto it = control.rbegin(); it != control.rend(); ++it) {
        std::string r = index_.ControlRole(fn, *it, token);
        if (!r.empty()) return r;
      }
      return role;
    };
    for (int lb : facts.top_loops) {
      const Block& b = cs.blocks[static_cast<size_t>(lb)];
      std::vector<int> control = controls_of(lb);
      bool dead = false;
      unsigned lc = narrow(control, b.line, cores, &dead);
      if (dead) continue;
      std::string r = role_of(control, b.open);
      int s = AddSite(SiteKind::kLoop, fn, b.line, fmt::format("{} loop", b.name));
      SiteInfo& info = info_[static_cast<size_t>(s)];
      if (info.block < 0) {
        info.block = lb;
        ClassifyLoop(fn, lb, info, plan_.sites[static_cast<size_t>(s)]);
        if (!info.loop_var.empty()) plan_.sites[static_cast<size_t>(s)].name = fmt::format("{} {}", b.name, info.loop_var);
      }
      Touch(s, lc, r, per_element, "");
      PlanNode* child = nullptr;
      AddChild(node, s, lc, r, &child, "", b.line);
      for (size_t i = 0; i < node.children.size(); ++i)
        if (node.children[i].site == s) loop_child[lb] = i;
    }
    for (const CallSite& c : facts.calls) {
      bool dead = false;
      unsigned cc = narrow(c.control, c.line, cores, &dead);
      if (dead) continue;
      std::string r = role_of(c.control, c.token);
      int top_loop = -1;
      bool plain = false;
      for (int blk : c.control) {
        if (!IsLoopBlock(cs.blocks[static_cast<size_t>(blk)])) continue;
        if (top_loop < 0) top_loop = blk;
        auto it = loop_child.find(blk);
        if (it == loop_child.end() || info_[static_cast<size_t>(node.children[it->second].site)].loop_class != "group")
          plain = true;
      }
      if (top_loop >= 0 && !loop_child.count(top_loop)) continue;  // loop in a dead branch
      bool elem = per_element || plain;
      std::string where = fmt::format("{}:{}", fn.file->rel, c.line);
      const FunctionDef* callee = index_.Resolve(fn, c, bindings);
      PlanNode* parent = top_loop >= 0 ? &node.children[loop_child[top_loop]] : &node;
      int loop_site = top_loop >= 0 ? parent->site : -1;
      if (callee) {
        if (std::find(stack.begin(), stack.end(), callee) != stack.end()) continue;
        Bindings cb = index_.BindingsFor(*callee, c, bindings);
        unsigned core = cc;
        unsigned own = CoreOfText(callee->template_args);
        if (own == kCoreAic || own == kCoreAiv) core &= own;
        for (const auto& [k, v] : cb) {
          unsigned bc = CoreOfText(v);
          if (bc == kCoreAic || bc == kCoreAiv) core &= bc;
        }
        if (core == kCoreNone) continue;
        int s = FunctionSite(callee);
        Touch(s, core, r, elem, where);
        if (plain && loop_site >= 0) {
          std::string hw = HotWord(callee->name);
          SiteInfo& li = info_[static_cast<size_t>(loop_site)];
          if (!hw.empty() && li.loop_class == "plain") {
            li.loop_class = "hot";
            plan_.sites[static_cast<size_t>(loop_site)].word = KebabCase(callee->name);
          }
        }
        std::string variant;
        for (const auto& [k, v] : cb) variant += (variant.empty() ? "" : ", ") + v;
        PlanNode* child = nullptr;
        AddChild(*parent, s, core, r, &child, variant, c.line);
        if (!child) continue;
        stack.push_back(callee);
        // Expanding works on a copy: `child` points into a vector its siblings may grow later.
        size_t at = static_cast<size_t>(child - parent->children.data());
        PlanNode built = *child;
        Expand(*callee, cb, core, r, built, stack, elem);
        parent->children[at] = std::move(built);
        stack.pop_back();
        continue;
      }
      std::string hw = HotWord(c.callee);
      if (hw.empty()) continue;
      if (plain) {
        SiteInfo& li = info_[static_cast<size_t>(loop_site)];
        if (li.loop_class == "plain") {
          li.loop_class = "hot";
          plan_.sites[static_cast<size_t>(loop_site)].word = hw;
        }
        continue;
      }
      std::string name = c.qualifier.empty() ? c.callee : c.qualifier + "::" + c.callee;
      int s = AddSite(SiteKind::kStatement, fn, c.line, name);
      plan_.sites[static_cast<size_t>(s)].word = hw;
      plan_.sites[static_cast<size_t>(s)].tokens = 1;
      Touch(s, cc, r, per_element, where);
      PlanNode* child = nullptr;
      AddChild(*parent, s, cc, r, &child, "", c.line);
    }
    auto by_line = [](const PlanNode& a, const PlanNode& b) { return a.at_line < b.at_line; };
    for (PlanNode& c : node.children) std::stable_sort(c.children.begin(), c.children.end(), by_line);
    std::stable_sort(node.children.begin(), node.children.end(), by_line);
  }

  std::vector<std::string> IndexArgs(const PlanSite& s, const SiteInfo& info) const {
    const FunctionDef& fn = *info.fn;
    if (s.kind == SiteKind::kLoopBody) return {info.loop_var};
    if (info.root) return {};
    // Inside a traced group loop: its index.
    size_t token = s.kind == SiteKind::kFunction ? fn.open : 0;
    if (s.kind != SiteKind::kFunction) {
      const auto& t = fn.file->lex.tokens;
      for (size_t k = fn.open; k < fn.close; ++k)
        if (t[k].line == s.line && Code(t[k])) {
          token = k;
          break;
        }
      for (int b = fn.cs->InnermostBlock(token); b >= 0 && b != fn.block; b = fn.cs->blocks[static_cast<size_t>(b)].parent) {
        for (size_t i = 0; i < info_.size(); ++i)
          if (info_[i].fn == &fn && info_[i].block == b && info_[i].loop_class == "group" && &info_[i] != &info &&
              Inserts(plan_.sites[i].decision))
            return {info_[i].loop_var};
      }
    }
    std::string group, stage;
    for (const std::string& p : fn.params) {
      if (IsIndexName(p, "stage")) stage = p;
      else if (IsIndexName(p, "group") || IsIndexName(p, "expert")) group = p;
    }
    if (!stage.empty() && !group.empty()) return {stage, group};
    if (!group.empty()) return {group};
    if (!stage.empty()) return {stage};
    return {};
  }

  void Decide() {
    for (size_t i = 0; i < plan_.sites.size(); ++i) {
      PlanSite& s = plan_.sites[i];
      SiteInfo& info = info_[i];
      const FnFacts& owner = Facts(*info.fn);
      if (s.cores == kCoreNone) s.cores = kCoreBoth;
      if (info.root) {
        s.decision = Decision::kPhase;
        s.reason = "kernel entry: the root range";
        s.word = "processing";
        continue;
      }
      if (s.kind == SiteKind::kFunction) {
        const FnFacts& f = owner;
        std::string hot = HotWord(info.fn->name);
        if (!f.existing.empty()) {
          s.decision = Decision::kExisting;
          s.label = f.existing.front();
          s.reason = fmt::format("already traced: {} range(s) in the body, kept", f.existing.size());
        } else if (info.per_element) {
          s.decision = Decision::kSkip;
          s.reason = fmt::format("called per element inside a loop ({}); the loop is traced instead",
                                 info.per_element_where);
        } else if (!hot.empty()) {
          s.decision = Decision::kHot;
          s.reason = fmt::format("hot semantic ({}): kept as its own range", hot);
        } else if (info.fn->name == info.fn->owner && !f.has_loops && !f.has_hot_calls) {
          s.decision = Decision::kSkip;
          s.reason = "constructor without loops or sync";
        } else if (!info.fn->returns_void && !f.has_loops && !f.has_hot_calls) {
          s.decision = Decision::kSkip;
          s.reason = "helper returning a value (no loop, sync or communication)";
        } else if (!f.has_loops && !f.has_hot_calls && f.resolved_calls > 0 && f.own_statements <= 1 &&
                   info.fn->name != "operator()") {  // a functor's operator() is a phase boundary
          s.decision = Decision::kMerge;
          s.reason = "thin wrapper: only forwards to its callees";
        } else if (s.tokens < 40 && !f.has_loops && !f.has_hot_calls && f.resolved_calls == 0) {
          s.decision = Decision::kSkip;
          s.reason = fmt::format("small helper ({} tokens, no loop or sync)", s.tokens);
        } else {
          s.decision = Decision::kPhase;
          s.reason = f.has_loops ? fmt::format("phase: {} top-level loop(s)", f.top_loops.size())
                                 : fmt::format("phase: {} statements", f.own_statements);
        }
      } else if (!owner.existing.empty()) {
        s.decision = Decision::kSkip;
        s.reason = "the function is already traced by hand";
      } else if (info.per_element) {
        s.decision = Decision::kSkip;
        s.reason = "runs per element of an enclosing loop";
      } else if (s.kind == SiteKind::kStatement) {
        s.decision = Decision::kHot;
        s.reason = fmt::format("hot semantic ({})", s.word);
      } else if (info.loop_class == "group") {
        s.decision = Decision::kPhase;
        s.reason = fmt::format("{} loop: traced per iteration with index {}", s.word, info.loop_var);
      } else if (info.loop_class == "spin") {
        s.decision = Decision::kHot;
        s.reason = "spin-wait on a flag (wait)";
      } else if (info.loop_class == "hot") {
        s.decision = Decision::kHot;
        s.reason = fmt::format("loop around {} per element: traced as a whole", s.word);
      } else {
        s.decision = Decision::kSkip;
        s.optional = true;
        s.reason = "plain loop without sync or communication; traced only when the density target needs it";
      }
    }
    // The root is already traced when some reached function opens "processing" itself.
    PlanSite& root = plan_.sites[static_cast<size_t>(plan_.root.site)];
    for (size_t i = 0; i < plan_.sites.size(); ++i) {
      const auto& ex = Facts(*info_[i].fn).existing;
      if (std::find(ex.begin(), ex.end(), "processing") != ex.end()) {
        root.decision = Decision::kExisting;
        root.label = "processing";
        root.reason = fmt::format("already traced: \"processing\" opens in {}", plan_.sites[i].name);
        break;
      }
    }
    // With "processing" opened by hand below the entry, new ranges could not nest under it.
    for (const PlanNode& c : plan_.root.children) SkipUnderExisting(c, root.decision == Decision::kExisting);
    SkipUnderSkipped(plan_.root, false);
    // Marks must be placeable: a one-line body or a statement sharing its line is skipped.
    for (size_t i = 0; i < plan_.sites.size(); ++i) {
      PlanSite& s = plan_.sites[i];
      if (!Inserts(s.decision) && !s.optional) continue;
      const FunctionDef& fn = *info_[i].fn;
      PlanSite probe = s;
      probe.label = "x";
      Result<SiteMarks> m = ComputeSiteMarks(*fn.file, *fn.cs, probe);
      if (!m.ok()) {
        s.decision = Decision::kSkip;
        s.optional = false;
        s.reason = m.status().message();
      }
    }
  }

  // Below a range traced by hand nothing is added: its author chose the granularity there.
  void SkipUnderExisting(const PlanNode& node, bool under) {
    PlanSite& s = plan_.sites[static_cast<size_t>(node.site)];
    if (under && s.decision != Decision::kExisting) {
      s.decision = Decision::kSkip;
      s.optional = false;
      s.reason = "inside a range traced by hand; kept as it is";
    }
    for (const PlanNode& c : node.children) SkipUnderExisting(c, under || s.decision == Decision::kExisting);
  }

  // What a skipped helper calls is part of that helper: not traced either.
  void SkipUnderSkipped(const PlanNode& node, bool under) {
    PlanSite& s = plan_.sites[static_cast<size_t>(node.site)];
    if (under && Inserts(s.decision)) {
      s.decision = Decision::kSkip;
      s.optional = false;
      s.reason = "called from a skipped helper";
    }
    bool skipped = s.decision == Decision::kSkip && s.kind == SiteKind::kFunction;
    for (const PlanNode& c : node.children) SkipUnderSkipped(c, under || skipped);
  }

  void Label() {
    for (PlanSite& s : plan_.sites) {
      if (s.decision != Decision::kExisting) s.label.clear();
      s.depth = 0;
      s.index.clear();
    }
    labels_.clear();
    LabelNode(plan_.root, "", 0);
  }

  static std::string StripSuffix(const std::string& label) {
    for (const char* sfx : {" aic", " aiv"})
      if (label.ends_with(sfx)) return label.substr(0, label.size() - 4);
    return label;
  }

  void LabelNode(const PlanNode& node, const std::string& prefix, int level) {
    PlanSite& s = plan_.sites[static_cast<size_t>(node.site)];
    const SiteInfo& info = info_[static_cast<size_t>(node.site)];
    std::string child_prefix = prefix;
    int child_level = level;
    if (info.root) {
      s.label = "processing";
      s.depth = 1;
      child_level = 1;
    } else if (Inserts(s.decision) && s.depth == 0) {
      std::string base = prefix.empty() ? s.word : prefix + " " + s.word;
      std::string suffix = plan_.split && s.cores == kCoreAic ? " aic" : plan_.split && s.cores == kCoreAiv ? " aiv" : "";
      std::string label = base + suffix;
      for (int n = 2; labels_.count(label) && labels_[label] != node.site; ++n)
        label = fmt::format("{}-{}{}", base, n, suffix);
      int words = static_cast<int>(std::count(label.begin(), label.end(), ' ')) + 1;
      if (words + 1 > kMaxLevels) {
        s.decision = Decision::kMerge;
        s.reason = fmt::format("would be level {} (more than {}): merged into its parent", words + 1, kMaxLevels);
      } else {
        s.label = label;
        s.depth = level + 1;
        s.index = IndexArgs(s, info);
        labels_[label] = node.site;
      }
    }
    if (!s.label.empty() && (Inserts(s.decision) || s.decision == Decision::kExisting)) {
      child_prefix = info.root ? "" : StripSuffix(s.label);
      child_level = s.depth;
    }
    for (const PlanNode& c : node.children) LabelNode(c, child_prefix, child_level);
  }

  void Count(std::set<std::string>* aic, std::set<std::string>* aiv) const {
    for (size_t i = 0; i < plan_.sites.size(); ++i) {
      const PlanSite& s = plan_.sites[i];
      std::vector<std::string> labels;
      if (Inserts(s.decision) && !s.label.empty()) labels.push_back(s.label);
      if (s.decision == Decision::kExisting) labels = facts_.at(info_[i].fn).existing;
      for (const std::string& l : labels) {
        if (s.cores & kCoreAic) aic->insert(l);
        if (s.cores & kCoreAiv) aiv->insert(l);
      }
    }
  }

  // Adds plain loops, largest first, while a core type is under the target and none goes over.
  void TopUp() {
    for (int round = 0; round < 64; ++round) {
      std::set<std::string> aic, aiv;
      Count(&aic, &aiv);
      unsigned need = 0;
      if (static_cast<int>(aic.size()) < kTargetMin) need |= kCoreAic;
      if (static_cast<int>(aiv.size()) < kTargetMin) need |= kCoreAiv;
      if (!need) return;
      int best = -1;
      for (size_t i = 0; i < plan_.sites.size(); ++i) {
        const PlanSite& s = plan_.sites[i];
        if (!s.optional || s.decision != Decision::kSkip || !(s.cores & need)) continue;
        if ((s.cores & kCoreAic) && static_cast<int>(aic.size()) >= kTargetMax) continue;
        if ((s.cores & kCoreAiv) && static_cast<int>(aiv.size()) >= kTargetMax) continue;
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

  // A range whose body only calls ranges of its own (no statements of its own work).
  bool OnlyCallsChildren(size_t i) const {
    const PlanSite& s = plan_.sites[i];
    const SiteInfo& info = info_[i];
    if (s.kind != SiteKind::kLoopBody || info.block < 0) return false;
    const FunctionDef& fn = *info.fn;
    const Block& b = fn.cs->blocks[static_cast<size_t>(info.block)];
    const auto& t = fn.file->lex.tokens;
    bool calls = false;
    int depth = 0;
    for (size_t k = b.open + 1; k < b.close; ++k) {
      if (!Code(t[k])) continue;
      if (t[k].Is("(")) ++depth;
      if (t[k].Is(")")) --depth;
      if (t[k].kind == TokenKind::kIdentifier && index_.IsDefined(std::string(t[k].text)) && k + 1 < t.size() &&
          t[k + 1].Is("("))
        calls = true;
      if (t[k].Is("{")) return false;  // nested blocks: work of its own
      if (t[k].Is(";") && depth == 0) {
        if (!calls) return false;
        calls = false;
      }
    }
    return true;
  }

  // Over the target: merge, in order, non-blocking signals (a set-flag takes no time worth a
  // range), then per-iteration loops whose body only calls traced functions.
  void TrimDown() {
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < plan_.sites.size(); ++i) {
        std::set<std::string> aic, aiv;
        Count(&aic, &aiv);
        unsigned over = 0;
        if (static_cast<int>(aic.size()) > kTargetMax) over |= kCoreAic;
        if (static_cast<int>(aiv.size()) > kTargetMax) over |= kCoreAiv;
        if (!over) return;
        PlanSite& s = plan_.sites[i];
        if (!Inserts(s.decision) || !(s.cores & over) || info_[i].root) continue;
        if ((s.cores & kCoreAic) && !(over & kCoreAic) && static_cast<int>(aic.size()) <= kTargetMin) continue;
        if ((s.cores & kCoreAiv) && !(over & kCoreAiv) && static_cast<int>(aiv.size()) <= kTargetMin) continue;
        bool signal = s.kind == SiteKind::kStatement && (s.word.find("set-flag") != std::string::npos ||
                                                          s.word.find("notify") != std::string::npos);
        if (pass == 0 ? !signal : !OnlyCallsChildren(i)) continue;
        s.decision = Decision::kMerge;
        s.reason = fmt::format("merged to keep {} at the target ({} AIC, {} AIV labels): {}",
                               CoreName(over), aic.size(), aiv.size(),
                               pass == 0 ? "a non-blocking signal" : "the loop body only calls traced functions");
        Label();
      }
    }
  }

  void Summarize() {
    std::set<std::string> aic, aiv;
    Count(&aic, &aiv);
    plan_.labels.aic.assign(aic.begin(), aic.end());
    plan_.labels.aiv.assign(aiv.begin(), aiv.end());
    for (const PlanSite& s : plan_.sites) {
      int d = s.depth;
      if (s.decision == Decision::kExisting) d = static_cast<int>(std::count(s.label.begin(), s.label.end(), ' ')) + 2;
      if ((Inserts(s.decision) || s.decision == Decision::kExisting) && d > plan_.max_depth) plan_.max_depth = d;
    }
    for (auto [name, n] : {std::pair<const char*, size_t>{"AIC", aic.size()}, {"AIV", aiv.size()}}) {
      int c = static_cast<int>(n);
      if (c < kDensityMin || c > kDensityMax) {
        plan_.warnings.push_back(fmt::format("{}: {} distinct labels, outside {}-{}: {}", name, c, kDensityMin,
                                             kDensityMax, c < kDensityMin ? "the tree has too few phase boundaries; "
                                             "add ranges by hand or edit the plan" : "merge thin ranges in the plan"));
      } else if (c < kTargetMin || c > kTargetMax) {
        plan_.warnings.push_back(fmt::format("{}: {} distinct labels, within {}-{} but off the target {}-{}", name, c,
                                             kDensityMin, kDensityMax, kTargetMin, kTargetMax));
      }
    }
    if (plan_.max_depth > kMaxLevels)
      plan_.warnings.push_back(fmt::format("depth {} exceeds {} levels", plan_.max_depth, kMaxLevels));
  }

  const CodeIndex& index_;
  Plan& plan_;
  std::string prefix_word_;
  std::vector<SiteInfo> info_;
  std::map<std::string, int> site_by_key_;
  std::map<const FunctionDef*, FnFacts> facts_;
  std::map<std::string, int> labels_;
};

Result<fs::path> FindEntry(const fs::path& op_dir) {
  for (const fs::path& dir : {op_dir / "op_kernel", op_dir}) {
    if (!fs::is_directory(dir)) continue;
    OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> files, ListSourceFiles(dir));
    for (const fs::path& p : files) {
      std::string ext = p.extension().string();
      if (ext != ".cpp" && ext != ".cc" && ext != ".cu") continue;
      OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
      if (text.find("__global__") != std::string::npos) return p;
    }
  }
  return BadInputError("{}: no kernel entry found (no .cpp/.cc/.cu with a __global__ function under op_kernel/ or "
                       "the directory); pass --entry FILE",
                       op_dir.string());
}

}  // namespace

Result<Plan> BuildPlan(const PlanOptions& options) {
  Plan plan;
  fs::path op_dir = ResolveAgainstCwd(options.op_dir).lexically_normal();
  std::error_code ec;
  if (!fs::is_directory(op_dir, ec))
    return NotFoundError("{}: not a directory; pass the operator directory (the one holding op_kernel/)",
                         options.op_dir.string());
  plan.op_dir = op_dir;
  fs::path entry;
  if (options.entry.empty()) {
    OPTRACE_ASSIGN_OR_RETURN(entry, FindEntry(op_dir));
  } else {
    entry = ResolveAgainstCwd(options.entry).lexically_normal();
    // `--entry op_kernel/k.cpp` may be given relative to --op.
    if (!fs::is_regular_file(entry, ec) && options.entry.is_relative()) entry = (op_dir / options.entry).lexically_normal();
    if (!fs::is_regular_file(entry, ec))
      return NotFoundError("{}: no such entry file (tried it relative to the working directory and to {})",
                           options.entry.string(), options.op_dir.string());
  }
  SourceSet set(op_dir);
  OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> files, ListSourceFiles(op_dir));
  for (const fs::path& p : files) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    set.AddText(set.Relative(p), RevertText(text));
  }
  IncludeOptions io;
  io.limit = op_dir;
  OPTRACE_ASSIGN_OR_RETURN(IncludeTree tree, WalkIncludeTree(set, entry, io));
  set.FindAllTraces();
  CodeIndex index(tree.files);
  const FunctionDef* root = index.FindEntry(tree.entry);
  if (!root)
    return BadInputError("{}: no function definition in the entry file; pass the kernel's .cpp with --entry",
                         set.Relative(entry));
  plan.entry = set.Relative(entry);
  plan.entry_function = root->DisplayName();
  std::string prefix = KebabCase(root->name);
  prefix = prefix.substr(0, prefix.find('-'));
  Builder(index, plan, prefix).Run(root);
  return plan;
}

}  // namespace optrace::source
