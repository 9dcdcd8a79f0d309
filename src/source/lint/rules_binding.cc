// Operator binding rules (gate G2): the profiling output is the last data output everywhere the
// operator's outputs are listed - OpDef, infer, __global__ kernel, class Init, pybind
// (EXEC_NPU_CMD and the returned tuple), hand-written aclnn_* - and REQUIRED outputs are never
// given nullptr/nullopt. The checks per place: binding_checker.h.
#include "source/lint/binding_checker.h"
#include "source/lexer/kernel_launches.h"

namespace optrace::source {
using binding_steps::BindingChecker;

namespace binding_steps {

bool BindingChecker::IsExampleProgram(const SourceFile& f) {
  const auto& t = f.lex.tokens;
  for (const Token& x : t)
    if (x.active && !x.in_directive &&
        (StartsWith(x.text, "EXEC_NPU_CMD") || x.Is("TORCH_LIBRARY") || x.Is("TORCH_LIBRARY_IMPL") ||
         x.Is("PYBIND11_MODULE")))
      return false;
  for (size_t i = 1; i + 1 < t.size(); ++i)
    if (t[i].active && t[i].Is("main") && t[i + 1].Is("(") && t[i - 1].Is("int")) return true;
  return InSampleFolder(f.rel);
}

bool BindingChecker::InSampleFolder(std::string_view rel) {
  std::filesystem::path p(rel);
  for (const auto& part : p.parent_path())
    if (part == "examples" || part == "example" || part == "tests" || part == "test") return true;
  return false;
}

bool BindingChecker::IsThisOperatorsApi(std::string_view name) const {
  // Only this OpDef's API: aclnnFooW4A8 and aclnnFooBF16 beside aclnnFoo are other operators, which
  // take no profiling buffer (a fused MoE adapter calls them in sibling branches).
  return IsAclnnApiOf(name, def_.class_name);
}

bool BindingChecker::CallsAdapter(const SourceFile& f) {
  for (const Token& t : f.lex.tokens)
    if (t.active && !t.in_directive && t.kind == TokenKind::kIdentifier &&
        (StartsWith(t.text, "EXEC_NPU_CMD") ||
         (StartsWith(t.text, "aclnn") && t.text.find("GetWorkspaceSize") != std::string_view::npos)))
      return true;
  return false;
}

void BindingChecker::Run() {
  def_ = ParseOpDef(host_);
  RecordLayers();
  SecondProfilingOp();
  CheckLayers();
  // After the kernel signature: a kernel whose own order is wrong is reported once, not again
  // for every Init that follows its old order.
  if (ctx_.tree) CheckInitOrder();
}

void BindingChecker::CheckConfigs() {
  std::map<std::string, std::vector<const Param*>> by;
  for (const Param& p : def_.config_outputs) by[p.receiver].push_back(&p);
  for (const auto& [receiver, list] : by) {
    const Param& last = *list.back();
    if (IsProfilingName(last.name)) continue;
    ctx_.Report(last.file, last.line, last.column, "binding-opdef-last",
                fmt::format("the config {} declares its own outputs without the profiling output; add "
                            "{}.Output(\"{}\").ParamType(REQUIRED).DataType({{ge::DT_INT64}}) after \"{}\"",
                            receiver, receiver, def_.outputs[static_cast<size_t>(def_.profiling)].name, last.name));
  }
}

void BindingChecker::CheckLayers() {
  if (def_.outputs.empty()) {
    // No OpDef: a kernel launched directly (<<<>>>, ACLRT_LAUNCH_KERNEL, EXEC_KERNEL_CMD).
    CheckDirectLaunch();
    return;
  }
  const Param& last = def_.outputs.back();
  if (def_.profiling < 0) {
    ctx_.Report(last.file, last.line, last.column, "binding-opdef-last",
                fmt::format("the OpDef has no profiling output; add this->Output(\"profiling_data\")"
                            ".ParamType(REQUIRED).DataType({{ge::DT_INT64}}) after \"{}\"",
                            last.name));
    return;
  }
  const Param& prof = def_.outputs[static_cast<size_t>(def_.profiling)];
  CheckConfigs();
  CheckInfer();
  if (static_cast<size_t>(def_.profiling) + 1 != def_.outputs.size()) {
    ctx_.Report(prof.file, prof.line, prof.column, "binding-opdef-last",
                fmt::format("\"{}\" is output {} of {}; the profiling output must be the last (after \"{}\")",
                            prof.name, def_.profiling + 1, def_.outputs.size(), last.name));
    return;  // every other list is compared against the OpDef order: fix this first
  }
  CheckKernel();
  CheckPybind();
  CheckExamples();
  CheckAclnn();
}

void BindingChecker::RecordLayers() {
  GateFacts& f = ctx_.facts;
  auto layer = [&](bool found, const char* name, bool needed) {
    if (found)
      f.binding_checked.push_back(name);
    else if (needed)
      f.binding_missing.push_back(name);
  };
  bool opdef = !def_.outputs.empty();
  layer(opdef, "OpDef", false);
  layer(opdef && InferRegistered(), "infer", false);  // binding-unchecked reports a missing one
  layer(!ctx_.Graphs().empty(), "__global__", opdef);
  layer(!aclnn_.empty(), "hand-written aclnn", false);
  layer(!pybind_.empty(), "torch adapter", opdef);
  f.profiling_output = def_.profiling >= 0;
  for (const index::CallGraph& g : ctx_.Graphs())
    for (const index::Param& p : g.root().inst.fn->params)
      f.profiling_output = f.profiling_output || IsProfilingName(p.name);
}

long BindingChecker::IndexValue(const std::vector<Token>& t, std::pair<size_t, size_t> r,
                                const std::map<std::string, long>& k) {
  if (r.second != r.first + 1) return -1;
  const Token& x = t[r.first];
  if (x.kind == TokenKind::kNumber) return std::strtol(std::string(x.text).c_str(), nullptr, 0);
  auto it = k.find(std::string(x.text));
  return it == k.end() ? -1 : it->second;
}

std::vector<std::pair<size_t, size_t>> BindingChecker::Args(const std::vector<Token>& t, size_t open) {
  return SplitCallArgs(t, open, MatchingClose(t, open));
}

std::vector<std::pair<int, const Token*>> BindingChecker::OutputParams(const SourceFile* f, const Block& fn) {
  const auto& t = f->lex.tokens;
  std::set<std::string> inputs;
  for (const Param& in : def_.inputs) inputs.insert(Normalize(in.name));
  // Per output, the parameters named exactly like it and those named like it with a suffix
  // (kernels often suffix outputs: recvX, dynamicScalesOut, yGm for recv_x, dynamic_scales, y).
  std::vector<std::vector<const Token*>> exact(def_.outputs.size()), suffixed(def_.outputs.size());
  for (size_t i = fn.head_begin; i < fn.head_end; ++i) {
    if (t[i].kind != TokenKind::kIdentifier || !(i + 1 == fn.head_end || t[i + 1].Is(","))) continue;
    std::string n = Normalize(t[i].text), bare = n;
    for (std::string_view suffix : {"output", "out", "gm", "addr", "ref"})
      if (bare.size() > suffix.size() + 1 && bare.ends_with(suffix)) {
        bare.resize(bare.size() - suffix.size());
        break;
      }
    for (size_t k = 0; k < def_.outputs.size(); ++k) {
      std::string o = Normalize(def_.outputs[k].name);
      if (o == n)
        exact[k].push_back(&t[i]);
      else if (o == bare)
        suffixed[k].push_back(&t[i]);
    }
  }
  std::vector<std::pair<int, const Token*>> out;
  for (size_t k = 0; k < def_.outputs.size(); ++k) {
    const Token* tok = nullptr;
    if (inputs.count(Normalize(def_.outputs[k].name))) {
      // An output that shares its name with an input (an in-place cache): the exactly named
      // parameter is the input's; the output is its suffixed twin, else it cannot be told apart.
      if (!suffixed[k].empty()) tok = suffixed[k].back();
    } else if (!exact[k].empty()) {
      tok = exact[k].front();
    } else if (!suffixed[k].empty()) {
      tok = suffixed[k].front();
    }
    if (tok) out.push_back({static_cast<int>(k), tok});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return out;
}

void BindingChecker::CheckOrder(const SourceFile* f, const Block& fn, const char* rule, const char* what,
                                bool need_profiling) {
  auto params = OutputParams(f, fn);
  bool has_profiling = std::any_of(params.begin(), params.end(), [&](auto& p) { return p.first == def_.profiling; });
  if (need_profiling && !has_profiling) {
    ctx_.Report(f, fn.line, fn.column, rule,
                fmt::format("{} {}() has no GM_ADDR parameter for \"{}\"; add it after the main outputs", what, fn.name,
                            def_.outputs[static_cast<size_t>(def_.profiling)].name));
    return;
  }
  for (size_t k = 1; k < params.size(); ++k) {
    bool after_profiling = params[k - 1].first == def_.profiling;
    if (params[k].first > params[k - 1].first && !after_profiling) continue;
    const Token* at = params[k].second;
    ctx_.Report(f, at->line, at->column, rule,
                fmt::format("{} {}() lists \"{}\" after \"{}\"; the OpDef order is {} with profiling last", what,
                            fn.name, at->text, params[k - 1].second->text, OutputList()));
    misordered_.insert(fn.name);
    return;
  }
}

std::string BindingChecker::OutputList() const {
  std::string s;
  for (const Param& p : def_.outputs) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

bool BindingChecker::InsideParentheses(const std::vector<Token>& t, size_t at) {
  int depth = 0;
  for (size_t i = at; i > 0; --i) {
    const Token& x = t[i - 1];
    if (x.Is(")")) ++depth;
    if (x.Is("(") && --depth < 0) return true;
    if (depth == 0 && (x.Is(";") || x.Is("{") || x.Is("}"))) return false;
  }
  return false;
}

bool BindingChecker::NameIsInner(std::string_view name) { return StartsWith(name, "aclnnInner"); }

std::string BindingChecker::BufferName(std::string_view name) {
  std::string n = NormalizeName(name);
  for (std::string_view suffix : {"gmaddr", "gm", "addr", "ptr"})
    if (n.size() > suffix.size() && n.ends_with(suffix)) {
      n.resize(n.size() - suffix.size());
      break;
    }
  if (n.size() > 2 && n.starts_with("gm")) n = n.substr(2);
  return n;
}

void BindingChecker::SecondProfilingOp() {
  // Every operator the tree registers: class X : public OpDef, OP_ADD(X), m.def("x(...)").
  struct Registration {
    const SourceFile* f;
    size_t at;
    std::string name;
  };
  std::vector<Registration> ops;
  for (const SourceFile* f : ctx_.files) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i < t.size(); ++i) {
      if (!t[i].active || t[i].in_directive) continue;
      if (i + 4 < t.size() && t[i].Is("class") && t[i + 2].Is(":") && t[i + 4].Is("OpDef"))
        ops.push_back({f, i, std::string(t[i + 1].text)});
      if (i + 2 < t.size() && t[i].Is("OP_ADD") && t[i + 1].Is("(")) ops.push_back({f, i, std::string(t[i + 2].text)});
      std::string value;
      if (t[i].kind == TokenKind::kString && StringLiteralValue(t[i], &value) && i > 1 && t[i - 1].Is("(") &&
          (t[i - 2].Is("def") || t[i - 2].Is("impl")))
        ops.push_back({f, i, value.substr(0, value.find('('))});
    }
  }
  std::set<std::string> names;
  for (const Registration& r : ops) names.insert(NormalizeName(r.name));
  // *_profiling / *_with_profiling is a profiling-only op by its name alone; a shorter suffix
  // (_prof, _profiled, _traced, _with_trace) is one only when the operator without it is
  // registered too: `foo_prof` beside `foo` is a second entry, `foo_prof` alone may be its name.
  auto second_op = [&](const std::string& raw) {
    std::string x = NormalizeName(raw);
    if (x.size() > 9 && (x.ends_with("profiling") || x.ends_with("withprofiling"))) return true;
    for (std::string_view suffix : {"withprof", "prof", "profiled", "withtrace", "traced"})
      if (x.size() > suffix.size() && x.ends_with(suffix) && names.count(x.substr(0, x.size() - suffix.size())))
        return true;
    return false;
  };
  for (const Registration& r : ops) {
    if (!second_op(r.name)) continue;
    const Token& at = r.f->lex.tokens[r.at];
    ctx_.Report(r.f, at.line, at.column, "no-profiling-op",
                fmt::format("{} registers a second, profiling-only operator; add profiling_data as the last "
                            "output of the original operator instead (same op and torch.ops name)",
                            r.name));
  }
}

}  // namespace binding_steps


void CheckBinding(LintContext& ctx) { BindingChecker(ctx).Run(); }

}  // namespace optrace::source
