// Rules that follow the kernel's call graph (the code index shared with `optrace plan`):
//   root-label        "processing" is opened once per core path: never again in a function
//                     that runs inside it;
//   index-group-loop  a range opened per iteration of an expert-group / stage loop passes the
//                     loop index (MoeTracing(id, idx) or MoeTracing(id, extra, idx));
//   entry-buffer      a kernel whose code records marks sets the per-core buffer up and writes
//                     it back in its entry (OPTRACE_KERNEL_BEGIN/END, or seed 000's stack
//                     buffer + SetMoeProfilePtr ... GM write-back + DataCacheCleanAndInvalid).
#include <fmt/format.h>

#include <map>
#include <set>

#include "source/index/call_graph.h"
#include "source/index/code_index.h"
#include "source/lint/lint_context.h"
#include "source/plan/plan_words.h"

namespace optrace::source {
namespace ix = index;
namespace {

struct Mark {
  size_t pos;  // stream position of TRACE_POINT
  const SourceFile* file;
  const TraceSite* site;
  int site_index;
};

std::vector<Mark> MarksOf(const ix::FunctionDef& fn) {
  std::vector<Mark> out;
  const ix::TokenStream& s = *fn.stream;
  std::map<const SourceFile*, std::map<size_t, int>> by_token;
  for (size_t p = fn.body_open; p <= fn.body_close && p < s.size(); ++p) {
    const ix::StreamToken& st = s[p];
    if (!st.source || !st.tok->Is("TRACE_POINT")) continue;
    auto& m = by_token[st.source];
    if (m.empty())
      for (size_t i = 0; i < st.source->traces.sites.size(); ++i) m[st.source->traces.sites[i].token] = static_cast<int>(i);
    auto it = m.find(st.index);
    if (it != m.end()) out.push_back({p, st.source, &st.source->traces.sites[static_cast<size_t>(it->second)], it->second});
  }
  return out;
}

class GraphRules {
 public:
  explicit GraphRules(LintContext& ctx) : ctx_(ctx), index_(ctx.Index()) {}

  void Run() {
    for (const SourceFile* f : index_.files()) {
      const ix::TokenStream* s = index_.Stream(f);
      if (s && s->expansion_capped())
        ctx_.Report(f, 1, 1, "macro-budget",
                    "macro expansion in this file reached its token budget (4M per file, 12M per tree); the rest "
                    "was read with its macros unexpanded, so rules past that point may miss code");
    }
    // With "processing" written somewhere in the tree the file-level check is silent, so each
    // kernel is checked on its own: one whose reachable marks never open it lost its root (renamed
    // in the header its class lives in, while another kernel of the tree keeps its own).
    bool tree_has_root = false;
    for (const SourceFile* f : ctx_.files)
      for (const TraceSite& site : f->traces.sites) tree_has_root = tree_has_root || site.label == "processing";
    std::set<const ix::FunctionDef*> loops_checked;
    for (const ix::CallGraph& g : ctx_.Graphs()) {
      Processing(g);
      if (tree_has_root) KernelRoot(g);
      EntryBuffer(g);
      for (const ix::GraphNode& n : g.nodes())
        if (loops_checked.insert(n.inst.fn).second) GroupLoopIndex(*n.inst.fn);
    }
  }

 private:
  const std::vector<Mark>& Marks(const ix::FunctionDef& fn) {
    auto it = marks_.find(&fn);
    if (it == marks_.end()) it = marks_.emplace(&fn, MarksOf(fn)).first;
    return it->second;
  }

  // "processing" opened inside "processing", across calls.
  void Processing(const ix::CallGraph& g) {
    std::set<std::pair<int, bool>> seen;
    std::vector<std::pair<int, std::string>> work{{0, ""}};  // node, where processing was opened ("" not yet)
    while (!work.empty()) {
      auto [n, opened] = work.back();
      work.pop_back();
      if (!seen.insert({n, !opened.empty()}).second) continue;
      const ix::GraphNode& node = g.nodes()[static_cast<size_t>(n)];
      const ix::FunctionDef& fn = *node.inst.fn;
      std::string here = opened;
      for (const Mark& m : Marks(fn)) {
        if (m.site->label != "processing" || m.site->event_type != 'B') continue;
        if (!opened.empty() && reported_.insert({m.file, m.site->line}).second) {
          ctx_.Report(m.file, m.site->line, m.site->column, "root-label",
                      fmt::format("\"processing\" is opened again in {}, which runs inside the \"processing\" opened "
                                  "in {}; open it once, in the kernel entry",
                                  fn.DisplayName(), opened));
        }
        if (here.empty()) here = fn.DisplayName();
      }
      for (const ix::GraphEdge& e : node.edges) work.push_back({e.callee, here});
    }
  }

