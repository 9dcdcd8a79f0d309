// Profiling chain, the kernel link: `GM_ADDR profiling_data` after the last parameter, buffer set-up
// and write-back around the body, and the argument passed on to Init.
#include "source/plan/profiling_chain_builder.h"

namespace optrace::source {

namespace chain_steps {

std::vector<std::pair<size_t, size_t>> ChainBuilder::ParamRanges(const ix::FunctionDef& k) {
  const ix::TokenStream& s = *k.stream;
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = k.params_open + 1;
  int depth = 0;
  for (size_t i = k.params_open + 1; i <= k.params_close; ++i) {
    if (i == k.params_close || (depth == 0 && s.Is(i, ","))) {
      if (i > start) out.push_back({start, i});
      start = i + 1;
      continue;
    }
    if (s.Is(i, "(") || s.Is(i, "<") || s.Is(i, "[")) ++depth;
    if (s.Is(i, ")") || s.Is(i, ">") || s.Is(i, "]")) --depth;
  }
  return out;
}

void ChainBuilder::Kernel(const ix::FunctionDef& k) {
  const ix::TokenStream& s = *k.stream;
  std::vector<std::pair<size_t, size_t>> params = ParamRanges(k);
  std::string where = fmt::format("{}:{}", k.file->rel, k.line);
  // Where the buffer goes: after the main outputs (OpDef order), else last.
  size_t after = params.size();
  if (!def_.outputs.empty()) {
    size_t want = def_.inputs.size() + def_.outputs.size();
    // The last output's parameter: its name, or its name with the suffix kernels give outputs
    // that share a name with an input (Input("kr_cache") / Output("kr_cache") -> krCache,
    // krCacheOut; var / var_ref): the last such parameter, so the input's never wins.
    std::string last_out = NormalizeName(def_.outputs.back().name);
    bool input_named = false;  // the match is the input's own parameter: no twin names the output
    for (size_t p = 0; p < params.size(); ++p) {
      std::string n = NormalizeName(s.Text(params[p].second - 1));
      if (n == last_out || n == last_out + "out" || n == last_out + "output" || n == last_out + "ref" ||
          n == last_out + "gm" || n == "out" + last_out) {
        after = p + 1;
        input_named = std::any_of(def_.inputs.begin(), def_.inputs.end(),
                                  [&](const auto& in) { return NormalizeName(in.name) == n; });
      }
    }
    // In-place operators whose kernel renames the outputs (inplace_add_rms_norm: Output("x2"), kernel
    // `x1, x2, gamma, y, rstd, x`): the outputs end where the OpDef's parameter count ends.
    if (input_named && after < want && want <= params.size()) after = want;
    if (after == params.size() && want <= params.size()) after = want;
    if (after > params.size()) after = params.size();
    // The launch the OpDef's build generates fills the parameters by position: inputs, outputs,
    // then workspace and tiling. With exactly that many, the outputs end at `want` whatever the
    // kernel calls them (ops-nn add_example: OpDef x1, x2 -> y; kernel `x, y, z, workspace,
    // tiling`: after "y" would have been after an input).
    size_t tails = 0;
    while (tails < params.size() && IsLaunchTailName(s.Text(params[params.size() - 1 - tails].second - 1))) ++tails;
    if (tails > 0 && params.size() == want + tails) after = want;
  }
  if (params.empty() && def_.outputs.empty()) {
    // A launched kernel without parameters (a warm-up kernel): the buffer is its only one.
    auto [cf, ctok] = FileToken(s[k.params_close]);
    if (!cf) {
      Manual(where, fmt::format("the parameters of {} come from a macro; add `GM_ADDR {}` by hand", k.name, kBuffer));
      return;
    }
    InsertAt(*cf, *ctok, fmt::format("GM_ADDR {}", kBuffer), true);
    Done(*cf, ctok->line, fmt::format("{}: GM_ADDR {} as its parameter", k.name, kBuffer));
  } else if (after == 0 || params.empty()) {
    Manual(where, fmt::format("cannot find where the outputs of {} end; add `GM_ADDR {}` after them by hand", k.name,
                              kBuffer));
    return;
  } else {
    auto [pf, ptok] = FileToken(s[params[after - 1].second - 1]);
    if (!pf) {
      Manual(where,
             fmt::format("the parameters of {} come from macro pasting; add `GM_ADDR {}` by hand", k.name, kBuffer));
      return;
    }
    InsertAt(*pf, *ptok, fmt::format(", GM_ADDR {}", kBuffer));
    Done(*pf, ptok->line, fmt::format("{}: GM_ADDR {} after \"{}\"", k.name, kBuffer, ptok->text));
  }
  if (const ix::FunctionDef* target = index_->ForwardedKernel(k)) {
    ForwardCall(k, *target, params, after);
    return;
  }
  // The buffer's setup and write-back in the entry body.
  const ix::FunctionBody& body = index_->Body(k);
  bool own_tracing = false, setup = false;
  for (const ix::CallSite& c : body.calls) {
    if (c.name == "OPTRACE_KERNEL_BEGIN" || c.name == "SetMoeProfilePtr") setup = true;
  }
  for (const ix::FunctionDef* f : index_->FreeFunctions("MoeTracing")) own_tracing = own_tracing || f != nullptr;
  if (setup) return;
  if (own_tracing) {
    Manual(where, fmt::format("{} uses the tree's own MoeTracing: set the buffer up and write it back in {} "
                              "(stack buffer + SetMoeProfilePtr at the start, GM write-back + "
                              "DataCacheCleanAndInvalid at the end) by hand",
                              k.file->rel, k.name));
    return;
  }
  auto [of, open] = FileToken(s[k.body_open]);
  auto [cf, close] = FileToken(s[k.body_close]);
  if (!of || !cf || of != cf) {
    Manual(where, fmt::format("the body of {} is not in one file; add OPTRACE_KERNEL_BEGIN/END by hand", k.name));
    return;
  }
  const auto& t = of->lex.tokens;
  size_t oi = static_cast<size_t>(open - t.data()), ci = static_cast<size_t>(close - t.data());
  size_t first = oi + 1;
  while (first < ci && !(t[first].in_directive == open->in_directive && (open->in_directive || Code(t[first]))))
    ++first;
  if (first >= ci || t[first].line == open->line || t[ci].line == t[first > 0 ? ci - 1 : ci].line) {
    Manual(where, fmt::format("the body of {} does not start and end on lines of their own; add "
                              "OPTRACE_KERNEL_BEGIN() first and OPTRACE_KERNEL_END({}) last by hand",
                              k.name, kBuffer));
    return;
  }
  std::string indent = IndentOfLine(*of, t[first].line);
  AddLine(*of, open->in_directive ? t[first].line : FirstBodyLine(*of, oi, first), indent, "OPTRACE_KERNEL_BEGIN();",
          false, INT_MAX);
  bool ends_in_return = false;
  for (size_t j = ci; j-- > oi + 1;) {
    if (!(t[j].in_directive == open->in_directive) || (!open->in_directive && !Code(t[j]))) continue;
    if (t[j].Is(";")) {
      for (size_t r = j; r-- > oi + 1;) {
        if (t[r].Is(";") || t[r].Is("{") || t[r].Is("}")) break;
        if (t[r].Is("return")) ends_in_return = true;
      }
    }
    break;
  }
  std::string end = fmt::format("OPTRACE_KERNEL_END({});", kBuffer);
  if (!ends_in_return) AddLine(*of, t[ci].line, indent, end, true, INT_MAX);
  int depth = 0;
  for (size_t j = oi; j <= ci; ++j) {
    if (!open->in_directive && !Code(t[j])) continue;
    if (t[j].Is("{")) ++depth;
    if (t[j].Is("}")) --depth;
    if (!t[j].Is("return")) continue;
    if (open->in_directive) {
      Manual(where, fmt::format("{} returns early inside its #define; add OPTRACE_KERNEL_END({}) before that "
                                "return by hand",
                                k.name, kBuffer));
      continue;
    }
    Edits(*of).exits.push_back({j, INT_MAX, end});
  }
  Done(*of, t[first].line,
       fmt::format("{}: OPTRACE_KERNEL_BEGIN() / OPTRACE_KERNEL_END({}) (buffer set-up and "
                   "write-back)",
                   k.name, kBuffer));
  InitCall(k, params, after);
}

// A stub kernel passes the buffer on to the kernel it stands in for, which sets it up and writes
// it back: its call gets the argument where the callee's signature got the parameter.
void ChainBuilder::ForwardCall(const ix::FunctionDef& k, const ix::FunctionDef& target,
                               const std::vector<std::pair<size_t, size_t>>& params, size_t after) {
  const ix::TokenStream& s = *k.stream;
  std::string where = fmt::format("{}:{}", k.file->rel, k.line);
  std::string last_out = std::string(s.Text(params[after - 1].second - 1));
  for (const ix::CallSite& c : index_->Body(k).calls) {
    if (c.name != k.name || !c.object.empty() || c.macro) continue;
    for (auto [b, e] : c.args) {
      if (e != b + 1 || s.Text(b) != last_out) continue;
      auto [af, atok] = FileToken(s[b]);
      if (!af || atok->in_directive) break;
      InsertAt(*af, *atok, fmt::format(", {}", kBuffer));
      Done(*af, atok->line,
           fmt::format("{}: passes {} on to {} (line {}), which sets it up and writes it back", k.name, kBuffer,
                       target.name, target.line));
      return;
    }
  }
  Manual(where, fmt::format("{} stands in for the {} at line {}: pass {} on to it after \"{}\" by hand", k.name,
                            target.name, target.line, kBuffer, last_out));
}

void ChainBuilder::InitCall(const ix::FunctionDef& k, const std::vector<std::pair<size_t, size_t>>& params,
                            size_t after) {
  if (def_.outputs.empty()) return;
  const ix::TokenStream& s = *k.stream;
  const ix::FunctionBody& body = index_->Body(k);
  std::string last_out = std::string(s.Text(params[after - 1].second - 1));
  std::vector<const ix::CallSite*> inits;
  for (const ix::CallSite& c : body.calls) {
    if (c.name != "Init" || c.object.empty()) continue;
    for (auto [b, e] : c.args)
      if (e == b + 1 && s.Text(b) == last_out) inits.push_back(&c);
  }
  if (inits.size() != 1 || inits[0]->macro) return;
  const ix::CallSite& c = *inits[0];
  ix::Instance inst;
  inst.fn = &k;
  inst.unit = index_->UnitOf(k.file);
  std::vector<ix::CallTarget> targets = ix::ResolveCall(*index_, inst, c);
  if (targets.size() != 1) return;
  const ix::FunctionDef& init = *targets[0].inst.fn;
  size_t arg = 0;
  for (; arg < c.args.size(); ++arg)
    if (s.Text(c.args[arg].first) == last_out) break;
  std::vector<std::pair<size_t, size_t>> iparams = ParamRanges(init);
  if (arg >= iparams.size() || iparams.size() != c.args.size()) return;
  auto [af, atok] = FileToken(s[c.args[arg].second - 1]);
  auto [df, dtok] = FileToken((*init.stream)[iparams[arg].second - 1]);
  if (!af || !df || atok->in_directive || dtok->in_directive) return;
  InsertAt(*af, *atok, fmt::format(", {}", kBuffer));
  InsertAt(*df, *dtok, fmt::format(", GM_ADDR {}", kBuffer));
  Done(*df, dtok->line,
       fmt::format("{}: GM_ADDR {} after \"{}\" (the entry passes it too)", init.DisplayName(), kBuffer, dtok->text));
}

}  // namespace chain_steps
}  // namespace optrace::source
