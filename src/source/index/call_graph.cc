#include "source/index/call_graph.h"

#include <cctype>
#include <deque>

#include "source/index/function_body.h"
#include "source/index/roles.h"
#include "source/index/words.h"

namespace optrace::source::index {
namespace {

constexpr size_t kMaxNodes = 20000;
constexpr size_t kMaxVariants = 16;  // template instantiations of one function kept apart
constexpr int kMaxDepth = 48;

std::string NoSpace(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

std::string Unwrap(std::string s) {
  while (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    int depth = 0;
    bool whole = true;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')' && --depth == 0 && i + 1 < s.size()) whole = false;
    }
    if (!whole) break;
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

std::vector<std::string> SplitTop(const std::string& s, const std::string& op) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (depth == 0 && s.compare(i, op.size(), op) == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + op.size();
      i += op.size() - 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// A closed type text the index can compare for certain: qualified, or a fundamental type.
bool KnownType(const std::string& t) {
  if (t.find("::") != std::string::npos) return true;
  std::string base = t.substr(0, t.find('<'));
  return IsFundamentalType(base) || base == "void";
}

int Atom(std::string t) {
  t = Unwrap(t);
  bool neg = false;
  while (!t.empty() && t[0] == '!') {
    neg = !neg;
    t = Unwrap(t.substr(1));
  }
  int v = -1;
  if (t == "true" || t == "1") v = 1;
  if (t == "false" || t == "0") v = 0;
  for (const char* f : {"std::is_same_v<", "is_same_v<", "std::is_same<", "is_same<"}) {
    if (t.rfind(f, 0) != 0) continue;
    size_t open = t.find('<'), close = t.rfind('>');
    if (close == std::string::npos || close < open) break;
    std::vector<std::string> args = SplitTop(t.substr(open + 1, close - open - 1), ",");
    if (args.size() != 2) break;
    if (args[0] == args[1]) v = 1;
    else if (KnownType(args[0]) && KnownType(args[1])) v = 0;
    break;
  }
  for (const char* f : {"std::is_void_v<", "is_void_v<"}) {
    if (t.rfind(f, 0) != 0) continue;
    std::string a = t.substr(t.find('<') + 1);
    if (!a.empty() && a.back() == '>') a.pop_back();
    if (a == "void") v = 1;
    else if (KnownType(a)) v = 0;
  }
  if (v >= 0 && neg) v = 1 - v;
  return v;
}

// The text of a condition with template parameters replaced by their bound arguments.
std::string Substitute(const std::string& text, const Bindings& b) {
  if (b.empty()) return text;
  std::string out, word;
  auto flush = [&] {
    const TypeName* t = word.empty() ? nullptr : b.Find(word);
    out += t ? t->Str() : word;
    word.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else {
      flush();
      out += c;
    }
  }
  flush();
  return out;
}

}  // namespace

bool IsTracingCall(std::string_view name) {
  return name == "MoeTracing" || name == "MoeTracingWithCycle" || name == "TRACE_POINT" || name == "SetMoeProfilePtr" ||
         name == "GetMoeProfilePtr" || name == "OPTRACE_KERNEL_BEGIN" || name == "OPTRACE_KERNEL_END" ||
         name == "OPTRACE_TRACE";
}

int EvaluateConstexpr(std::string_view condition) {
  std::string t = Unwrap(NoSpace(condition));
  std::vector<std::string> ors = SplitTop(t, "||");
  if (ors.size() > 1) {
    bool unknown = false;
    for (const std::string& o : ors) {
      int v = EvaluateConstexpr(o);
      if (v == 1) return 1;
      if (v < 0) unknown = true;
    }
    return unknown ? -1 : 0;
  }
  std::vector<std::string> ands = SplitTop(t, "&&");
  if (ands.size() > 1) {
    bool unknown = false;
    for (const std::string& a : ands) {
      int v = EvaluateConstexpr(a);
      if (v == 0) return 0;
      if (v < 0) unknown = true;
    }
    return unknown ? -1 : 1;
  }
  return Atom(t);
}

std::string GraphNode::RoleAt(const FunctionBody& body, int control) const {
  for (int c = control; c >= 0; c = body.controls[static_cast<size_t>(c)].parent)
    if (static_cast<size_t>(c) < control_roles.size() && !control_roles[static_cast<size_t>(c)].empty())
      return control_roles[static_cast<size_t>(c)];
  return role;
}

unsigned GraphNode::CoresAt(int control) const {
  if (control < 0 || static_cast<size_t>(control) >= control_cores.size()) return cores;
  return control_cores[static_cast<size_t>(control)];
}

CallGraph CallGraph::Build(const CodeIndex& index, const FunctionDef& kernel) {
  CallGraph g;
  g.index_ = &index;
  // Declared task types: KERNEL_TASK_TYPE_DEFAULT(T) / KERNEL_TASK_TYPE(key, T) in the entry.
  g.kernel_ = &kernel;
  const FunctionBody& body = index.Body(kernel);
  unsigned declared = kCoreNone;
  for (const CallSite& c : body.calls) {
    if ((c.name != "KERNEL_TASK_TYPE_DEFAULT" && c.name != "KERNEL_TASK_TYPE") || c.args.empty()) continue;
    std::string t = NoSpace(kernel.stream->Join(c.args.back().first, c.args.back().second));
    unsigned cores = TaskTypeCores(t);
    if (cores == kCoreNone) continue;
    declared |= cores;
    if (g.type_.task_type.find(t) == std::string::npos)
      g.type_.task_type += (g.type_.task_type.empty() ? "" : " ") + t;
  }
  if (declared == kCoreNone && kernel.qualified_cores != kCoreNone) {  // __global__ __vector__ / __cube__ / __mix__
    declared = kernel.qualified_cores;
    g.type_.task_type = declared == kCoreAiv ? "__vector__" : declared == kCoreAic ? "__cube__" : "__mix__";
  }
  if (declared != kCoreNone) {
    g.type_.cores = declared;
    g.type_.declared = true;
    g.Grow(declared);
    return g;
  }
  g.Grow(kCoreBoth);
  // Inferred: cube code is code that only runs on AIC, or calls cube-unit operations, or
  // drives an external matmul/mmad template.
  bool cube = false, vec = false;
  for (const GraphNode& n : g.nodes_) {
    if (n.cores == kCoreAic) cube = true;
    if (n.cores == kCoreAiv) vec = true;
    for (size_t c = 0; c < n.control_cores.size(); ++c) {
      if (n.control_dead[c]) continue;
      if (n.control_cores[c] == kCoreAic) cube = true;
      if (n.control_cores[c] == kCoreAiv) vec = true;
    }
    for (const CallSite& c : index.Body(*n.inst.fn).calls) {
      if (IsCubeOperation(c.name)) cube = true;
      std::string t = c.construct ? c.type.Last() : "";
      for (const std::string& w : SplitWords(t))
        if (w == "matmul" || w == "mmad" || w == "gemm") cube = true;
    }
  }
  unsigned inferred = cube ? (vec ? kCoreBoth : kCoreAic) : kCoreAiv;
  // Code typed for both (a mixed kernel written as AIC and AIV branches) is mixed.
  if (cube && !vec) {
    for (const GraphNode& n : g.nodes_)
      for (const CallSite& c : index.Body(*n.inst.fn).calls)
        if (c.name == "CrossCoreWaitFlag" || c.name == "CrossCoreSetFlag" || c.name == "WaitFlagDev" ||
            c.name == "FftsCrossCoreSync")
          inferred = kCoreBoth;
  }
  g.type_.cores = inferred;
  g.type_.evidence = inferred == kCoreAiv   ? "no cube code reached from the entry"
                     : inferred == kCoreAic ? "only cube code reached from the entry"
                                            : "AIC and AIV code reached from the entry";
  if (inferred != kCoreBoth) {
    g.nodes_.clear();
    g.by_key_.clear();
    g.variants_.clear();
    g.truncated_ = false;
    g.Grow(inferred);
  }
  return g;
}

void CallGraph::Grow(unsigned root_cores) {
  nodes_.clear();
  by_key_.clear();
  variants_.clear();
  nodes_.push_back(GraphNode{});
  nodes_[0].inst.fn = kernel_;
  nodes_[0].inst.unit = index_->UnitOf(kernel_->file);
  nodes_[0].cores = root_cores;
  std::deque<int> queue{0};
  while (!queue.empty()) {
    int n = queue.front();
    queue.pop_front();
    size_t before = nodes_.size();
    Expand(n);
    for (size_t i = before; i < nodes_.size(); ++i) queue.push_back(static_cast<int>(i));
  }
}

int CallGraph::NodeFor(const CallTarget& t, unsigned cores, const std::string& role, int caller) {
  const std::string site = std::to_string(t.inst.fn->id) + (t.inst.fn->is_lambda ? "L" : "F") +
                           std::to_string(reinterpret_cast<uintptr_t>(t.inst.fn)) + "|" +
                           std::to_string(t.inst.cls ? t.inst.cls->id : -1) + "|" + std::to_string(cores) + "|" + role;
  std::string key = site + "|" + t.inst.bindings.Key();
  auto it = by_key_.find(key);
  if (it != by_key_.end()) return it->second;
  std::vector<int>& variants = variants_[site];
  if (variants.size() >= kMaxVariants) return variants.front();
  if (nodes_.size() >= kMaxNodes || nodes_[static_cast<size_t>(caller)].depth + 1 > kMaxDepth) {
    truncated_ = true;
    return -1;
  }
  GraphNode n;
  n.inst = t.inst;
  n.cores = cores;
  n.role = role;
  n.depth = nodes_[static_cast<size_t>(caller)].depth + 1;
  n.first_caller = caller;
  nodes_.push_back(std::move(n));
  int id = static_cast<int>(nodes_.size()) - 1;
  by_key_[key] = id;
  variants.push_back(id);
  return id;
}

// The word of the main work inside a control: its first call reaching a function of the index
// (not a constructor), else its first call to a communication/sync primitive; "" when none.
std::string CallGraph::MainCallWord(int n, int control) {
  const GraphNode& node = nodes_[static_cast<size_t>(n)];
  const FunctionBody& body = index_->Body(*node.inst.fn);
  auto inside = [&](int c) {
    for (; c >= 0; c = body.controls[static_cast<size_t>(c)].parent)
      if (c == control) return true;
    return false;
  };
  // The branch's largest in-tree work names it: `TPipeSet(&pipe); AllToAllSend();` is
  // "all-to-all-send", not the setter written first.
  std::string external, best;
  size_t best_size = 0;
  for (const CallSite& c : body.calls) {
    if (!inside(c.control) || c.construct) continue;
    std::vector<CallTarget> ts = ResolveCall(*index_, node.inst, c);
    for (const CallTarget& t : ts) {
      if (t.inst.fn->is_ctor || t.inst.fn->is_lambda) continue;
      const std::string& name = t.inst.fn->name;
      if (name != "operator()" && !t.inst.fn->returns_void) continue;  // a getter
      size_t size = t.inst.fn->body_close > t.inst.fn->body_open ? t.inst.fn->body_close - t.inst.fn->body_open : 0;
      if (!best.empty() && size <= best_size) continue;
      best = name == "operator()" && t.inst.cls ? KebabCase(t.inst.cls->name) : KebabCase(name);
      best_size = size;
    }
    if (ts.empty() && external.empty()) {
      for (const std::string& w : SplitWords(c.name)) {
        if (w == "write" || w == "send" || w == "recv" || w == "receive" || w == "put" || w == "get" ||
            w == "wait" || w == "sync" || w == "notify" || w == "gather" || w == "scatter" || w == "reduce" ||
            w == "broadcast") {
          external = KebabCase(c.name);
          break;
        }
      }
    }
  }
  return best.empty() ? external : best;
}

void CallGraph::Expand(int n) {
  const FunctionDef& fn = *nodes_[static_cast<size_t>(n)].inst.fn;
  const FunctionBody& body = index_->Body(fn);
  const TokenStream& s = *fn.stream;
  {
    GraphNode& node = nodes_[static_cast<size_t>(n)];
    size_t nc = body.controls.size();
    node.control_cores.assign(nc, node.cores);
    node.control_roles.assign(nc, "");
    node.control_dead.assign(nc, false);
  }
  std::vector<CoreCondition> conds(body.controls.size());
  std::vector<int> constexpr_value(body.controls.size(), -1);
  for (size_t i = 0; i < body.controls.size(); ++i) {
    const Control& c = body.controls[i];
    GraphNode& node = nodes_[static_cast<size_t>(n)];
    unsigned parent = c.parent < 0 ? node.cores : node.control_cores[static_cast<size_t>(c.parent)];
    bool dead = c.parent >= 0 && node.control_dead[static_cast<size_t>(c.parent)];
    unsigned restrict = kCoreBoth;
    if (c.kind == Control::kIf) {
      std::string cond = Substitute(s.Join(c.head_begin, c.head_end), node.inst.bindings);
      conds[i] = EvaluateCoreCondition(cond);
      if (conds[i].decided && !conds[i].value) dead = true;
      restrict = conds[i].body;
      if (c.is_constexpr && !conds[i].decided) {
        constexpr_value[i] = EvaluateConstexpr(cond);
        if (constexpr_value[i] == 0) dead = true;
      }
    } else if (c.kind == Control::kElse && c.else_of >= 0) {
      const CoreCondition& ic = conds[static_cast<size_t>(c.else_of)];
      if (ic.decided && ic.value) dead = true;
      if (constexpr_value[static_cast<size_t>(c.else_of)] == 1) dead = true;
      restrict = ic.other;
    }
    unsigned region = index_->RegionCore(s[c.keyword].file, s[c.keyword].line);
    if (region != kCoreNone) restrict &= region;
    unsigned cores = parent & restrict;
    if (cores == kCoreNone) dead = true;
    node.control_cores[i] = dead ? kCoreNone : cores;
    node.control_dead[i] = dead;
  }
  // Roles (only where AIV code runs).
  for (size_t i = 0; i < body.controls.size(); ++i) {
    if (nodes_[static_cast<size_t>(n)].control_dead[i] || !(nodes_[static_cast<size_t>(n)].control_cores[i] & kCoreAiv))
      continue;
    std::string role =
        RoleOfControl(body, s, static_cast<int>(i), [&](int ctl) { return MainCallWord(n, ctl); });
    nodes_[static_cast<size_t>(n)].control_roles[i] = role;
  }
  for (const CallSite& call : body.calls) {
    // The tracing itself (marks, buffer setup and write-back) is not the kernel's work.
    if (IsTracingCall(call.name) || s[call.pos].tok->in_profiling_guard) continue;
    const GraphNode& node = nodes_[static_cast<size_t>(n)];
    if (call.control >= 0 && node.control_dead[static_cast<size_t>(call.control)]) continue;
    unsigned cores = node.CoresAt(call.control);
    unsigned region = index_->RegionCore(s[call.pos].file, s[call.pos].line);
    if (region != kCoreNone) cores &= region;
    if (cores == kCoreNone) continue;
    std::string role = node.RoleAt(body, call.control);
    if (!(cores & kCoreAiv)) role.clear();
    Instance caller = node.inst;
    std::vector<CallTarget> targets = ResolveCall(*index_, caller, call);
    for (const CallTarget& t : targets) {
      unsigned tc = cores & t.core;
      if (tc == kCoreNone) continue;
      int callee = NodeFor(t, tc, tc & kCoreAiv ? role : "", n);
      if (callee < 0) continue;
      GraphEdge e;
      e.call = &call;
      e.callee = callee;
      e.cores = tc;
      e.role = tc & kCoreAiv ? role : "";
      e.by_name = t.by_name;
      nodes_[static_cast<size_t>(n)].edges.push_back(std::move(e));
    }
  }
}

}  // namespace optrace::source::index