  void KernelRoot(const ix::CallGraph& g) {
    const Mark* first = nullptr;
    for (const ix::GraphNode& n : g.nodes())
      for (const Mark& m : Marks(*n.inst.fn)) {
        if (m.site->label == "processing") return;
        if (!first) first = &m;
      }
    if (!first) return;
    const ix::FunctionDef& k = *g.root().inst.fn;
    ctx_.Report(k.file, k.line, k.column, "root-label",
                fmt::format("kernel {} records marks (\"{}\" at {}:{}) but none of its code opens \"processing\": "
                            "wrap the kernel's work in TRACE_POINT(\"processing\", \"B\") ... \"E\"",
                            k.name, first->site->label, first->file->rel, first->site->line));
  }

  // The entry of a kernel whose code records marks sets the buffer up and writes it back.
  void EntryBuffer(const ix::CallGraph& g) {
    bool marks = false;
    for (const ix::GraphNode& n : g.nodes()) marks = marks || !Marks(*n.inst.fn).empty();
    if (!marks) return;
    const ix::FunctionDef& k = *g.root().inst.fn;
    const ix::FunctionBody& body = index_.Body(k);
    bool begin = false, end = false, ptr = false, clean = false;
    std::set<std::string> buffers;  // what SetMoeProfilePtr records into
    auto note_ptr = [&](const ix::CallSite& c, const ix::TokenStream& s) {
      ptr = true;
      if (!c.args.empty())
        for (size_t t = c.args[0].first; t < c.args[0].second; ++t)
          if (s.IsIdent(t)) {
            buffers.insert(std::string(s.Text(t)));
            break;
          }
    };
    for (const ix::CallSite& c : body.calls) {
      if (c.name == "OPTRACE_KERNEL_BEGIN") begin = true;
      if (c.name == "OPTRACE_KERNEL_END") end = true;
      if (c.name == "SetMoeProfilePtr") note_ptr(c, *k.stream);
      if (c.name == "DataCacheCleanAndInvalid") clean = true;
    }
    // Seed 000's form through the tree's own helpers, written in a function the entry calls.
    std::vector<const ix::FunctionDef*> entry_and_callees{&k};
    for (const ix::GraphEdge& e : g.root().edges) {
      const ix::FunctionDef& callee = *g.nodes()[static_cast<size_t>(e.callee)].inst.fn;
      entry_and_callees.push_back(&callee);
      for (const ix::CallSite& c : index_.Body(callee).calls) {
        if (c.name == "SetMoeProfilePtr") note_ptr(c, *callee.stream);
        if (c.name == "DataCacheCleanAndInvalid") clean = true;
      }
    }
    if (begin && end) {
      UnwrittenExits(k, body);
      return;
    }
    if (ptr && clean) return;
    // The cache clean is optional where the entry copies the buffer to GM element by element
    // (`coreGlobal(i) = buf[i]` in a loop): that copy is the write-back.
    if (ptr)
      for (const ix::FunctionDef* fn : entry_and_callees)
        if (CopiesFrom(*fn, buffers)) return;
    bool setup = begin || ptr;
    std::string fix = ptr ? "write the buffer back to its GM slot and call DataCacheCleanAndInvalid at the end of the "
                            "entry"
                          : "call OPTRACE_KERNEL_BEGIN() first and OPTRACE_KERNEL_END(profiling_data) last in the entry "
                            "(or seed 000's stack buffer + SetMoeProfilePtr ... GM write-back + "
                            "DataCacheCleanAndInvalid)";
    ctx_.Report(k.file, k.line, k.column, "entry-buffer",
                fmt::format("kernel {} records trace marks but {}: the profiling output would stay all zeros; {}",
                            k.name,
                            !setup ? "never sets up the per-core buffer"
                                   : begin ? "never writes it back (no OPTRACE_KERNEL_END)"
                                           : "never writes the buffer back (no DataCacheCleanAndInvalid)",
                            fix));
  }

