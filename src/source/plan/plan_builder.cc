// BuildPlan: for each kernel entry, walks the code index's call graph (instantiated, with core
// types and AIV roles), decides per site, names the labels (seed 000 steps 1-3) and tops up
// plain loops until each core type reaches the density target.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/file_io.h"
#include "source/lexer/include_tree.h"
#include "source/index/call_graph.h"
#include "source/index/code_index.h"
#include "source/index/function_body.h"
#include "source/plan/instrument.h"
#include "source/plan/plan.h"
#include "source/plan/plan_words.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace ix = index;
namespace {

using ix::CallGraph;
using ix::Control;
using ix::FunctionBody;
using ix::FunctionDef;
using ix::GraphNode;
using ix::TokenStream;

// Names that only say "the work of this class": the class's name is the better word.
bool GenericName(const std::string& n) {
  for (const char* g : {"operator()", "Process", "Run", "Execute", "Main", "Launch", "Invoke", "Apply", "Impl",
                        "DoProcess", "ProcessImpl", "Compute"})
    if (n == g) return true;
  return false;
}

// Identifiers that mark the profiling buffer's own code (setup, write-back).
bool ProfilingIdentifier(std::string_view s) {
  return s == "GetMoeProfilePtr" || s == "SetMoeProfilePtr" || s == "PROF_SIZE_PER_CORE" ||
         s == "profiling_data" || s == "profilingData" || s == "OPTRACE_KERNEL_BEGIN" || s == "OPTRACE_KERNEL_END" ||
         s == "MoeTracing" || s == "profiling";
}

struct FnFacts {
  std::vector<int> top_loops;   // loop controls with no loop around them in the function
  bool has_loops = false;
  bool has_hot = false;         // calls a sync/communication primitive
  int statements = 0;
  int locals = 0;               // local declarations (object set-up, not work)
  int tokens = 0;
  std::vector<std::string> existing;  // B labels already in the body
};

struct SiteInfo {
  const FunctionDef* fn = nullptr;  // function site: the function; others: the function holding the site
  int control = -1;                 // loop sites: the loop control
  bool root = false;
  bool per_element = true;          // every path reaching it is per element of a plain loop (AND)
  bool reached = false;
  std::string per_element_where;
  bool per_core_entry = false;      // reached as an AIC- or AIV-only specialisation of a both-core caller
  int resolved_calls = 0;           // calls into the index (not constructors) from any instance
  std::string loop_class;           // group, spin, hot, plain, none
  std::string loop_var;
  bool loop_var_integer = false;
  std::set<int> kernels;
};

class Builder {
 public:
  Builder(const ix::CodeIndex& index, Plan& plan) : index_(index), plan_(plan) {}

  void AddKernel(const FunctionDef& kernel) {
    CallGraph built;
    const CallGraph* shared = nullptr;
    if (graphs_)
      for (const CallGraph& x : *graphs_)
        if (x.root().inst.fn == &kernel) shared = &x;
    if (!shared) built = CallGraph::Build(index_, kernel);
    const CallGraph& g = shared ? *shared : built;
    PlanKernel pk;
    pk.entry = kernel.file->rel;
    pk.function = kernel.name;
    pk.line = kernel.line;
    pk.cores = g.kernel_type().cores;
    pk.core_source = g.kernel_type().declared ? g.kernel_type().task_type : "inferred: " + g.kernel_type().evidence;
    kernel_ = static_cast<int>(plan_.kernels.size());
    kernel_words_ = NameWords(kernel.name);
    kernel_name_ = kernel.name;
    int root = FunctionSite(kernel);
    info_[static_cast<size_t>(root)].root = true;
    Touch(root, pk.cores, "", false, "");
    pk.root.site = root;
    pk.root.cores = pk.cores;
    std::vector<const FunctionDef*> stack{&kernel};
    path_ = {kernel.name};
    plan_.sites[static_cast<size_t>(root)].path = kernel.name;
    Expand(g, 0, pk.root, stack, false);
    if (g.truncated())
      plan_.notes.push_back(fmt::format("{}: the call graph of {} was cut at {} nodes; deeper calls are not planned",
                                        kernel.file->rel, kernel.name, g.nodes().size()));
    plan_.kernels.push_back(std::move(pk));
  }

