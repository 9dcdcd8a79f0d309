// Plan step 1, walk: each kernel's call graph into sites (functions and loops) and the plan tree,
// with the facts each site is decided on (loops, hot calls, per-element reach, AIV roles).
#include "source/plan/plan_builder.h"

namespace optrace::source {

namespace plan_steps {

const FnFacts& Builder::Facts(const FunctionDef& fn) {
  auto it = facts_.find(&fn);
  if (it != facts_.end()) return it->second;
  FnFacts f;
  const FunctionBody& body = index_.Body(fn);
  const TokenStream& s = *fn.stream;
  for (size_t c = 0; c < body.controls.size(); ++c) {
    const Control& ctl = body.controls[c];
    if (!ctl.IsLoop() || DoWhileZero(s, ctl)) continue;
    f.has_loops = true;
    bool top = true;
    for (int p = ctl.parent; p >= 0; p = body.controls[static_cast<size_t>(p)].parent)
      if (body.controls[static_cast<size_t>(p)].IsLoop() && !DoWhileZero(s, body.controls[static_cast<size_t>(p)]))
        top = false;
    if (top) f.top_loops.push_back(static_cast<int>(c));
  }
  for (const ix::CallSite& c : body.calls)
    if (!HotWord(c.name).empty()) f.has_hot = true;
  f.statements = body.statements;
  for (const ix::LocalDecl& d : body.locals)
    if (!d.is_alias && !d.is_lambda) ++f.locals;
  f.tokens = static_cast<int>(fn.body_close - fn.body_open);
  // Existing marks: trace sites of the file inside the body's source range.
  const ix::StreamToken& open = s[fn.body_open];
  const ix::StreamToken& close = s[fn.body_close];
  if (open.source && open.source == close.source) {
    for (const TraceSite& t : open.source->traces.sites) {
      if (t.event_type != 'B' || t.offset <= open.tok->offset || t.offset >= close.tok->offset) continue;
      if (t.in_define != (open.tok->in_directive)) continue;
      f.existing.push_back(t.label);
    }
  }
  return facts_.emplace(&fn, std::move(f)).first->second;
}

bool Builder::DoWhileZero(const TokenStream& s, const Control& c) {
  if (c.kind != Control::kDo) return false;
  std::string h = s.Join(c.head_begin, c.head_end);
  return h == "0" || h == "false";
}

void Builder::FunctionLocation(const FunctionDef& fn, std::string* file, int* line, bool* in_macro) {
  const ix::StreamToken& open = (*fn.stream)[fn.body_open];
  if (fn.macro && open.source && open.tok->in_directive) {
    *file = open.source->rel;
    *line = open.tok->line;
    *in_macro = true;
    return;
  }
  *file = fn.file->rel;
  *line = fn.line;
  *in_macro = false;
}

int Builder::AddSite(SiteKind kind, const std::string& file, int line, const FunctionDef& fn, std::string name) {
  std::string key =
      fmt::format("{}|{}|{}", file, static_cast<int>(kind == SiteKind::kLoopBody ? SiteKind::kLoop : kind), line);
  auto it = site_by_key_.find(key);
  if (it != site_by_key_.end()) return it->second;
  PlanSite s;
  s.id = static_cast<int>(plan_.sites.size()) + 1;
  s.kind = kind;
  s.file = file;
  s.line = line;
  s.name = std::move(name);
  s.outside = file.rfind("../", 0) == 0 || fs::path(file).is_absolute();
  plan_.sites.push_back(std::move(s));
  info_.emplace_back();
  info_.back().fn = &fn;
  int idx = static_cast<int>(plan_.sites.size()) - 1;
  site_by_key_[key] = idx;
  return idx;
}

int Builder::FunctionSite(const FunctionDef& fn) {
  std::string file;
  int line = 0;
  bool in_macro = false;
  FunctionLocation(fn, &file, &line, &in_macro);
  int s = AddSite(SiteKind::kFunction, file, line, fn, fn.DisplayName());
  PlanSite& site = plan_.sites[static_cast<size_t>(s)];
  site.in_macro = in_macro;
  site.tokens = static_cast<int>(fn.body_close - fn.body_open);
  return s;
}

int Builder::LoopSite(const FunctionDef& fn, int control) {
  const FunctionBody& body = index_.Body(fn);
  const Control& c = body.controls[static_cast<size_t>(control)];
  const ix::StreamToken& kw = (*fn.stream)[c.keyword];
  std::string kind = c.kind == Control::kFor ? "for" : c.kind == Control::kWhile ? "while" : "do";
  int s = AddSite(SiteKind::kLoop, kw.file->rel, kw.line, fn, kind + (c.loop_var.empty() ? "" : " " + c.loop_var));
  SiteInfo& i = info_[static_cast<size_t>(s)];
  if (i.control < 0) {
    i.control = control;
    ClassifyLoop(fn, control, s);
  }
  return s;
}

void Builder::ClassifyLoop(const FunctionDef& fn, int control, int site) {
  const FunctionBody& body = index_.Body(fn);
  const TokenStream& s = *fn.stream;
  const Control& c = body.controls[static_cast<size_t>(control)];
  SiteInfo& info = info_[static_cast<size_t>(site)];
  PlanSite& ps = plan_.sites[static_cast<size_t>(site)];
  info.loop_var = c.loop_var;
  std::string vtype = c.loop_var_type.Str();
  info.loop_var_integer = !c.loop_var.empty() && IsIntegerType(vtype);
  ps.tokens = static_cast<int>(c.body_end - c.keyword);
  // Profiling code (the buffer write-back loop) is never a site.
  for (size_t k = c.keyword; k <= c.body_end && k < s.size(); ++k) {
    if (s[k].tok->in_profiling_guard || (s.IsIdent(k) && ProfilingIdentifier(s.Text(k)))) {
      info.loop_class = "none";
      ps.reason = "touches the profiling buffer: the tracing's own code";
      return;
    }
  }
  std::vector<std::string> head_ids;
  for (size_t k = c.head_begin; k < c.head_end; ++k)
    if (s.IsIdent(k) && !s.Is(k + 1, "(")) head_ids.push_back(std::string(s.Text(k)));
  std::string g = LoopGroupWord(head_ids);
  bool has_calls = false;
  for (const ix::CallSite& call : body.calls)
    if (call.pos > c.body_begin && call.pos < c.body_end && !call.construct) has_calls = true;
  if (!g.empty() && c.kind == Control::kFor && info.loop_var_integer && (has_calls || ps.tokens >= 30)) {
    info.loop_class = "group";
    ps.word = g;
    ps.kind = SiteKind::kLoopBody;
    return;
  }
  // A spin-wait: a while loop with an empty body, or one polling a flag until it changes.
  bool spin = c.kind == Control::kWhile && c.braced && c.body_begin + 1 == c.body_end;
  if (!spin && (c.kind == Control::kWhile || c.kind == Control::kDo)) {
    std::string head = s.Join(c.head_begin, c.head_end);
    bool polls = head == "true" || head == "1";
    for (const std::string& id : head_ids) {
      std::string l;
      for (char ch : id) l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (l.find("flag") != std::string::npos || l.find("status") != std::string::npos ||
          l.find("sync") != std::string::npos)
        polls = true;
    }
    bool breaks = false;
    for (size_t k = c.body_begin; k < c.body_end; ++k)
      if (s.Is(k, "break")) breaks = true;
    spin = polls && (breaks || head != "true");
  }
  if (spin) {
    info.loop_class = "spin";
    ps.word = "wait";
    ps.kind = SiteKind::kLoop;
    return;
  }
  info.loop_class = "plain";
  ps.kind = SiteKind::kLoop;
  ps.word = WrittenWord(s, c, info.loop_var);
}

void Builder::Touch(int site, unsigned cores, const std::string& role, bool per_element, const std::string& where) {
  PlanSite& s = plan_.sites[static_cast<size_t>(site)];
  s.cores |= cores;
  if (!role.empty()) s.roles.insert(role);
  SiteInfo& i = info_[static_cast<size_t>(site)];
  if (per_element) i.per_element = true;
  if (per_element && i.per_element_where.empty()) i.per_element_where = where;
  i.reached = true;
  i.kernels.insert(kernel_);
}

PlanNode* Builder::AddChild(PlanNode& parent, int site, unsigned cores, const std::string& role,
                            const std::string& variant, int at_line) {
  for (PlanNode& c : parent.children)
    if (c.site == site && c.role == role && c.variant == variant) {
      ++c.calls;
      c.cores |= cores;
      return nullptr;
    }
  PlanNode n;
  n.site = site;
  n.cores = cores;
  n.role = role;
  n.variant = variant;
  n.at_line = at_line;
  parent.children.push_back(std::move(n));
  return &parent.children.back();
}

int Builder::TopLoop(const FunctionBody& body, const TokenStream& s, int control) {
  int top = -1;
  for (int c = control; c >= 0; c = body.controls[static_cast<size_t>(c)].parent)
    if (body.controls[static_cast<size_t>(c)].IsLoop() && !DoWhileZero(s, body.controls[static_cast<size_t>(c)]))
      top = c;
  return top;
}

bool Builder::InPlainLoop(const FunctionBody& body, const TokenStream& s, int control,
                          const std::map<int, size_t>& loop_child, const PlanNode& node) {
  for (int c = control; c >= 0; c = body.controls[static_cast<size_t>(c)].parent) {
    const Control& ctl = body.controls[static_cast<size_t>(c)];
    if (!ctl.IsLoop() || DoWhileZero(s, ctl)) continue;
    auto it = loop_child.find(c);
    if (it == loop_child.end()) return true;  // a nested loop: tile level
    if (info_[static_cast<size_t>(node.children[it->second].site)].loop_class != "group") return true;
  }
  return false;
}

void Builder::Expand(const CallGraph& g, int n, PlanNode& node, std::vector<const FunctionDef*>& stack,
                     bool per_element) {
  if (stack.size() > 40) return;
  const GraphNode& gn = g.nodes()[static_cast<size_t>(n)];
  const FunctionDef& fn = *gn.inst.fn;
  const FunctionBody& body = index_.Body(fn);
  const TokenStream& s = *fn.stream;
  const FnFacts facts = Facts(fn);
  std::map<int, size_t> loop_child;
  for (int lb : facts.top_loops) {
    if (gn.control_dead[static_cast<size_t>(lb)]) continue;
    unsigned cores = gn.CoresAt(lb);
    if (cores == 0) continue;
    std::string role = cores & kPlanAiv ? gn.RoleAt(body, body.controls[static_cast<size_t>(lb)].parent) : "";
    int site = LoopSite(fn, lb);
    Touch(site, cores, role, per_element, "");
    AddChild(node, site, cores, role, "", body.controls[static_cast<size_t>(lb)].line);
    for (size_t i = 0; i < node.children.size(); ++i)
      if (node.children[i].site == site && node.children[i].role == role) loop_child[lb] = i;
  }
  int resolved = 0;
  for (const ix::GraphEdge& e : gn.edges) {
    const GraphNode& callee = g.nodes()[static_cast<size_t>(e.callee)];
    const FunctionDef& cfn = *callee.inst.fn;
    if (cfn.is_ctor || cfn.is_dtor) continue;  // construction is set-up, not a phase
    ++resolved;
    if (std::find(stack.begin(), stack.end(), &cfn) != stack.end()) continue;
    int top = TopLoop(body, s, e.call->control);
    if (top >= 0 && !loop_child.count(top)) continue;
    bool plain = InPlainLoop(body, s, e.call->control, loop_child, node);
    PlanNode* parent = top >= 0 ? &node.children[loop_child[top]] : &node;
    int loop_site = top >= 0 ? parent->site : -1;
    int site = FunctionSite(cfn);
    SiteInfo& ci = info_[static_cast<size_t>(site)];
    if (fn.owner != cfn.owner || !cfn.owner) {
      // Reached as the AIC- or AIV-only specialisation of a call that runs on both.
    }
    if ((e.cores == kPlanAic || e.cores == kPlanAiv) && gn.CoresAt(e.call->control) == 3 && cfn.specialization)
      ci.per_core_entry = true;
    bool elem = per_element || plain;
    Touch(site, e.cores, e.role, elem, fmt::format("{}:{}", s[e.call->pos].file->rel, s[e.call->pos].line));
    if (plain && loop_site >= 0) {
      NameLoopFromCall(loop_site, cfn, callee.inst.cls);
      const FnFacts cf = Facts(cfn);
      SiteInfo& li = info_[static_cast<size_t>(loop_site)];
      if ((cf.has_loops || cf.has_hot) && cf.existing.empty() && li.tile_work.empty()) li.tile_work = cfn.DisplayName();
    }
    std::string variant;
    // In the order the template declares its parameters (the bindings are keyed by name).
    if (!cfn.specialization)
      for (const ix::TemplateParam& p : cfn.tparams)
        if (const ix::TypeName* v = callee.inst.bindings.Find(p.name))
          variant += (variant.empty() ? "" : ", ") + v->Str();
    PlanNode* child = AddChild(*parent, site, e.cores, e.role, variant, s[e.call->pos].line);
    if (plan_.sites[static_cast<size_t>(site)].path.empty()) {
      std::string p;
      for (const std::string& x : path_) p += x + " -> ";
      plan_.sites[static_cast<size_t>(site)].path = p + cfn.DisplayName();
    }
    if (!child) continue;
    path_.push_back(cfn.DisplayName());
    stack.push_back(&cfn);
    size_t at = static_cast<size_t>(child - parent->children.data());
    PlanNode built = *child;
    Expand(g, e.callee, built, stack, elem);
    parent->children[at] = std::move(built);
    stack.pop_back();
    path_.pop_back();
  }
  info_[static_cast<size_t>(FunctionSite(fn))].resolved_calls += resolved;
  // Hot statements: sync/communication primitives not defined in the tree.
  for (const ix::CallSite& c : body.calls) {
    std::string hw = HotWord(c.name);
    if (hw.empty() || c.construct) continue;
    if (c.control >= 0 && gn.control_dead[static_cast<size_t>(c.control)]) continue;
    if (s[c.pos].tok->in_profiling_guard) continue;
    unsigned cores = gn.CoresAt(c.control);
    if (cores == 0) continue;
    bool resolves = false;
    for (const ix::GraphEdge& e : gn.edges) resolves = resolves || e.call == &c;
    if (resolves) continue;
    int top = TopLoop(body, s, c.control);
    if (top >= 0 && !loop_child.count(top)) continue;
    bool plain = InPlainLoop(body, s, c.control, loop_child, node);
    PlanNode* parent = top >= 0 ? &node.children[loop_child[top]] : &node;
    if (plain) {
      if (top >= 0) {
        SiteInfo& li = info_[static_cast<size_t>(parent->site)];
        PlanSite& ls = plan_.sites[static_cast<size_t>(parent->site)];
        if (li.loop_class == "plain") {
          li.loop_class = "hot";
          ls.word = hw;
        }
      }
      continue;
    }
    // A small function around one primitive (`SyncAll()` wrappers): its own range is the statement's.
    if (facts.statements <= 3 && !facts.has_loops && top < 0 && !HotNameWord(fn.name).empty()) continue;
    std::string name = c.qualifier.parts.empty() ? c.name : c.qualifier.Str() + "::" + c.name;
    const ix::StreamToken& at = s[c.pos];
    if (at.macro) continue;  // written in a macro: no line of its own to mark
    int site = AddSite(SiteKind::kStatement, at.file->rel, at.line, fn, name);
    PlanSite& ps = plan_.sites[static_cast<size_t>(site)];
    ps.word = StatementWord(s, c, hw);
    ps.tokens = 1;
    std::string role = cores & kPlanAiv ? gn.RoleAt(body, c.control) : "";
    Touch(site, cores, role, per_element, "");
    AddChild(*parent, site, cores, role, "", at.line);
  }
  auto by_line = [](const PlanNode& a, const PlanNode& b) { return a.at_line < b.at_line; };
  for (PlanNode& c : node.children) std::stable_sort(c.children.begin(), c.children.end(), by_line);
  std::stable_sort(node.children.begin(), node.children.end(), by_line);
}

}  // namespace plan_steps
}  // namespace optrace::source