  // An assignment in fn whose right side reads one of `buffers` by index (`gm(i) = buf[i]`,
  // `gm.SetValue(i, buf[i])`) into something else: the stack buffer copied out.
  static bool CopiesFrom(const ix::FunctionDef& fn, const std::set<std::string>& buffers) {
    if (buffers.empty()) return false;
    const ix::TokenStream& s = *fn.stream;
    size_t stmt = fn.body_open + 1;
    for (size_t i = fn.body_open + 1; i < fn.body_close && i < s.size(); ++i) {
      if (s.Is(i, ";") || s.Is(i, "{") || s.Is(i, "}")) {
        stmt = i + 1;
        continue;
      }
      bool assign = s.Is(i, "=") && i > stmt;
      bool set_value = s.Is(i, "SetValue") && s.Is(i + 1, "(");
      if (!assign && !set_value) continue;
      if (assign && s.IsIdent(stmt) && buffers.count(std::string(s.Text(stmt)))) continue;  // buf[i] = ...
      for (size_t j = i + 1; j < fn.body_close && !s.Is(j, ";"); ++j)
        if (s.IsIdent(j) && buffers.count(std::string(s.Text(j))) && s.Is(j + 1, "[")) return true;
    }
    return false;
  }

  // A plain `{ }` block runs whenever the statement around it does (instrument writes
  // `{ Call(); E; OPTRACE_KERNEL_END(p); return; }` for a `return Call();`): its path is its parent's.
  static int PathControl(const ix::FunctionBody& body, const ix::TokenStream& s, int c) {
    while (c >= 0) {
      const ix::Control& ctl = body.controls[static_cast<size_t>(c)];
      if (ctl.kind != ix::Control::kBlock || !s.Is(ctl.keyword, "{")) break;
      c = ctl.parent;
    }
    return c;
  }

  // `if ASCEND_IS_AIV { return; }` (also from a macro, as grouped_matmul's cube-only paths): that
  // core type has no work on this path, so its slot is rightly left empty.
  static bool LeavesCoreTypeAtOnce(const ix::FunctionBody& body, const ix::TokenStream& s, int c, size_t r) {
    if (c < 0) return false;
    const ix::Control& ctl = body.controls[static_cast<size_t>(c)];
    if (ctl.kind != ix::Control::kIf) return false;
    size_t first = ctl.braced ? ctl.body_begin + 1 : ctl.body_begin;
    if (first != r) return false;
    for (size_t k = ctl.keyword + 1; k < first && k < s.size(); ++k) {
      std::string_view t = s.Text(k);
      if (t == "ASCEND_IS_AIV" || t == "ASCEND_IS_AIC" || t == "g_coreType") return true;
    }
    return false;
  }

  // With OPTRACE_KERNEL_END present, every way out of the entry writes the buffer back: each
  // `return` has an END before it in its own block, and a body that does not end in a return has
  // one at its own level (a path that skips it leaves that core's slot all zeros).
  void UnwrittenExits(const ix::FunctionDef& k, const ix::FunctionBody& body) {
    const ix::TokenStream& s = *k.stream;
    std::vector<std::pair<size_t, int>> ends;  // position, control
    size_t begin = k.body_close;
    for (const ix::CallSite& c : body.calls) {
      if (c.name == "OPTRACE_KERNEL_END") ends.push_back({c.pos, c.control});
      if (c.name == "OPTRACE_KERNEL_BEGIN") begin = std::min(begin, c.pos);
    }
    for (auto& e : ends) e.second = PathControl(body, s, e.second);
    auto written_before = [&](size_t pos, int control) {
      for (const auto& [at, ctl] : ends)
        if (at < pos && ctl == control) return true;
      return false;
    };
    bool ends_in_return = false;
    for (size_t r : body.returns) {
      if (r < begin) continue;
      int control = PathControl(body, s, body.ControlAt(r));
      if (LeavesCoreTypeAtOnce(body, s, control, r)) continue;
      if (control < 0) {  // a return at the function's own level ends the body when only `;` follows it
        size_t semi = r;
        while (semi < k.body_close && !s.Is(semi, ";")) ++semi;
        ends_in_return = ends_in_return || semi + 1 == k.body_close;
      }
      if (written_before(r, control)) continue;
      ctx_.Report(s[r].file, s[r].line, s[r].column, "entry-buffer",
                  fmt::format("this return leaves kernel {} without writing the profiling buffer back: the cores "
                              "that take it record all zeros; call OPTRACE_KERNEL_END(profiling_data) before it",
                              k.name));
    }
    if (!ends_in_return && !written_before(k.body_close, -1)) {
      ctx_.Report(s[k.body_close].file, s[k.body_close].line, s[k.body_close].column, "entry-buffer",
                  fmt::format("kernel {} can reach its end without writing the profiling buffer back (its "
                              "OPTRACE_KERNEL_END calls all sit in branches); call OPTRACE_KERNEL_END(profiling_data) "
                              "last in the entry",
                              k.name));
    }
  }

