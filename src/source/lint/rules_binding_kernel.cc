// Binding rules, the kernel: the __global__ parameter list, Init's arguments, direct launches.
#include "source/lint/binding_checker.h"
#include "source/lexer/kernel_launches.h"

namespace optrace::source {

namespace binding_steps {

void BindingChecker::CheckKernel() {
  struct Kernel {
    const SourceFile* file;
    const Block* block;
  };
  std::vector<Kernel> kernels;
  for (const SourceFile* f : ctx_.files) {
    if (!StartsWith(f->rel, "op_kernel/")) continue;
    const CodeStructure& cs = ctx_.Structure(f);
    for (const Block& b : cs.blocks) {
      if (b.kind != BlockKind::kFunction) continue;
      bool global = false;
      for (size_t i = b.head_begin; i > 0 && i + 12 > b.head_begin; --i) {
        const Token& x = f->lex.tokens[i - 1];
        if (x.Is(";") || x.Is("}")) break;
        if (x.Is("__global__")) global = true;
      }
      if (global) kernels.push_back({f, &b});
    }
  }
  // A __global__ function another kernel calls (an arch35/ implementation the entry forwards
  // to) runs inside that entry's buffer set-up: it is not an entry and takes no buffer.
  std::set<std::string> called;
  for (const Kernel& caller : kernels) {
    const auto& t = caller.file->lex.tokens;
    for (size_t i = caller.block->open + 1; i < caller.block->close && i + 1 < t.size(); ++i)
      if (t[i].active && t[i].kind == TokenKind::kIdentifier && (t[i + 1].Is("(") || t[i + 1].Is("<")) &&
          t[i].text != caller.block->name)
        called.insert(std::string(t[i].text));
  }
  // A __global__ in a header no file of the tree includes (conv3d_v2_template.h, which a launch
  // example elsewhere includes) is not compiled into this operator.
  std::set<std::string> included;
  for (const SourceFile* f : ctx_.files)
    for (const Directive& d : f->lex.directives)
      if (d.kind == DirectiveKind::kInclude) included.insert(std::filesystem::path(d.include_path).filename().string());
  for (const Kernel& k : kernels) {
    if (called.count(k.block->name)) continue;
    std::filesystem::path kp(k.file->rel);
    std::string ext = kp.extension().string();
    if ((ext == ".h" || ext == ".hpp" || ext == ".hh") && !included.count(kp.filename().string())) continue;
    Block head = *k.block;
    ParametersFromMacro(*k.file, head);
    CheckOrder(k.file, head, "binding-kernel-order", "kernel", true);
    if (!misordered_.count(head.name)) CheckBeforeWorkspace(*k.file, head);
  }
}

void BindingChecker::CheckBeforeWorkspace(const SourceFile& f, const Block& fn) {
  // The launch the OpDef's build generates passes inputs, outputs, then workspace and tiling: a
  // profiling parameter after either gets the workspace or the tiling address, never its buffer.
  const auto& t = f.lex.tokens;
  const Token* profiling = nullptr;
  std::vector<const Token*> params;
  for (size_t i = fn.head_begin; i < fn.head_end; ++i) {
    if (t[i].kind != TokenKind::kIdentifier || !(i + 1 == fn.head_end || t[i + 1].Is(","))) continue;
    params.push_back(&t[i]);
    if (!profiling && IsProfilingName(t[i].text)) profiling = &t[i];
  }
  // The launch's tail is the run of workspace / tiling parameters that ends the list (the
  // profiling parameter may sit in it): an input or output named like one (`commWorkspace`,
  // `workspaceGM` before the outputs) is not, and a profiling parameter after it is correct.
  size_t block = params.size();
  while (block > 0 && (params[block - 1] == profiling || IsLaunchTailName(params[block - 1]->text))) --block;
  const size_t at_profiling = static_cast<size_t>(std::find(params.begin(), params.end(), profiling) - params.begin());
  for (size_t i = block; profiling && at_profiling < params.size() && i < at_profiling; ++i) {
    if (!IsLaunchTailName(params[i]->text)) continue;
    ReportAfterWorkspace(f, fn, *profiling, *params[i]);
    return;
  }
  // By position, where the names say nothing (arch35's `(GM_ADDR inputs, GM_ADDR outputs, ...)`):
  // with exactly the OpDef's inputs and outputs before workspace and tiling, the generated launch
  // fills them in that order, so the profiling output's place is certain.
  size_t tails = 0;
  while (tails < params.size() && IsLaunchTailName(params[params.size() - 1 - tails]->text)) ++tails;
  if (!profiling || def_.profiling < 0 || tails == 0 ||
      params.size() != def_.inputs.size() + def_.outputs.size() + tails)
    return;
  size_t at = static_cast<size_t>(std::find(params.begin(), params.end(), profiling) - params.begin());
  size_t want = def_.inputs.size() + static_cast<size_t>(def_.profiling);
  if (at == want) return;
  ctx_.Report(&f, profiling->line, profiling->column, "binding-kernel-order",
              fmt::format("kernel {}() takes \"{}\" as parameter {}, but the launch the operator's build generates "
                          "passes the OpDef's {} input(s), then its outputs ({}), then workspace and tiling: the "
                          "profiling output is parameter {}",
                          fn.name, profiling->text, at + 1, def_.inputs.size(), OutputList(), want + 1));
  misordered_.insert(fn.name);
}

void BindingChecker::ReportAfterWorkspace(const SourceFile& f, const Block& fn, const Token& profiling_tok,
                                          const Token& tail_tok) {
  const Token* profiling = &profiling_tok;
  const Token* tail = &tail_tok;
  ctx_.Report(&f, profiling->line, profiling->column, "binding-kernel-order",
              fmt::format("kernel {}() takes \"{}\" after \"{}\": the launch the operator's build generates passes "
                          "inputs, outputs, then workspace and tiling, so this parameter would get the {} address; "
                          "move it before \"{}\", after the last output",
                          fn.name, profiling->text, tail->text,
                          Normalize(tail->text).find("workspace") != std::string::npos ? "workspace" : "tiling",
                          tail->text));
  misordered_.insert(fn.name);
}

void BindingChecker::ParametersFromMacro(const SourceFile& f, Block& fn) {
  const auto& t = f.lex.tokens;
  if (fn.head_end != fn.head_begin + 1 || t[fn.head_begin].kind != TokenKind::kIdentifier) return;
  for (const Directive& d : f.lex.directives) {
    if (d.kind != DirectiveKind::kDefine || !d.active || d.token_end <= d.token_begin + 1) continue;
    if (t[d.token_begin].text != t[fn.head_begin].text) continue;
    // Object-like only: `#define P(x)` has '(' right after the name, without a space.
    const Token& after = t[d.token_begin + 1];
    if (after.Is("(") && after.offset == t[d.token_begin].end_offset()) return;
    fn.head_begin = d.token_begin + 1;
    fn.head_end = d.token_end;
    return;
  }
}

void BindingChecker::CheckInitOrder() {
  const index::CodeIndex& idx = ctx_.Index();
  for (const index::CallGraph& g : ctx_.Graphs()) {
    const index::FunctionDef& k = *g.root().inst.fn;
    if (misordered_.count(k.name)) continue;
    const index::TokenStream& s = *k.stream;
    std::set<std::string> kparam;
    for (const auto& p : k.params) kparam.insert(BufferName(p.name));
    for (const index::CallSite& c : idx.Body(k).calls) {
      if (c.name != "Init" || c.object.empty()) continue;
      std::vector<std::string> passed(c.args.size());
      int prof_arg = -1;
      for (size_t a = 0; a < c.args.size(); ++a) {
        if (c.args[a].second != c.args[a].first + 1) continue;
        passed[a] = std::string(s.Text(c.args[a].first));
        if (IsProfilingName(passed[a])) prof_arg = static_cast<int>(a);
      }
      index::Instance inst;
      inst.fn = &k;
      inst.unit = idx.UnitOf(k.file);
      std::vector<std::string> findings;  // one per candidate definition; reported when all have one
      std::vector<std::string> swaps;     // the same for a swap by name (a warning)
      size_t candidates = 0;
      const index::StreamToken* where = nullptr;
      const index::StreamToken* swap_where = nullptr;
      for (const index::CallTarget& t : index::ResolveCall(idx, inst, c)) {
        const index::FunctionDef& init = *t.inst.fn;
        if (init.params.size() != c.args.size()) continue;
        ++candidates;
        int prof_param = -1;
        for (size_t a = 0; a < init.params.size(); ++a)
          if (IsProfilingName(init.params[a].name)) prof_param = static_cast<int>(a);
        std::string why;
        size_t at = 0;
        if (prof_param >= 0 && prof_arg >= 0 && prof_param != prof_arg) {
          why = fmt::format(
              "{}.Init passes \"{}\" as argument {}, but {} takes the profiling buffer as parameter {} "
              "(\"{}\"): the records would go to \"{}\"; pass it at position {}",
              c.object, passed[static_cast<size_t>(prof_arg)], prof_arg + 1, init.DisplayName(), prof_param + 1,
              init.params[static_cast<size_t>(prof_param)].name, init.params[static_cast<size_t>(prof_arg)].name,
              prof_param + 1);
          at = static_cast<size_t>(prof_arg);
        } else if (prof_param >= 0 && prof_arg < 0 && !passed[static_cast<size_t>(prof_param)].empty() &&
                   kparam.count(BufferName(passed[static_cast<size_t>(prof_param)]))) {
          why = fmt::format(
              "{} takes the profiling buffer as parameter {} (\"{}\"), but {}.Init passes \"{}\" "
              "there and no profiling buffer at all; pass the kernel's profiling parameter",
              init.DisplayName(), prof_param + 1, init.params[static_cast<size_t>(prof_param)].name, c.object,
              passed[static_cast<size_t>(prof_param)]);
          at = static_cast<size_t>(prof_param);
        }
        if (!why.empty()) {
          findings.push_back(std::move(why));
          where = &s[c.args[at].first];
          continue;
        }
        {
          // A swap by name (a warning: a parameter may be misnamed but used as what it gets).
          for (size_t a = 0; a < passed.size() && why.empty(); ++a) {
            if (passed[a].empty() || !kparam.count(BufferName(passed[a]))) continue;
            std::string pa = BufferName(init.params[a].name);
            if (pa == BufferName(passed[a]) || !kparam.count(pa)) continue;
            for (size_t b = 0; b < passed.size(); ++b) {
              if (b == a || BufferName(passed[b]) != pa) continue;
              if (BufferName(init.params[b].name) != BufferName(passed[a])) continue;
              why = fmt::format(
                  "{}.Init passes \"{}\" and \"{}\" to {}'s parameters \"{}\" and \"{}\": by their "
                  "names the two buffers look swapped; check which one the definition uses as which",
                  c.object, passed[a], passed[b], init.DisplayName(), init.params[a].name, init.params[b].name);
              at = a;
              break;
            }
          }
        }
        if (why.empty()) continue;
        swaps.push_back(std::move(why));
        swap_where = &s[c.args[at].first];
      }
      if (candidates > 0 && findings.size() == candidates && where) {
        ctx_.Report(where->file, where->line, where->column, "binding-init-order", findings.front());
        continue;
      }
      if (candidates > 0 && swaps.size() == candidates && swap_where) {
        ctx_.Report(swap_where->file, swap_where->line, swap_where->column, "binding-init-names", swaps.front());
        continue;
      }
      CheckInitOutputOrder(k, c);
    }
  }
}

void BindingChecker::CheckInitOutputOrder(const index::FunctionDef& k, const index::CallSite& c) {
  // The kernel's outputs: the parameters just before its profiling parameter (the OpDef's
  // outputs in order, binding-kernel-order checks that), else those named like an output.
  std::set<std::string> outputs;
  int prof = -1;
  for (size_t p = 0; p < k.params.size(); ++p)
    if (IsProfilingName(k.params[p].name)) prof = static_cast<int>(p);
  const int n_main = static_cast<int>(def_.outputs.size()) - 1;
  if (prof >= n_main && n_main > 0) {
    for (int p = prof - n_main; p < prof; ++p) outputs.insert(NormalizeName(k.params[static_cast<size_t>(p)].name));
  } else {
    for (const Param& o : def_.outputs) {
      outputs.insert(NormalizeName(o.name));
      outputs.insert(NormalizeName(o.name) + "out");
    }
  }
  std::map<std::string, size_t> kpos;
  for (size_t p = 0; p < k.params.size(); ++p) kpos[NormalizeName(k.params[p].name)] = p;
  auto is_output = [&](const std::string& n) { return outputs.count(n) > 0; };
  const index::TokenStream& s = *k.stream;
  long prev = -1;
  std::string prev_name;
  for (const auto& arg : c.args) {
    if (arg.second != arg.first + 1) continue;
    std::string n(s.Text(arg.first));
    std::string norm = NormalizeName(n);
    auto it = kpos.find(norm);
    if (it == kpos.end() || !is_output(norm) || IsProfilingName(n)) continue;
    if (static_cast<long>(it->second) < prev) {
      const index::StreamToken& at = s[arg.first];
      ctx_.Report(at.file, at.line, at.column, "binding-init-names",
                  fmt::format("{}.Init passes output \"{}\" after output \"{}\"; the __global__ {} lists them the "
                              "other way round: check that Init's definition takes them in this order",
                              c.object, n, prev_name, k.name));
      return;
    }
    prev = static_cast<long>(it->second);
    prev_name = n;
  }
}

void BindingChecker::CheckDirectLaunch() {
  bool any_marks = false;
  for (const SourceFile* f : ctx_.files) any_marks = any_marks || !f->traces.sites.empty();
  if (!any_marks || !ctx_.tree) return;
  // name -> its definitions' (profiling parameter index, parameter count, count fixed: no default,
  // no `...`). Definitions under #if alternatives may differ; a launch must fit one of them.
  struct Signature {
    int prof = -1;
    size_t params = 0;
    bool fixed = true;
  };
  std::map<std::string, std::vector<Signature>> kernels;
  for (const index::CallGraph& g : ctx_.Graphs()) {
    const index::FunctionDef& k = *g.root().inst.fn;
    int prof = -1;
    bool fixed = true;
    for (size_t p = 0; p < k.params.size(); ++p) {
      if (IsProfilingName(k.params[p].name)) prof = static_cast<int>(p);
      if (k.params[p].has_default || k.params[p].type_text.find("...") != std::string::npos ||
          k.params[p].name == "...")
        fixed = false;
    }
    const index::StreamToken& at = (*k.stream)[k.name_pos];
    if (prof < 0) {
      ctx_.Report(k.file, k.line, k.column, "binding-kernel-order",
                  fmt::format("kernel {} records trace marks but takes no profiling GM_ADDR; add `GM_ADDR "
                              "profiling_data` as its last parameter and pass the profiling buffer there",
                              k.name));
      continue;
    }
    for (size_t p = static_cast<size_t>(prof) + 1; p < k.params.size(); ++p) {
      if (k.params[p].type_text.find('*') == std::string::npos &&
          k.params[p].type_text.find("GM_ADDR") == std::string::npos)
        continue;
      // At the misplaced profiling parameter itself (the signature may span lines).
      const index::StreamToken* where = &at;
      for (size_t i = k.params_open; i < k.params_close; ++i)
        if (k.stream->Text(i) == k.params[static_cast<size_t>(prof)].name) where = &(*k.stream)[i];
      ctx_.Report(where->file, where->line, where->column, "binding-kernel-order",
                  fmt::format("kernel {}: \"{}\" comes after the profiling parameter \"{}\"; profiling is the last "
                              "buffer",
                              k.name, k.params[p].name, k.params[static_cast<size_t>(prof)].name));
      prof = -1;  // the launches are compared once the kernel itself is right
      misordered_.insert(k.name);
      break;
    }
    kernels[k.name].push_back({prof, k.params.size(), fixed});
  }
  bool launched = false;
  for (const SourceFile* f : ctx_.files) {
    const auto& t = f->lex.tokens;
    std::set<std::string_view> macros;  // an argument naming one may expand to several
    for (const Directive& d : f->lex.directives)
      if (d.kind == DirectiveKind::kDefine && d.token_begin < d.token_end) macros.insert(t[d.token_begin].text);
    auto is_kernel = [&](std::string_view n) { return kernels.count(std::string(n)) > 0; };
    for (const KernelLaunch& l : FindKernelLaunches(t, is_kernel)) {
      launched = true;
      const std::vector<Signature>& sigs = kernels[std::string(l.kernel)];
      const Signature* match = nullptr;
      bool certain = true;
      for (const Signature& s : sigs) {
        if (s.params == l.args.size()) match = &s;
        certain = certain && s.fixed;
      }
      for (const auto& [b, e] : l.args)
        for (size_t k = b; k < e; ++k)
          if (t[k].kind == TokenKind::kIdentifier && macros.count(t[k].text)) certain = false;
      const Token& at = t[l.first];
      if (!match) {
        std::string counts;
        for (const Signature& s : sigs) counts += fmt::format("{}{}", counts.empty() ? "" : " or ", s.params);
        // A count that cannot vary makes a mismatch certain: it does not compile.
        ctx_.Report(f, at.line, at.column, certain ? "binding-launch-arity" : "binding-launch-arity-unsure",
                    fmt::format("the {} launch of {} passes {} argument(s) and the kernel takes {}{}", 
                                KernelLaunch::KindName(l.kind), l.kernel, l.args.size(), counts,
                                certain ? "; pass the profiling buffer last, as the kernel's last parameter expects"
                                        : " (a default, a `...` or a macro argument may make up the difference: "
                                          "not checkable statically)"));
        continue;
      }
      if (match->prof < 0) continue;
      auto r = l.args[static_cast<size_t>(match->prof)];
      const std::string passed = JoinTokens(t, r.first, r.second);
      if (passed == "nullptr" || passed == "NULL" || passed == "0") {
        // It compiles and runs, and the kernel records nothing: instrument's hand step for a
        // launcher whose caller must provide the buffer.
        ctx_.Report(f, t[r.first].line, t[r.first].column, "binding-pybind",
                    fmt::format("the launch of {} passes {} as its profiling buffer (argument {}), so the kernel "
                                "writes no trace; allocate the buffer (zeroed) where the launch's stream is "
                                "synchronized, pass it here and write it as rank<N>.bin after the synchronize",
                                l.kernel, passed, match->prof + 1));
      } else if (!IsProfilingName(passed))
        ctx_.Report(f, t[r.first].line, t[r.first].column, "binding-pybind",
                    fmt::format("the launch of {} passes \"{}\" where the kernel takes its profiling buffer "
                                "(argument {}); pass the profiling buffer there",
                                l.kernel, passed, match->prof + 1));
    }
  }
  if (launched) ctx_.facts.binding_checked.push_back("launch");
  if (!launched && !kernels.empty()) {
    const index::FunctionDef& k = *ctx_.Graphs().front().root().inst.fn;
    ctx_.Report(k.file, k.line, k.column, "binding-unchecked",
                fmt::format("no OpDef and no launch of {} in the operator tree: the host side of the binding (the "
                            "profiling buffer passed last, saved after a synchronize) is outside it and cannot be "
                            "checked here",
                            k.name));
  }
}

}  // namespace binding_steps
}  // namespace optrace::source
