// Plan step 3, name: labels from the code's own words (functions, classes, loop writes, flags),
// prefixed by their parents' and made distinct where two sites would share one.
#include "source/plan/plan_builder.h"

#include <set>

namespace optrace::source {

namespace plan_steps {

std::string Builder::FunctionWord(const FunctionDef& fn, const ix::ClassDef* cls) {
  if (fn.is_lambda) return fn.name == "lambda" ? "" : NameWord(fn.name);
  std::string base = fn.name;
  bool from_class = false;
  if (GenericName(fn.name) && cls)
    base = cls->name, from_class = true;
  else if (GenericName(fn.name) && !fn.qualifier.parts.empty())
    base = fn.qualifier.Last(), from_class = true;
  else if (fn.name == "operator()")
    return "";
  std::vector<std::string> w = NameWords(base);
  if (w.empty()) return "";
  // The kernel's own class: its words are the kernel's, up to a dtype suffix the entry's name
  // carries (bgmv_expand_half for BGMVExpand).
  bool own = w.size() <= kernel_words_.size() && std::equal(w.begin(), w.end(), kernel_words_.begin());
  for (size_t i = w.size(); own && i < kernel_words_.size(); ++i) {
    static const char* kTypeWords[] = {"half",  "float", "bf16", "bfloat16", "fp16", "fp32", "fp8", "int8", "int4",
                                       "int32", "t",     "w4",   "a8",       "w8",   "a16",  "v2",  "v3"};
    bool type_word = false;
    for (const char* x : kTypeWords) type_word = type_word || kernel_words_[i] == x;
    own = type_word;
  }
  if (own && from_class) return "";
  // MoeDispatch in kernel moe_dispatch_combine: "dispatch".
  if (from_class && w.size() > 1 && !kernel_words_.empty() && w[0] == kernel_words_[0]) w.erase(w.begin());
  std::string joined;
  for (const std::string& x : w) joined += (joined.empty() ? "" : "_") + x;
  return NameWord(joined);
}

std::string Builder::WrittenWord(const TokenStream& s, const Control& c, const std::string& var) {
  // Variables the loop declares (`float curMax = ...`, `LocalTensor<T> x;`) are its temporaries:
  // a later write to one (`curMax = v0`) names a variable, not what the loop produces.
  auto declares = [&](size_t j) {  // the identifier at j is declared there
    if (j < 1 || !s.IsIdent(j) || j + 1 >= s.size()) return false;
    std::string_view before = s.Text(j - 1), after = s.Text(j + 1);
    bool typed = (s.IsIdent(j - 1) && before != "return" && before != "case" && before != "else" &&
                  before != "throw" && before != "goto" && before != "co_return") ||
                 before == ">" || before == "*" || before == "&";
    return typed && (after == "=" || after == ";" || after == "{" || after == "[" || after == "," || after == "(");
  };
  std::set<std::string_view> locals;
  for (size_t k = c.body_begin; k < c.body_end && k + 1 < s.size(); ++k)
    if (declares(k)) locals.insert(s.Text(k));
  for (size_t k = c.body_begin; k < c.body_end && k + 1 < s.size(); ++k) {
    std::string_view x = s.Text(k);
    bool assign = x == "=" || x == "+=" || x == "-=" || x == "*=" || x == "|=" || x == "&=";
    bool set = s.IsIdent(k) && (x == "SetValue" || x == "SetGlobalBuffer") && s.Is(k + 1, "(") && k > 0 &&
               (s.Is(k - 1, ".") || s.Is(k - 1, "->"));
    if (!assign && !set) continue;
    // The name before: skip a subscript, take the last member of a chain.
    size_t j = set ? k - 1 : k;
    while (j > c.body_begin && s.Is(j - 1, "]")) {
      size_t m = s.Match(j - 1);
      if (m >= s.size() || m <= c.body_begin) break;
      j = m;
    }
    if (j == 0 || !s.IsIdent(j - 1)) continue;
    std::string name(s.Text(j - 1));
    if (name == var || name == "this" || locals.count(s.Text(j - 1))) continue;
    // What the loop writes names it (`outGm[i] = `, `acc_ += `, `buf.SetValue(`); a variable it
    // declares does not: `int64_t offset = ...` or `auto lZero32 = ...` would make a temporary's
    // name a label.
    if (!set && j >= 2) {
      std::string_view before = s.Text(j - 2);
      bool declared = (s.IsIdent(j - 2) && before != "return" && before != "case" && before != "else") ||
                      before == ">" || before == "*" || before == "&";
      if (declared) continue;
    }
    std::string w = NameWord(name);
    if (w.size() >= 2 && w != var) return w;
  }
  return "";
}

std::string Builder::StatementWord(const TokenStream& s, const ix::CallSite& c, const std::string& hw) {
  if ((c.name == "CrossCoreWaitFlag" || c.name == "CrossCoreSetFlag") && c.args.size() == 1) {
    // The flag's name: the last name in the argument that is not a call or a scope (`sched.vec1Done` -> vec1Done).
    std::string flag;
    for (size_t k = c.args[0].first; k < c.args[0].second; ++k)
      if (s.IsIdent(k) && !s.Is(k + 1, "(") && !s.Is(k + 1, ".") && !s.Is(k + 1, "::") && !s.Is(k + 1, "->") &&
          !s.Is(k + 1, "<"))
        flag = std::string(s.Text(k));
    std::vector<std::string> w = NameWords(flag);
    std::vector<std::string> kept;
    for (const std::string& x : w)
      if (x != "flag" && x != "idx" && x != "id" && x != "sync" && x != "event") kept.push_back(x);
    if (!kept.empty() && kept.size() <= 3) {
      std::string word = c.name == "CrossCoreWaitFlag" ? "wait" : "set";
      for (const std::string& x : kept) word += "-" + x;
      return word;
    }
  }
  return hw;
}

void Builder::NameLoopFromCall(int loop_site, const FunctionDef& callee, const ix::ClassDef* cls) {
  SiteInfo& li = info_[static_cast<size_t>(loop_site)];
  PlanSite& ls = plan_.sites[static_cast<size_t>(loop_site)];
  std::string w = FunctionWord(callee, cls ? cls : callee.owner);
  if (w.empty()) return;
  // Not named after what only prepares the work (`InitProcessTopK`), a getter without a loop
  // (`GetMaxValue`), or the word of the function the loop is in (it would repeat its parent).
  if (IsSetUpName(callee.name)) return;
  if (!callee.returns_void && !Facts(callee).has_loops) return;
  if (li.fn && w == FunctionWord(*li.fn, li.fn->owner)) return;
  std::string hot = HotNameWord(callee.name);
  if (li.loop_class == "plain" && !hot.empty()) {
    li.loop_class = "hot";
    ls.word = w;
    return;
  }
  // A plain loop is named after the largest function it runs.
  if (li.loop_class == "plain") {
    int size = static_cast<int>(callee.body_close - callee.body_open);
    if (size > loop_word_size_[loop_site]) {
      loop_word_size_[loop_site] = size;
      ls.word = w;
    }
  }
}

std::vector<std::string> Builder::IndexArgs(int site_index) {
  const PlanSite& s = plan_.sites[static_cast<size_t>(site_index)];
  const SiteInfo& info = info_[static_cast<size_t>(site_index)];
  if (info.root) return {};
  if (s.kind == SiteKind::kLoopBody)
    return info.loop_var_integer ? std::vector<std::string>{info.loop_var} : std::vector<std::string>{};
  const FunctionDef& fn = *info.fn;
  if (s.kind != SiteKind::kFunction) {
    // Inside a traced group loop of the same function: its index.
    const FunctionBody& body = index_.Body(fn);
    int at = -1;
    for (size_t c = 0; c < body.controls.size(); ++c)
      if ((*fn.stream)[body.controls[c].keyword].line == s.line) at = static_cast<int>(c);
    for (const ix::CallSite& c : body.calls)
      if (at < 0 && (*fn.stream)[c.pos].line == s.line) at = c.control;
    int start = at >= 0 ? (s.kind == SiteKind::kStatement ? at : body.controls[static_cast<size_t>(at)].parent) : -1;
    for (int c = start; c >= 0; c = body.controls[static_cast<size_t>(c)].parent) {
      for (size_t i = 0; i < info_.size(); ++i)
        if (info_[i].fn == &fn && info_[i].control == c && info_[i].loop_class == "group" &&
            Inserts(plan_.sites[i].decision) && info_[i].loop_var_integer)
          return {info_[i].loop_var};
    }
  }
  std::string group, stage;
  for (const ix::Param& p : fn.params) {
    if (!IsIntegerType(p.type_text)) continue;
    if (IsIndexName(p.name, "stage"))
      stage = p.name;
    else if (IsIndexName(p.name, "group") || IsIndexName(p.name, "expert"))
      group = p.name;
  }
  if (!stage.empty() && !group.empty()) return {stage, group};
  if (!group.empty()) return {group};
  if (!stage.empty()) return {stage};
  return {};
}

void Builder::Label() {
  LabelFixedPoint();
  if (DistinguishSameLabels()) LabelFixedPoint();
}

void Builder::Walk(const PlanKernel& k, const PlanNode& node, const std::string& prefix, int level,
                   const std::string& parent_role, std::map<int, std::vector<Occurrence>>* occ) {
  PlanSite& s = plan_.sites[static_cast<size_t>(node.site)];
  const SiteInfo& info = info_[static_cast<size_t>(node.site)];
  std::string child_prefix = prefix;
  int child_level = level;
  std::string role = node.role.empty() ? parent_role : node.role;
  if (info.root) {
    if (s.label.empty()) s.label = "processing";
    s.depth = 1;
    child_level = 1;
    child_prefix = "";
  } else if (Inserts(s.decision)) {
    Occurrence o;
    o.prefix = prefix;
    o.level = level;
    o.cores = (node.cores ? node.cores : s.cores) & k.cores;
    // The AIV role where it changes, when it is a short word from the code (send, recv).
    if (!node.role.empty() && node.role != parent_role && s.word.find(node.role) == std::string::npos &&
        std::count(node.role.begin(), node.role.end(), '-') <= 1)
      o.role = node.role;
    (*occ)[node.site].push_back(o);
    if (!s.label.empty()) {
      child_prefix = StripSuffix(s.label);
      child_level = s.depth > 0 ? s.depth : level + 1;
    }
  } else if (s.decision == Decision::kExisting && !s.label.empty()) {
    child_prefix = StripSuffix(s.label);
    child_level = static_cast<int>(std::count(s.label.begin(), s.label.end(), ' ')) + 2;
  }
  for (const PlanNode& c : node.children) Walk(k, c, child_prefix, child_level, role, occ);
}

bool Builder::DistinguishSameLabels() {
  std::map<std::string, std::vector<size_t>> by_label;
  for (size_t i = 0; i < plan_.sites.size(); ++i) {
    const PlanSite& s = plan_.sites[i];
    if (Inserts(s.decision) && s.decision != Decision::kExisting && !s.label.empty() && s.kind == SiteKind::kFunction &&
        !info_[i].root)
      by_label[s.label].push_back(i);
  }
  bool changed = false;
  for (auto& [label, sites] : by_label) {
    std::map<const ix::ClassDef*, std::vector<size_t>> by_class;
    for (size_t i : sites) by_class[info_[i].fn ? info_[i].fn->owner : nullptr].push_back(i);
    if (by_class.size() < 2 || by_class.count(nullptr)) continue;
    // Variants chosen by tiling key or branch (add_rms_norm_bias's SingleN / MultiN kernels)
    // never run together: one label for their same phase is what a user compares.
    bool together = false;
    for (auto x = by_class.begin(); x != by_class.end() && !together; ++x)
      for (auto y = std::next(x); y != by_class.end() && !together; ++y)
        together = !Alternatives(x->second.front(), y->second.front());
    if (!together) continue;
    std::vector<std::vector<std::string>> words;
    for (auto& [cls, list] : by_class) words.push_back(NameWords(cls->name));
    // The last position, counted from the end, where the class names differ.
    size_t from_end = 0;
    bool found = false;
    for (size_t k = 0; !found; ++k) {
      bool all_have = true, differ = false;
      for (const auto& w : words) {
        if (w.size() <= k)
          all_have = false;
        else if (w[w.size() - 1 - k] != words[0][words[0].size() - 1 - std::min(k, words[0].size() - 1)])
          differ = true;
      }
      if (!all_have) break;
      if (differ) found = true, from_end = k;
    }
    if (!found) continue;
    size_t n = 0;
    for (auto& [cls, list] : by_class) {
      const std::vector<std::string>& w = words[n++];
      const std::string& distinct = w[w.size() - 1 - from_end];
      for (size_t i : list) {
        PlanSite& s = plan_.sites[i];
        if (s.word.rfind(distinct + "-", 0) == 0 || s.word == distinct) continue;
        std::vector<std::string> own = NameWords(s.word);
        std::string base = own.size() > 3 ? own[0] + "-" + own[1] : s.word;
        s.word = distinct + "-" + base;
        changed = true;
      }
    }
  }
  return changed;
}

bool Builder::Alternatives(int a, int b) {
  for (const PlanKernel& k : plan_.kernels) {
    std::vector<const PlanNode*> pa, pb, path;
    std::function<void(const PlanNode&)> find = [&](const PlanNode& n) {
      path.push_back(&n);
      if (n.site == a && pa.empty()) pa = path;
      if (n.site == b && pb.empty()) pb = path;
      for (const PlanNode& c : n.children) find(c);
      path.pop_back();
    };
    find(k.root);
    if (pa.empty() && pb.empty()) continue;
    if (pa.empty() || pb.empty()) return true;  // different kernels
    size_t l = 0;
    while (l < pa.size() && l < pb.size() && pa[l] == pb[l]) ++l;
    if (l == 0 || l >= pa.size() || l >= pb.size()) return false;
    const FunctionDef* fn = info_[static_cast<size_t>(pa[l - 1]->site)].fn;
    if (!fn) return false;
    const FunctionBody& body = index_.Body(*fn);
    auto control_at = [&](int line) {
      for (const ix::CallSite& c : body.calls)
        if (c.line == line) return c.control;
      for (size_t c = 0; c < body.controls.size(); ++c)
        if (body.controls[c].line == line) return static_cast<int>(c);
      return -2;
    };
    int ca = control_at(pa[l]->at_line), cb = control_at(pb[l]->at_line);
    if (ca == -2 || cb == -2) return false;
    return ExclusiveControls(body, *fn->stream, ca, cb);
  }
  return false;
}

bool Builder::ExclusiveControls(const FunctionBody& body, const TokenStream& s, int ca, int cb) {
  auto chain = [&](int c) {
    std::vector<int> out;
    for (; c >= 0; c = body.controls[static_cast<size_t>(c)].parent) out.push_back(c);
    return out;
  };
  auto tiling = [&](int c) {
    const Control& x = body.controls[static_cast<size_t>(c)];
    return x.kind == Control::kIf && s.Join(x.head_begin, x.head_end).find("TILING_KEY") != std::string::npos;
  };
  for (int x : chain(ca)) {
    for (int y : chain(cb)) {
      if (x == y) continue;
      const Control& cx = body.controls[static_cast<size_t>(x)];
      const Control& cy = body.controls[static_cast<size_t>(y)];
      if ((cx.kind == Control::kElse && cx.else_of == y) || (cy.kind == Control::kElse && cy.else_of == x)) return true;
      if (cx.kind == Control::kCase && cy.kind == Control::kCase && cx.parent == cy.parent) return true;
      if (tiling(x) && tiling(y)) return true;
    }
  }
  return false;
}

void Builder::LabelFixedPoint() {
  for (PlanSite& s : plan_.sites) {
    if (s.decision != Decision::kExisting) s.label.clear();
    s.depth = 0;
    s.index.clear();
  }
  for (int round = 0; round < 8; ++round) {
    std::map<int, std::vector<Occurrence>> occ;
    for (const PlanKernel& k : plan_.kernels) Walk(k, k.root, "", 0, "", &occ);
    bool changed = false;
    for (auto& [site, list] : occ) {
      PlanSite& s = plan_.sites[static_cast<size_t>(site)];
      if (!Inserts(s.decision)) continue;
      std::string common = list[0].prefix;
      int level = list[0].level;
      bool same_role = true;
      unsigned cores = 0;
      for (const Occurrence& o : list) {
        common = CommonWords(common, o.prefix);
        level = std::min(level, o.level);
        same_role = same_role && o.role == list[0].role;
        cores |= o.cores;
      }
      std::string word = s.word;
      if (same_role && !list[0].role.empty()) word = list[0].role + " " + word;
      // `init` inside `init`: the same word again says nothing new; the parent's range covers it.
      std::string last = common.substr(common.rfind(' ') == std::string::npos ? 0 : common.rfind(' ') + 1);
      if (!common.empty() && last == word && s.kind == SiteKind::kFunction) {
        s.decision = Decision::kMerge;
        s.reason = fmt::format("same word as its parent (\"{}\"): merged into it", word);
        s.label.clear();
        changed = true;
        continue;
      }
      const PlanKernel& k = plan_.kernels[static_cast<size_t>(*info_[static_cast<size_t>(site)].kernels.begin())];
      std::string suffix = k.split && cores == kPlanAic ? " aic" : k.split && cores == kPlanAiv ? " aiv" : "";
      std::string label = (common.empty() ? word : common + " " + word) + suffix;
      int words = static_cast<int>(std::count(label.begin(), label.end(), ' ')) + 1;
      if (words + 1 > kMaxLevels) {
        s.decision = Decision::kMerge;
        s.reason = fmt::format("would be level {} (more than {}): merged into its parent", words + 1, kMaxLevels);
        s.label.clear();
        changed = true;
        continue;
      }
      if (label != s.label || s.depth != level + 1) changed = true;
      s.label = label;
      s.depth = level + 1;
    }
    if (!changed) break;
  }
  for (size_t i = 0; i < plan_.sites.size(); ++i)
    if (Inserts(plan_.sites[i].decision) && !plan_.sites[i].label.empty())
      plan_.sites[i].index = IndexArgs(static_cast<int>(i));
}

std::string Builder::CommonWords(const std::string& a, const std::string& b) {
  if (a == b) return a;
  std::string out;
  size_t i = 0;
  while (true) {
    size_t ea = a.find(' ', i), eb = b.find(' ', i);
    std::string wa = a.substr(i, ea == std::string::npos ? std::string::npos : ea - i);
    std::string wb = b.substr(i, eb == std::string::npos ? std::string::npos : eb - i);
    if (wa.empty() || wa != wb || ea != eb) break;
    out += (out.empty() ? "" : " ") + wa;
    if (ea == std::string::npos) break;
    i = ea + 1;
  }
  return out;
}

std::string Builder::StripSuffix(const std::string& label) {
  for (const char* sfx : {" aic", " aiv"})
    if (label.ends_with(sfx)) return label.substr(0, label.size() - 4);
  return label;
}

}  // namespace plan_steps
}  // namespace optrace::source