  void Finish() {
    for (PlanKernel& k : plan_.kernels) {
      bool split = false;
      ForEach(k.root, [&](const PlanNode& n) {
        if (n.cores == kPlanAic || n.cores == kPlanAiv) split = true;
      });
      k.split = split && k.cores == 3;
    }
    Decide();
    Label();
    for (size_t k = 0; k < plan_.kernels.size(); ++k) {
      TopUp(k);
      TrimDown(k);
    }
    for (PlanKernel& k : plan_.kernels) Summarize(k);
  }

 private:
  template <typename F>
  void ForEach(const PlanNode& n, F f) {
    f(n);
    for (const PlanNode& c : n.children) ForEach(c, f);
  }

  const FnFacts& Facts(const FunctionDef& fn) {
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

  static bool DoWhileZero(const TokenStream& s, const Control& c) {
    if (c.kind != Control::kDo) return false;
    std::string h = s.Join(c.head_begin, c.head_end);
    return h == "0" || h == "false";
  }

  // The file and line a function site is planned at: the name, or the '{' of a #define body.
  void FunctionLocation(const FunctionDef& fn, std::string* file, int* line, bool* in_macro) {
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

  int AddSite(SiteKind kind, const std::string& file, int line, const FunctionDef& fn, std::string name) {
    std::string key = fmt::format("{}|{}|{}", file, static_cast<int>(kind == SiteKind::kLoopBody ? SiteKind::kLoop : kind), line);
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

  int FunctionSite(const FunctionDef& fn) {
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

  int LoopSite(const FunctionDef& fn, int control) {
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

  // The word of a function: its name's words, or for generic names (Process, operator()) its
  // class's, with a first word shared with the kernel's name dropped. "" when the class is the
  // kernel itself (its range would be the kernel's: merged).
  std::string FunctionWord(const FunctionDef& fn, const ix::ClassDef* cls) {
    if (fn.is_lambda) return fn.name == "lambda" ? "" : NameWord(fn.name);
    std::string base = fn.name;
    bool from_class = false;
    if (GenericName(fn.name) && cls) base = cls->name, from_class = true;
    else if (GenericName(fn.name) && !fn.qualifier.parts.empty()) base = fn.qualifier.Last(), from_class = true;
    else if (fn.name == "operator()") return "";
    std::vector<std::string> w = NameWords(base);
    if (w.empty()) return "";
    // The kernel's own class: its words are the kernel's, up to a dtype suffix the entry's name
    // carries (bgmv_expand_half for BGMVExpand).
    bool own = w.size() <= kernel_words_.size() && std::equal(w.begin(), w.end(), kernel_words_.begin());
    for (size_t i = w.size(); own && i < kernel_words_.size(); ++i) {
      static const char* kTypeWords[] = {"half", "float", "bf16", "bfloat16", "fp16", "fp32", "fp8", "int8", "int4",
                                         "int32", "t", "w4", "a8", "w8", "a16", "v2", "v3"};
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

  void ClassifyLoop(const FunctionDef& fn, int control, int site) {
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

  // What a plain loop writes: the first variable assigned (`acc_ += ...`, `ws.routeWeight[i] = ...`,
  // `out.SetValue(...)`), as a word; "" when it writes nothing with a name of two letters or more.
  static std::string WrittenWord(const TokenStream& s, const Control& c, const std::string& var) {
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
      if (name == var || name == "this") continue;
      std::string w = NameWord(name);
      if (w.size() >= 2 && w != var) return w;
    }
    return "";
  }

  void Touch(int site, unsigned cores, const std::string& role, bool per_element, const std::string& where) {
    PlanSite& s = plan_.sites[static_cast<size_t>(site)];
    s.cores |= cores;
    if (!role.empty()) s.roles.insert(role);
    SiteInfo& i = info_[static_cast<size_t>(site)];
    if (!per_element) i.per_element = false;
    if (per_element && i.per_element_where.empty()) i.per_element_where = where;
    i.reached = true;
    i.kernels.insert(kernel_);
  }

  PlanNode* AddChild(PlanNode& parent, int site, unsigned cores, const std::string& role, const std::string& variant,
                     int at_line) {
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

  // The outermost loop control around `control` in the function, -1 if none.
  int TopLoop(const FunctionBody& body, const TokenStream& s, int control) {
    int top = -1;
    for (int c = control; c >= 0; c = body.controls[static_cast<size_t>(c)].parent)
      if (body.controls[static_cast<size_t>(c)].IsLoop() && !DoWhileZero(s, body.controls[static_cast<size_t>(c)]))
        top = c;
    return top;
  }

  // Loops between `control` and the function body: any that is not a traced group loop makes
  // what runs inside it per element.
  bool InPlainLoop(const FunctionBody& body, const TokenStream& s, int control,
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

  void Expand(const CallGraph& g, int n, PlanNode& node, std::vector<const FunctionDef*>& stack, bool per_element) {
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
      if (plain && loop_site >= 0) NameLoopFromCall(loop_site, cfn, callee.inst.cls);
      std::string variant;
      // In the order the template declares its parameters (the bindings are keyed by name).
      if (!cfn.specialization)
        for (const ix::TemplateParam& p : cfn.tparams)
          if (const ix::TypeName* v = callee.inst.bindings.Find(p.name)) variant += (variant.empty() ? "" : ", ") + v->Str();
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

  // "wait-vec1-done" for CrossCoreWaitFlag(vec1Done): the flag's own name says what is awaited.
  std::string StatementWord(const TokenStream& s, const ix::CallSite& c, const std::string& hw) {
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

  void NameLoopFromCall(int loop_site, const FunctionDef& callee, const ix::ClassDef* cls) {
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

  std::vector<std::string> IndexArgs(int site_index) {
    const PlanSite& s = plan_.sites[static_cast<size_t>(site_index)];
    const SiteInfo& info = info_[static_cast<size_t>(site_index)];
    if (info.root) return {};
    if (s.kind == SiteKind::kLoopBody) return info.loop_var_integer ? std::vector<std::string>{info.loop_var}
                                                                    : std::vector<std::string>{};
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
      if (IsIndexName(p.name, "stage")) stage = p.name;
      else if (IsIndexName(p.name, "group") || IsIndexName(p.name, "expert")) group = p.name;
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
        bool forwards = info.resolved_calls > 0 && !f.has_loops && !f.has_hot &&
                        f.statements - f.locals - info.resolved_calls <= 1;
        if (!f.existing.empty()) {
          s.decision = Decision::kExisting;
          s.label = f.existing.front();
          s.reason = fmt::format("already traced: {} range(s) in the body, kept", f.existing.size());
        } else if (info.per_element) {
          s.decision = Decision::kSkip;
          s.reason = fmt::format("called per element inside a loop ({}); the loop is traced instead",
                                 info.per_element_where);
        } else if (!fn.returns_void && !f.has_loops && !f.has_hot) {
          s.decision = Decision::kSkip;
          s.reason = "helper returning a value (no loop, sync or communication)";
        } else if (IsSetUpName(fn.name) && !f.has_loops && !f.has_hot && info.resolved_calls == 0 &&
                   f.statements < 15 && !info.per_core_entry) {
          s.decision = Decision::kSkip;
          s.reason = fmt::format("set-up of a few values ({} statements, no loop, call or sync): part of its caller's range",
                                 f.statements);
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
  }

  Status Placeable(const PlanSite& probe) {
    const SourceFile* f = sources_ ? sources_->Find(probe.file) : nullptr;
    if (!f) return BadInputError("{}: not read", probe.file);
    auto& cs = structures_[f];
    if (!cs) cs = std::make_unique<CodeStructure>(AnalyzeStructure(f->lex));
    Result<SiteMarks> m = ComputeSiteMarks(*f, *cs, probe);
    return m.ok() ? Status::Ok() : m.status();
  }

  // A phase the kernel's main flow runs through (seed 000: per-core operator(), Process,
  // communication, epilogue, big compute blocks), as opposed to set-up (Init, tiling reads,
  // buffer allocation) and helpers.
  bool MainFlow(const FunctionDef& fn, const FnFacts& f, const SiteInfo& info) {
    if (info.per_core_entry) return true;
    std::vector<std::string> w = NameWords(fn.name);
    static const char* kSetup[] = {"init", "setup", "set", "prepare", "config", "tiling", "reset", "alloc", "get",
                                   "create", "build", "make", "calc", "calculate", "compute"};
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

  // Below a range traced by hand (other than the root) nothing is added: its author chose the
  // granularity there.
  void SkipUnderExisting(const PlanNode& node, bool under) {
    PlanSite& s = plan_.sites[static_cast<size_t>(node.site)];
    if (under && s.decision != Decision::kExisting) {
      s.decision = Decision::kSkip;
      s.optional = false;
      s.reason = "inside a range traced by hand; kept as it is";
    }
    // A function that only opens "processing" is the root's stand-in: it does not choose the
    // granularity below it.
    bool covers = false;
    if (s.decision == Decision::kExisting && s.kind == SiteKind::kFunction && !info_[static_cast<size_t>(node.site)].root) {
      for (const std::string& l : Facts(*info_[static_cast<size_t>(node.site)].fn).existing)
        covers = covers || l != "processing";
    }
    for (const PlanNode& c : node.children) SkipUnderExisting(c, under || covers);
  }

  // What a skipped helper calls is part of that helper: not traced either.
  void SkipUnderSkipped(const PlanNode& node, bool under) {
    PlanSite& s = plan_.sites[static_cast<size_t>(node.site)];
    if (under && (Inserts(s.decision) || s.optional)) {
      s.decision = Decision::kSkip;
      s.optional = false;
      s.reason = "called from a skipped helper";
    }
    bool skipped = s.decision == Decision::kSkip && s.kind == SiteKind::kFunction && !info_[static_cast<size_t>(node.site)].root;
    for (const PlanNode& c : node.children) SkipUnderSkipped(c, under || skipped);
  }

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

  void Label() {
    LabelFixedPoint();
    if (DistinguishSameLabels()) LabelFixedPoint();
  }

  // Two functions of different classes under one label (`CamMoeDistributeDispatch::Init` and
  // `CamMoeDistributeCombine::Init`, both "init aiv") would pool unrelated ranges: each gets the
  // last word of its class name where the classes differ ("dispatch-init", "combine-init").
  bool DistinguishSameLabels() {
    std::map<std::string, std::vector<size_t>> by_label;
    for (size_t i = 0; i < plan_.sites.size(); ++i) {
      const PlanSite& s = plan_.sites[i];
      if (Inserts(s.decision) && s.decision != Decision::kExisting && !s.label.empty() &&
          s.kind == SiteKind::kFunction && !info_[i].root)
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
          if (w.size() <= k) all_have = false;
          else if (w[w.size() - 1 - k] != words[0][words[0].size() - 1 - std::min(k, words[0].size() - 1)]) differ = true;
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

  // Whether sites a and b only run in different executions: different kernels, or where their
  // paths in the plan tree part, calls in exclusive branches (if/else, switch cases,
  // TILING_KEY_IS conditions).
  bool Alternatives(int a, int b) {
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

  static bool ExclusiveControls(const FunctionBody& body, const TokenStream& s, int ca, int cb) {
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

  void LabelFixedPoint() {
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

  static std::string CommonWords(const std::string& a, const std::string& b) {
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

  static std::string StripSuffix(const std::string& label) {
    for (const char* sfx : {" aic", " aiv"})
      if (label.ends_with(sfx)) return label.substr(0, label.size() - 4);
    return label;
  }

  void Walk(const PlanKernel& k, const PlanNode& node, const std::string& prefix, int level,
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

  void Count(const PlanKernel& k, std::set<std::string>* aic, std::set<std::string>* aiv) {
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

  bool InKernel(const PlanKernel& k, int site) {
    bool found = false;
    ForEach(k.root, [&](const PlanNode& n) { found = found || n.site == site; });
    return found;
  }

  // Adds plain loops, largest first, while a core type is under the target and none goes over.
  void TopUp(size_t ki) {
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

  // Over the target: merge the deepest ranges first (signals before others, then the smallest),
  // so the structure near the root stays and detail goes; the root and per-core entries stay.
  void TrimDown(size_t ki) {
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
      auto key = [&](size_t i) {
        const PlanSite& s = plan_.sites[i];
        bool signal = s.kind == SiteKind::kStatement && (s.word.rfind("set", 0) == 0 || s.word.find("notify") != std::string::npos);
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
        s.decision = Decision::kMerge;
        s.reason = fmt::format("merged to keep {} at the target ({} AIC, {} AIV labels): {}", PlanCoreName(over),
                               aic.size(), aiv.size(), s.depth >= 4 ? "detail below level 3" : "a small range");
      }
      Label();
    }
  }

  void Summarize(PlanKernel& k) {
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
    for (auto [name, n, bit] : {std::tuple<const char*, size_t, unsigned>{"AIC", aic.size(), kPlanAic},
                                {"AIV", aiv.size(), kPlanAiv}}) {
      if (!(k.cores & bit)) continue;
      int c = static_cast<int>(n);
      if (c < kDensityMin || c > kDensityMax) {
        plan_.warnings.push_back(fmt::format("{}{}: {} distinct labels, outside {}-{}: {}", who, name, c, kDensityMin,
                                             kDensityMax,
                                             c < kDensityMin ? "the kernel has few phase boundaries the code names; "
                                                               "add ranges by hand or edit the plan"
                                                             : "merge thin ranges in the plan"));
      } else if (c < kTargetMin || c > kTargetMax) {
        plan_.warnings.push_back(fmt::format("{}{}: {} distinct labels, within {}-{} but off the target {}-{}", who,
                                             name, c, kDensityMin, kDensityMax, kTargetMin, kTargetMax));
      }
    }
    if (k.max_depth > kMaxLevels)
      plan_.warnings.push_back(fmt::format("{}depth {} exceeds {} levels", who, k.max_depth, kMaxLevels));
  }

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

bool DefinesKernel(const std::string& text) { return text.find("__global__") != std::string::npos; }

bool KernelExtension(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".cpp" || ext == ".cc" || ext == ".cu" || ext == ".asc" || ext == ".cxx";
}

}  // namespace

std::string PlanCoreName(unsigned cores) { return ix::CoreName(cores); }

std::set<std::string> Plan::TracedFiles() const {
  std::set<std::string> out;
  for (const PlanSite& s : sites)
    if ((Inserts(s.decision) && !s.label.empty()) || s.decision == Decision::kExisting) out.insert(s.file);
  return out;
}

Result<Plan> BuildPlan(const PlanOptions& options) {
  Plan plan;
  fs::path op_dir = ResolveAgainstCwd(options.op_dir).lexically_normal();
  std::error_code ec;
  if (!fs::is_directory(op_dir, ec))
    return NotFoundError("{}: not a directory; pass the operator directory (the one holding op_kernel/)",
                         options.op_dir.string());
  plan.op_dir = op_dir;
  SourceSet set(op_dir);
  OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> files, ListSourceFiles(op_dir));
  for (const fs::path& p : files) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    std::vector<int> stale;
    set.AddText(set.Relative(p), RevertText(text, &stale));
    for (int l : stale)
      plan.warnings.push_back(fmt::format("{}:{}: its optrace:auto tag no longer matches the code (edited since "
                                          "instrument ran); it is read as a hand mark, and instrument refuses the tree "
                                          "until the line is restored, deleted or untagged",
                                          set.Relative(p), l));
  }
  std::vector<fs::path> entries;
  if (!options.entry.empty()) {
    fs::path entry = ResolveAgainstCwd(options.entry).lexically_normal();
    // `--entry op_kernel/k.cpp` may be given relative to --op.
    if (!fs::is_regular_file(entry, ec) && options.entry.is_relative()) entry = (op_dir / options.entry).lexically_normal();
    if (!fs::is_regular_file(entry, ec))
      return NotFoundError("{}: no such entry file (tried it relative to the working directory and to {})",
                           options.entry.string(), options.op_dir.string());
    entries.push_back(entry);
  } else {
    std::vector<std::string> kernel_files;
    for (const fs::path& p : files) {
      if (!KernelExtension(p)) continue;
      const SourceFile* f = set.Find(p);
      if (f && DefinesKernel(*f->text)) kernel_files.push_back(f->rel);
    }
    for (const std::string& rel : DefaultKernelEntries(kernel_files)) entries.push_back(op_dir / rel);
  }
  if (entries.empty())
    return BadInputError("{}: no kernel entry found (no .cpp/.cc/.cu/.asc with a __global__ function); pass --entry FILE",
                         options.op_dir.string());
  IncludeOptions io;
  io.include_dirs = options.include_dirs;
  io.include_dirs.push_back(op_dir);
  if (fs::is_directory(op_dir / "op_kernel", ec)) io.include_dirs.push_back(op_dir / "op_kernel");
  std::set<const SourceFile*> reached;
  std::vector<const SourceFile*> entry_files;
  for (const fs::path& e : entries) {
    OPTRACE_ASSIGN_OR_RETURN(IncludeTree tree, WalkIncludeTree(set, e, io));
    entry_files.push_back(tree.entry);
    for (const SourceFile* f : tree.files) reached.insert(f);
  }
  set.FindAllTraces();
  std::vector<const SourceFile*> index_files(reached.begin(), reached.end());
  std::sort(index_files.begin(), index_files.end(),
            [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
  ix::CodeIndex index(index_files);
  if (PlanOnIndex(set, index, entry_files, &plan) == 0)
    return BadInputError("{}: no __global__ function definition found in {}; pass the kernel's file with --entry",
                         options.op_dir.string(), set.Relative(entries.front()));
  return plan;
}

int PlanOnIndex(const SourceSet& set, const ix::CodeIndex& index, const std::vector<const SourceFile*>& entry_files,
                Plan* plan, const std::vector<CallGraph>* graphs) {
  Builder b(index, *plan);
  b.sources_ = &set;
  b.graphs_ = graphs;
  int kernels = 0;
  for (const FunctionDef* k : index.Kernels()) {
    if (std::find(entry_files.begin(), entry_files.end(), k->file) == entry_files.end()) continue;
    if (index.CalledByAnotherKernel(*k)) continue;  // planned inside the entry that calls it
    b.AddKernel(*k);
    ++kernels;
  }
  if (kernels == 0) return 0;
  b.Finish();
  for (const SourceFile* f : index.files())
    if (f->rel.rfind("../", 0) == 0 || fs::path(f->rel).is_absolute())
      plan->notes.push_back(fmt::format("{}: outside the operator directory; read for calls, never edited", f->rel));
  return kernels;
}

}  // namespace optrace::source