  // Marks in the body of an expert-group / stage loop carry the loop index.
  static bool OneIteration(const ix::TokenStream& s, const ix::FunctionBody& body, const std::vector<int>& conditions,
                           const std::string& var) {
    for (int c : conditions) {
      const ix::Control& ctl = body.controls[static_cast<size_t>(c)];
      // One `&&` clause that is `<expression of var> == <expression>`; any `||` lets more through.
      bool any_or = false, found = false, uses = false, equal = false, compares = false;
      auto close_clause = [&] {
        found = found || (uses && equal && !compares);
        uses = equal = compares = false;
      };
      for (size_t k = ctl.head_begin; k < ctl.head_end; ++k) {
        if (s.Is(k, "&&")) {
          close_clause();
          continue;
        }
        any_or = any_or || s.Is(k, "||");
        uses = uses || (s.IsIdent(k) && s.Text(k) == var);
        equal = equal || s.Is(k, "==");
        compares = compares || s.Is(k, "!=") || s.Is(k, "<") || s.Is(k, ">") || s.Is(k, "<=") || s.Is(k, ">=");
      }
      close_clause();
      if (found && !any_or) return true;
    }
    return false;
  }

  void GroupLoopIndex(const ix::FunctionDef& fn) {
    const ix::FunctionBody& body = index_.Body(fn);
    const ix::TokenStream& s = *fn.stream;
    for (const Mark& m : Marks(fn)) {
      int c = body.ControlAt(m.pos);
      std::vector<int> conditions;  // the ifs between the mark and the loop
      for (; c >= 0; c = body.controls[static_cast<size_t>(c)].parent) {
        const ix::Control& ctl = body.controls[static_cast<size_t>(c)];
        if (ctl.kind == ix::Control::kIf) conditions.push_back(c);
        if (!ctl.IsLoop() || m.pos <= ctl.body_begin) continue;
        std::vector<std::string> ids;
        for (size_t k = ctl.head_begin; k < ctl.head_end; ++k)
          if (s.IsIdent(k) && !s.Is(k + 1, "(")) ids.push_back(std::string(s.Text(k)));
        std::string group = LoopGroupWord(ids);
        if (group.empty() || ctl.kind != ix::Control::kFor || ctl.loop_var.empty()) continue;
        // An E before a `return` in the loop that closes a range opened outside it is not per iteration.
        bool opened_outside = false;
        for (const Mark& o : Marks(fn))
          opened_outside = opened_outside || (o.site->label == m.site->label &&
                                              (o.pos < ctl.body_begin || o.pos > ctl.body_end));
        if (opened_outside) continue;
        // Under `if (groupIdx + 1 == n - k)` the range runs for one group only: no index to tell apart.
        if (OneIteration(s, body, conditions, ctl.loop_var)) break;
        // The MoeTracing call around this point and its argument count.
        const TracingCall* call = nullptr;
        for (const TracingCall& tc : m.file->traces.calls)
          if (tc.site == m.site_index) call = &tc;
        if (call && call->args.size() < 2 && reported_.insert({m.file, m.site->line}).second) {
          ctx_.Report(m.file, m.site->line, m.site->column, "index-group-loop",
                      fmt::format("\"{}\" {} is recorded per iteration of the {} loop over {} without its index; pass "
                                  "it: MoeTracing(TRACE_POINT(\"{}\", \"{}\"), {})",
                                  m.site->label, m.site->event_type, group, ctl.loop_var, m.site->label,
                                  m.site->event_type, ctl.loop_var));
        }
        break;
      }
    }
  }

  LintContext& ctx_;
  const ix::CodeIndex& index_;
  std::map<const ix::FunctionDef*, std::vector<Mark>> marks_;
  std::set<std::pair<const SourceFile*, int>> reported_;
};

}  // namespace

void CheckCallGraph(LintContext& ctx) { GraphRules(ctx).Run(); }

}  // namespace optrace::source
