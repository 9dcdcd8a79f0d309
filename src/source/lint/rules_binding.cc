// Operator binding rules (gate G2): the profiling output is the last data output everywhere the
// operator's outputs are listed - OpDef, infer, __global__ kernel, class Init, pybind
// (EXEC_NPU_CMD and the returned tuple), hand-written aclnn_* - and REQUIRED outputs are never
// given nullptr/nullopt.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "source/lint/lint_context.h"
#include "source/index/op_def.h"
#include "source/index/call_graph.h"
#include "source/index/call_resolver.h"
#include "source/index/code_index.h"

namespace optrace::source {
namespace {

std::string Normalize(std::string_view name) { return NormalizeName(name); }

bool IsNullArg(const std::vector<Token>& t, std::pair<size_t, size_t> r) {
  std::string text = JoinTokens(t, r.first, r.second);
  return text == "nullptr" || text == "NULL" || text == "c10::nullopt" || text == "std::nullopt" ||
         text == "at::nullopt" || text == "0";
}

using Param = OpDefParam;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Integer constants `NAME = 3` in the files (for output indices given by name).
std::map<std::string, long> Constants(const std::vector<const SourceFile*>& files) {
  std::map<std::string, long> out;
  for (const SourceFile* f : files) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i + 3 < t.size(); ++i) {
      if (t[i].kind == TokenKind::kIdentifier && t[i + 1].Is("=") && t[i + 2].kind == TokenKind::kNumber &&
          (t[i + 3].Is(";") || t[i + 3].Is(",") || t[i + 3].Is("}"))) {
        out[std::string(t[i].text)] = std::strtol(std::string(t[i + 2].text).c_str(), nullptr, 0);
      }
    }
  }
  return out;
}

class BindingChecker {
 public:
  explicit BindingChecker(LintContext& ctx) : ctx_(ctx) {
    for (const SourceFile* f : ctx.files) {
      std::string_view rel = f->rel;
      std::string_view name = rel.substr(rel.rfind('/') == std::string_view::npos ? 0 : rel.rfind('/') + 1);
      if (StartsWith(rel, "op_host/")) host_.push_back(f);
      // An aclnn_*.cpp under tests/ or examples/ (tests/comm/src/aclnn_grouped_matmul_case.cpp) drives
      // the API as a sample does; it is not the aclnn layer.
      bool aclnn = StartsWith(name, "aclnn_") && !StartsWith(rel, "op_kernel/") && !InSampleFolder(rel);
      if (aclnn) aclnn_.push_back(f);
      // Torch adapters anywhere in the tree (pybind/, <op>_torch_adpt.h at the root, csrc/...);
      // an aclnn_*.cpp calls aclnnInner*GetWorkspaceSize itself and is the aclnn layer, not an adapter.
      bool kernel_or_host = StartsWith(rel, "op_kernel/") || rel.find("/op_kernel/") != std::string_view::npos ||
                            StartsWith(rel, "op_host/") || rel.find("/op_host/") != std::string_view::npos;
      if (!kernel_or_host && !aclnn && CallsAdapter(*f)) (IsExampleProgram(*f) ? examples_ : pybind_).push_back(f);
    }
  }

  // A C++ program that drives the operator through aclnn (examples/test_aclnn_*.cpp with a
  // main()): a sample, not an adapter a framework calls; it returns no tensors.
  static bool IsExampleProgram(const SourceFile& f) {
    const auto& t = f.lex.tokens;
    for (const Token& x : t)
      if (x.active && !x.in_directive && (StartsWith(x.text, "EXEC_NPU_CMD") || x.Is("TORCH_LIBRARY") ||
                                          x.Is("TORCH_LIBRARY_IMPL") || x.Is("PYBIND11_MODULE")))
        return false;
    for (size_t i = 1; i + 1 < t.size(); ++i)
      if (t[i].active && t[i].Is("main") && t[i + 1].Is("(") && t[i - 1].Is("int")) return true;
    return InSampleFolder(f.rel);
  }

  static bool InSampleFolder(std::string_view rel) {
    std::filesystem::path p(rel);
    for (const auto& part : p.parent_path())
      if (part == "examples" || part == "example" || part == "tests" || part == "test") return true;
    return false;
  }

  // Does the aclnn API `name` (aclnnGeluGetWorkspaceSize, EXEC_NPU_CMD's aclnnGelu) belong to
  // this operator? One adapter file often launches several operators.
  bool IsThisOperatorsApi(std::string_view name) const {
    if (def_.class_name.empty() || !StartsWith(name, "aclnn")) return true;
    std::string api = NormalizeName(name.substr(5));
    std::string op = NormalizeName(def_.class_name);
    for (std::string_view prefix : {"inplace", "inner"})
      if (api.starts_with(prefix) && !op.starts_with(prefix)) api = api.substr(prefix.size());
    return api.starts_with(op);
  }

  static bool CallsAdapter(const SourceFile& f) {
    for (const Token& t : f.lex.tokens)
      if (t.active && !t.in_directive && t.kind == TokenKind::kIdentifier &&
          (StartsWith(t.text, "EXEC_NPU_CMD") || (StartsWith(t.text, "aclnn") && t.text.find("GetWorkspaceSize") != std::string_view::npos)))
        return true;
    return false;
  }

  void Run() {
    def_ = ParseOpDef(host_);
    RecordLayers();
    SecondProfilingOp();
    CheckLayers();
    // After the kernel signature: a kernel whose own order is wrong is reported once, not again
    // for every Init that follows its old order.
    if (ctx_.tree) CheckInitOrder();
  }

 private:
  // A per-SoC OpAICoreConfig with its own output list replaces the OpDef's on that SoC: it
  // needs the profiling output last as well.
  void CheckConfigs() {
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

  void CheckLayers() {
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

  // Which G2 layers the tree holds (for the gate verdict).
  void RecordLayers() {
    GateFacts& f = ctx_.facts;
    auto layer = [&](bool found, const char* name, bool needed) {
      if (found) f.binding_checked.push_back(name);
      else if (needed) f.binding_missing.push_back(name);
    };
    bool opdef = !def_.outputs.empty();
    layer(opdef, "OpDef", false);
    layer(opdef && InferRegistered(), "infer", false);  // binding-unchecked reports a missing one
    layer(!ctx_.Graphs().empty(), "__global__", opdef);
    layer(!aclnn_.empty(), "hand-written aclnn", false);
    layer(!pybind_.empty(), "torch adapter", opdef);
    f.profiling_output = def_.profiling >= 0;
    for (const index::CallGraph& g : ctx_.Graphs())
      for (const index::Param& p : g.root().inst.fn->params) f.profiling_output = f.profiling_output || IsProfilingName(p.name);
  }

  // Index argument of a call like GetOutputShape(1) / GetOutputShape(kProfilingIndex).
  long IndexValue(const std::vector<Token>& t, std::pair<size_t, size_t> r, const std::map<std::string, long>& k) {
    if (r.second != r.first + 1) return -1;
    const Token& x = t[r.first];
    if (x.kind == TokenKind::kNumber) return std::strtol(std::string(x.text).c_str(), nullptr, 0);
    auto it = k.find(std::string(x.text));
    return it == k.end() ? -1 : it->second;
  }

  std::vector<std::pair<size_t, size_t>> Args(const std::vector<Token>& t, size_t open) {
    size_t close = MatchingClose(t, open);
    std::vector<std::pair<size_t, size_t>> args;
    if (close >= t.size()) return args;
    int depth = 0;
    size_t start = open + 1;
    for (size_t i = open + 1; i < close; ++i) {
      if (t[i].Is("(") || t[i].Is("[") || t[i].Is("{")) ++depth;
      if (t[i].Is(")") || t[i].Is("]") || t[i].Is("}")) --depth;
      if (t[i].Is("<") && i > open + 1 && t[i - 1].kind == TokenKind::kIdentifier) {
        size_t tc = MatchingClose(t, i);
        if (tc < close) i = tc;
        continue;
      }
      if (depth == 0 && t[i].Is(",")) {
        args.emplace_back(start, i);
        start = i + 1;
      }
    }
    if (close > open + 1) args.emplace_back(start, close);
    return args;
  }

  // Infer functions registered anywhere in op_host (IMPL_OP_INFERSHAPE / SetInferShape / proto macros).
  bool InferRegistered() const {
    for (const SourceFile* f : host_)
      for (const Token& t : f->lex.tokens)
        if (t.active && !t.in_directive &&
            (t.Is("IMPL_OP_INFERSHAPE") || t.Is("SetInferShape") || t.Is("SetInferDataType") ||
             t.Is("IMPLEMT_COMMON_INFERFUNC") || t.Is("IMPLEMT_INFERFUNC") || t.Is("INFER_FUNC_REG") ||
             t.Is("COMMON_INFER_FUNC_REG") || t.Is("IMPL_OP") || t.Is("InferShape")))
          return true;
    return false;
  }

  // How the operator's output dtypes are inferred: a registered InferDataType function (or the
  // older SetInferDataType / IMPLEMT_INFERFUNC forms), `.InferOutDataTypeSameWithFirstInput()`
  // (every output gets input 0's dtype: wrong for an int64 profiling output), or nothing, when
  // the graph takes each output's dtype from the OpDef's DataType list (then the list decides).
  enum class DtypeSource { kFunction, kSameAsFirstInput, kOpDef };
  DtypeSource DtypeInference(const Token** same_first) const {
    bool function = false;
    for (const SourceFile* f : host_) {
      const auto& t = f->lex.tokens;
      for (size_t i = 1; i < t.size(); ++i) {
        if (!t[i].active || t[i].in_directive || !t[i - 1].Is(".")) continue;
        if (t[i].Is("InferOutDataTypeSameWithFirstInput")) {
          // The registry enables the rule registered last: a later .InferDataType(Fn) in the chain wins.
          bool later_function = false;
          int depth = 0;
          for (size_t k = i + 1; k < t.size(); ++k) {
            if (t[k].Is("(")) ++depth;
            if (t[k].Is(")")) --depth;
            if (depth == 0 && (t[k].Is(";") || t[k].Is("{") || t[k].Is("}"))) break;
            if (t[k].Is("InferDataType") && t[k - 1].Is(".")) later_function = true;
          }
          if (!later_function) {
            *same_first = &t[i];
            return DtypeSource::kSameAsFirstInput;
          }
        }
        if (t[i].Is("InferDataType")) function = true;
      }
      for (const Token& x : t)
        if (x.active && !x.in_directive &&
            (x.Is("SetInferDataType") || x.Is("IMPLEMT_INFERFUNC") || x.Is("INFER_FUNC_REG") ||
             x.Is("IMPLEMT_COMMON_INFERFUNC") || x.Is("COMMON_INFER_FUNC_REG")))
          function = true;
    }
    return function ? DtypeSource::kFunction : DtypeSource::kOpDef;
  }

  void CheckInfer() {
    if (!InferRegistered()) {
      const Param& prof = def_.outputs[static_cast<size_t>(def_.profiling)];
      ctx_.Report(prof.file, prof.line, prof.column, "binding-unchecked",
                  fmt::format("no infer shape/dtype function is registered in the operator tree, so the shape and "
                              "dtype of output {} (\"{}\") cannot be checked here; where the operator's outputs are "
                              "inferred, set shape [128 * 3 * PROF_SIZE_PER_CORE] and ge::DT_INT64 for it",
                              def_.profiling, prof.name));
      return;
    }
    auto constants = Constants(host_);
    long want = def_.profiling;
    bool shape = false, dtype = false, any_infer = false;
    // Where to report: the InferShape / InferDataType definitions, preferring an *infer* file.
    struct Where {
      const SourceFile* file = nullptr;
      int line = 1, column = 1;
    } shape_fn, dtype_fn;
    auto note = [](Where& w, const SourceFile* f, const Token& tok) {
      bool better = w.file == nullptr || (w.file != f && f->rel.find("infer") != std::string::npos &&
                                          w.file->rel.find("infer") == std::string::npos);
      if (better) w = {f, tok.line, tok.column};
    };
    for (const SourceFile* f : host_) {
      const auto& t = f->lex.tokens;
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (!t[i].active || !t[i + 1].Is("(")) continue;
        bool get_shape = t[i].Is("GetOutputShape");
        bool set_dtype = t[i].Is("SetOutputDataType");
        bool defines = i > 0 && t[i - 1].kind == TokenKind::kIdentifier && !t[i - 1].Is("return");
        if (defines && t[i].text.find("InferShape") != std::string_view::npos) note(shape_fn, f, t[i]);
        if (defines && t[i].text.find("InferDataType") != std::string_view::npos) note(dtype_fn, f, t[i]);
        if (!get_shape && !set_dtype) continue;
        any_infer = true;
        auto args = Args(t, i + 1);
        if (args.empty()) continue;
        if (IndexValue(t, args[0], constants) != want) continue;
        (get_shape ? shape : dtype) = true;
        // With profiling misplaced in the OpDef the indices mean other outputs: opdef-last reports it.
        bool profiling_last = static_cast<size_t>(def_.profiling) + 1 == def_.outputs.size();
        if (set_dtype && profiling_last && args.size() >= 2) {
          std::string type = JoinTokens(t, args[1].first, args[1].second);
          if (type != "DT_INT64" && type != "ge::DT_INT64" && type != "::ge::DT_INT64") {
            ctx_.Report(f, t[args[1].first].line, t[args[1].first].column, "binding-infer",
                        fmt::format("the profiling output {} gets dtype {}; it holds int64 records, set "
                                    "SetOutputDataType({}, ge::DT_INT64)",
                                    want, type, JoinTokens(t, args[0].first, args[0].second)));
          }
        }
      }
    }
    const Param& prof = def_.outputs[static_cast<size_t>(def_.profiling)];
    const Token* same_first = nullptr;
    DtypeSource source = DtypeInference(&same_first);
    if (!dtype && source == DtypeSource::kOpDef) dtype = true;  // the OpDef's DT_INT64 list is the dtype
    if (!dtype && source == DtypeSource::kSameAsFirstInput) {
      const SourceFile* f = nullptr;
      for (const SourceFile* h : host_)
        if (!h->lex.tokens.empty() && same_first >= &h->lex.tokens.front() && same_first <= &h->lex.tokens.back()) f = h;
      if (f) {
        ctx_.Report(f, same_first->line, same_first->column, "binding-infer",
                    fmt::format("InferOutDataTypeSameWithFirstInput() gives output {} (\"{}\") the first input's "
                                "dtype; it holds int64 records: register an InferDataType that sets "
                                "SetOutputDataType({}, ge::DT_INT64) (optrace instrument does)",
                                def_.profiling, prof.name, def_.profiling));
        dtype = true;  // reported here, with its own message
      }
    }
    if (shape && dtype) return;
    std::string missing = !shape && !dtype ? "shape and dtype" : !shape ? "shape" : "dtype";
    Where w = !shape ? shape_fn : dtype_fn;
    if (w.file == nullptr) w = {prof.file, prof.line, prof.column};
    ctx_.Report(w.file, w.line, w.column, "binding-infer",
                fmt::format("{} the {} of output {} (\"{}\"); set GetOutputShape({}) and SetOutputDataType({}, "
                            "ge::DT_INT64) unconditionally",
                            any_infer ? "the infer functions never set" : "no infer function sets", missing,
                            def_.profiling, prof.name, def_.profiling, def_.profiling));
  }

  // GM_ADDR parameters that name OpDef outputs, in order: {output index, token}.
  std::vector<std::pair<int, const Token*>> OutputParams(const SourceFile* f, const Block& fn) {
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
        if (o == n) exact[k].push_back(&t[i]);
        else if (o == bare) suffixed[k].push_back(&t[i]);
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

  // Outputs must appear in OpDef order with profiling last among them.
  void CheckOrder(const SourceFile* f, const Block& fn, const char* rule, const char* what, bool need_profiling) {
    auto params = OutputParams(f, fn);
    bool has_profiling = std::any_of(params.begin(), params.end(), [&](auto& p) { return p.first == def_.profiling; });
    if (need_profiling && !has_profiling) {
      ctx_.Report(f, fn.line, fn.column, rule,
                  fmt::format("{} {}() has no GM_ADDR parameter for \"{}\"; add it after the main outputs", what,
                              fn.name, def_.outputs[static_cast<size_t>(def_.profiling)].name));
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

  std::string OutputList() const {
    std::string s;
    for (const Param& p : def_.outputs) s += (s.empty() ? "" : ", ") + p.name;
    return s;
  }

  void CheckKernel() {
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
    }
  }

  // `void k(KERNEL_PARAMS)` (inplace_apply_adagrad_da): the parameters are the body of an object-like
  // #define of the same file; point the head at those tokens.
  static void ParametersFromMacro(const SourceFile& f, Block& fn) {
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

  // EXEC_NPU_CMD(aclnnOp, inputs..., attrs..., outputs...) and direct two-phase calls
  // aclnnOpGetWorkspaceSize(inputs..., attrs..., outputs..., &workspaceSize, &executor).
  void CheckPybind() {
    for (const SourceFile* f : pybind_) {
      const auto& t = f->lex.tokens;
      const CodeStructure& cs = ctx_.Structure(f);
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (!t[i].active || t[i].in_directive || !t[i + 1].Is("(")) continue;
        std::vector<std::pair<size_t, size_t>> data;
        if (StartsWith(t[i].text, "EXEC_NPU_CMD")) {
          auto args = Args(t, i + 1);
          if (args.size() < 2) continue;
          if (!IsThisOperatorsApi(JoinTokens(t, args[0].first, args[0].second))) continue;
          data.assign(args.begin() + 1, args.end());
        } else if (StartsWith(t[i].text, "aclnn") && t[i].kind == TokenKind::kIdentifier &&
                   t[i].text.find("GetWorkspaceSize") != std::string_view::npos) {
          if (!IsThisOperatorsApi(t[i].text)) continue;
          bool declaration = i > 0 && ((t[i - 1].kind == TokenKind::kIdentifier && !t[i - 1].Is("return")) ||
                                       t[i - 1].Is("*") || t[i - 1].Is("::"));
          if (declaration || cs.EnclosingFunction(i) < 0) continue;
          for (auto r : Args(t, i + 1)) {
            std::string text = Normalize(JoinTokens(t, r.first, r.second));
            bool runtime = text.find("workspace") != std::string::npos || text.find("executor") != std::string::npos ||
                           text.find("stream") != std::string::npos;
            if (!runtime) data.push_back(r);
          }
          if (data.empty()) continue;  // aclnnOp(workspace, workspaceSize, executor, stream): no tensors
        } else {
          continue;
        }
        CheckOutputArgs(f, i, data);
        CheckReturn(f, cs, i);
      }
    }
  }

  // aclnn example programs: a hand step (a warning), not a broken binding: each call of this
  // operator's aclnn*GetWorkspaceSize without a profiling tensor.
  void CheckExamples() {
    for (const SourceFile* f : examples_) {
      const auto& t = f->lex.tokens;
      const CodeStructure& cs = ctx_.Structure(f);
      for (size_t i = 1; i + 1 < t.size(); ++i) {
        if (!t[i].active || t[i].in_directive || !t[i + 1].Is("(") || t[i].kind != TokenKind::kIdentifier) continue;
        if (!StartsWith(t[i].text, "aclnn") || t[i].text.find("GetWorkspaceSize") == std::string_view::npos) continue;
        if (!IsThisOperatorsApi(t[i].text) || cs.EnclosingFunction(i) < 0) continue;
        bool declaration = (t[i - 1].kind == TokenKind::kIdentifier && !t[i - 1].Is("return")) || t[i - 1].Is("*");
        if (declaration) continue;
        bool passes = false;
        for (auto r : Args(t, i + 1)) passes = passes || IsProfilingName(JoinTokens(t, r.first, r.second));
        if (passes) continue;
        ctx_.Report(f, t[i].line, t[i].column, "binding-example",
                    fmt::format("this example program calls {} without a profiling tensor, so it runs untraced: "
                                "create an int64 aclTensor of [128 * 3 * PROF_SIZE_PER_CORE] elements and pass it after "
                                "the outputs, then save it after aclrtSynchronizeStream",
                                t[i].text));
      }
    }
  }

  // The data arguments of one launch: profiling last, REQUIRED outputs not null.
  void CheckOutputArgs(const SourceFile* f, size_t call, const std::vector<std::pair<size_t, size_t>>& data) {
    const auto& t = f->lex.tokens;
    size_t n_out = def_.outputs.size();
    size_t expected_args = def_.inputs.size() + def_.attrs + n_out;
    int prof_pos = -1;
    for (size_t a = 0; a < data.size(); ++a)
      if (IsProfilingName(JoinTokens(t, data[a].first, data[a].second))) prof_pos = static_cast<int>(a);
    // Outputs are the last n_out arguments when the count matches the OpDef.
    if (data.size() == expected_args) {
      for (size_t k = 0; k < n_out; ++k) {
        auto r = data[data.size() - n_out + k];
        if (def_.outputs[k].required && IsNullArg(t, r)) {
          ctx_.Report(f, t[r.first].line, t[r.first].column, "binding-required-null",
                      fmt::format("REQUIRED output \"{}\" is given {}; pass a real tensor (or declare it "
                                  "OPTIONAL in the OpDef)",
                                  def_.outputs[k].name, JoinTokens(t, r.first, r.second)));
        }
      }
    }
    if (prof_pos < 0) {
      bool nulled = data.size() == expected_args && IsNullArg(t, data.back());
      if (!nulled) {
        ctx_.Report(f, t[call].line, t[call].column, "binding-pybind",
                    fmt::format("{} does not pass the profiling tensor; pass it as the last output", t[call].text));
      }
    } else if (static_cast<size_t>(prof_pos) + 1 != data.size()) {
      auto r = data[static_cast<size_t>(prof_pos)];
      ctx_.Report(f, t[r.first].line, t[r.first].column, "binding-pybind",
                  fmt::format("the profiling tensor is argument {} of {} passed to {}; it must be the last "
                              "(after the main outputs)",
                              prof_pos + 1, data.size(), t[call].text));
    }
  }

  // A `return` written as a macro argument (`CHECK_RET(ret == ACL_SUCCESS, return ret);`) is an
  // early exit inside the macro, not the function's own return.
  static bool InsideParentheses(const std::vector<Token>& t, size_t at) {
    int depth = 0;
    for (size_t i = at; i > 0; --i) {
      const Token& x = t[i - 1];
      if (x.Is(")")) ++depth;
      if (x.Is("(") && --depth < 0) return true;
      if (depth == 0 && (x.Is(";") || x.Is("{") || x.Is("}"))) return false;
    }
    return false;
  }

  // The function around EXEC_NPU_CMD returns the profiling tensor last.
  void CheckReturn(const SourceFile* f, const CodeStructure& cs, size_t call) {
    const auto& t = f->lex.tokens;
    int fn = cs.EnclosingFunction(call);
    if (fn < 0) return;
    const Block& b = cs.blocks[static_cast<size_t>(fn)];
    for (size_t i = call; i < b.close; ++i) {
      if (!t[i].Is("return") || cs.EnclosingFunction(i) != fn || InsideParentheses(t, i)) continue;
      size_t end = i + 1;
      while (end < b.close && !t[end].Is(";")) ++end;
      // Last top-level element of make_tuple(...) / {...} / a single value.
      size_t open = i + 1;
      while (open < end && !t[open].Is("(") && !t[open].Is("{")) ++open;
      std::string last = JoinTokens(t, i + 1, end);
      if (open < end) {
        auto args = Args(t, open);
        if (!args.empty()) last = JoinTokens(t, args.back().first, args.back().second);
      }
      if (!IsProfilingName(last)) {
        ctx_.Report(f, t[i].line, t[i].column, "binding-pybind",
                    fmt::format("returns \"{}\" last; return the profiling tensor as the last element so callers "
                                "can unpack `*outs, profiling = op(...)`",
                                last));
      }
      return;
    }
  }

  void CheckAclnn() {
    for (const SourceFile* f : aclnn_) {
      const auto& t = f->lex.tokens;
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (!t[i].active || t[i].kind != TokenKind::kIdentifier || !t[i + 1].Is("(")) continue;
        std::string_view name = t[i].text;
        // The API is aclnn<Op>GetWorkspaceSize (and aclnnInner*); a file's own helpers named
        // ...GetWorkspaceSizeCommon / ...CommonProcess are not part of it.
        if (!StartsWith(name, "aclnn") || !name.ends_with("GetWorkspaceSize")) continue;
        auto args = Args(t, i + 1);
        bool declaration = i > 0 && ((t[i - 1].kind == TokenKind::kIdentifier && !t[i - 1].Is("return")) || t[i - 1].Is("*"));
        // Position of the profiling argument vs the last aclTensor* / tensor argument.
        int prof = -1, last_tensor = -1, first_runtime = -1;
        for (size_t a = 0; a < args.size(); ++a) {
          std::string text = JoinTokens(t, args[a].first, args[a].second);
          if (IsProfilingName(text)) prof = static_cast<int>(a);
          bool workspace = text.find("workspaceSize") != std::string::npos || text.find("executor") != std::string::npos;
          if (workspace && first_runtime < 0) first_runtime = static_cast<int>(a);
          if (!workspace && (!declaration || text.find("aclTensor") != std::string::npos)) last_tensor = static_cast<int>(a);
        }
        if (prof < 0 && !declaration && def_.outputs[static_cast<size_t>(def_.profiling)].required) {
          // Profiling is the last data argument, just before the workspace size: a null there, not
          // a null anywhere (optional inputs are often nullptr).
          auto null_arg = args.end();
          if (first_runtime > 0 && IsNullArg(t, args[static_cast<size_t>(first_runtime - 1)]))
            null_arg = args.begin() + (first_runtime - 1);
          if (null_arg != args.end()) {
            ctx_.Report(f, t[null_arg->first].line, t[null_arg->first].column, "binding-required-null",
                        fmt::format("{} is given {} where the REQUIRED profiling output belongs; pass the tensor", name,
                                    JoinTokens(t, null_arg->first, null_arg->second)));
            continue;
          }
        }
        if (prof < 0) {
          if (declaration || NameIsInner(name)) {
            ctx_.Report(f, t[i].line, t[i].column, "binding-aclnn",
                        fmt::format("{} has no profiling argument; add it after the main outputs", name));
          }
          continue;
        }
        if (prof != last_tensor) {
          auto r = args[static_cast<size_t>(prof)];
          ctx_.Report(f, t[r.first].line, t[r.first].column, "binding-aclnn",
                      fmt::format("the profiling argument of {} is not the last tensor (before workspaceSize and "
                                  "executor)",
                                  name));
        }
      }
    }
  }

  static bool NameIsInner(std::string_view name) { return StartsWith(name, "aclnnInner"); }

  // Seed 000: profiling is the operator's own output; a second `*_profiling` op or torch.ops
  // entry forks the operator.
  void SecondProfilingOp() {
    auto profiling_name = [](std::string_view n) {
      std::string x = NormalizeName(n);
      return x.size() > 9 && (x.ends_with("profiling") || x.ends_with("withprofiling"));
    };
    for (const SourceFile* f : ctx_.files) {
      const auto& t = f->lex.tokens;
      for (size_t i = 0; i + 4 < t.size(); ++i) {
        if (!t[i].active || t[i].in_directive) continue;
        // class XProfiling : public OpDef / OP_ADD(XProfiling)
        bool opdef = t[i].Is("class") && t[i + 2].Is(":") && t[i + 4].Is("OpDef") && profiling_name(t[i + 1].text);
        bool op_add = t[i].Is("OP_ADD") && t[i + 1].Is("(") && profiling_name(t[i + 2].text);
        std::string value;
        bool schema = t[i].kind == TokenKind::kString && StringLiteralValue(t[i], &value) && i > 1 &&
                      t[i - 1].Is("(") && (t[i - 2].Is("def") || t[i - 2].Is("impl"));
        if (schema) {
          std::string op = value.substr(0, value.find('('));
          schema = profiling_name(op);
        }
        if (!opdef && !op_add && !schema) continue;
        ctx_.Report(f, t[i].line, t[i].column, "no-profiling-op",
                    fmt::format("{} registers a second, profiling-only operator; add profiling_data as the last "
                                "output of the original operator instead (same op and torch.ops name)",
                                opdef || op_add ? std::string(t[i + (opdef ? 1 : 2)].text) : value));
      }
    }
  }

  // The kernel class's Init, as the entry calls it: every GM_ADDR it passes in __global__ order,
  // bound to the Init parameter of the same name.
  // The kernel class's Init against its own definition: what is certain is where the profiling
  // buffer lands. A call that passes it at another position than the definition's profiling
  // parameter, or passes another buffer where that parameter is, sends the records into the
  // wrong GM_ADDR; a call whose arguments are the definition's parameter names in another order
  // swaps two buffers. The order of the other arguments against the __global__ list is the
  // class's own business (shipping operators order Init as they like), not a finding. With
  // several candidate definitions (one class per #if arm) a finding needs all of them to agree.
  // A buffer's name without the decorations an Init parameter adds: xGM, x_gm, xAddr -> x.
  static std::string BufferName(std::string_view name) {
    std::string n = NormalizeName(name);
    for (std::string_view suffix : {"gmaddr", "gm", "addr", "ptr"})
      if (n.size() > suffix.size() && n.ends_with(suffix)) {
        n.resize(n.size() - suffix.size());
        break;
      }
    if (n.size() > 2 && n.starts_with("gm")) n = n.substr(2);
    return n;
  }

  void CheckInitOrder() {
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
            why = fmt::format("{}.Init passes \"{}\" as argument {}, but {} takes the profiling buffer as parameter {} "
                              "(\"{}\"): the records would go to \"{}\"; pass it at position {}",
                              c.object, passed[static_cast<size_t>(prof_arg)], prof_arg + 1, init.DisplayName(),
                              prof_param + 1, init.params[static_cast<size_t>(prof_param)].name,
                              init.params[static_cast<size_t>(prof_arg)].name, prof_param + 1);
            at = static_cast<size_t>(prof_arg);
          } else if (prof_param >= 0 && prof_arg < 0 && !passed[static_cast<size_t>(prof_param)].empty() &&
                     kparam.count(BufferName(passed[static_cast<size_t>(prof_param)]))) {
            why = fmt::format("{} takes the profiling buffer as parameter {} (\"{}\"), but {}.Init passes \"{}\" "
                              "there and no profiling buffer at all; pass the kernel's profiling parameter",
                              init.DisplayName(), prof_param + 1, init.params[static_cast<size_t>(prof_param)].name,
                              c.object, passed[static_cast<size_t>(prof_param)]);
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
                why = fmt::format("{}.Init passes \"{}\" and \"{}\" to {}'s parameters \"{}\" and \"{}\": by their "
                                  "names the two buffers look swapped; check which one the definition uses as which",
                                  c.object, passed[a], passed[b], init.DisplayName(), init.params[a].name,
                                  init.params[b].name);
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

  // Heuristic (a warning): two of the operator's outputs passed to Init in the other order than
  // the __global__ lists them. Inputs are left alone: shipping classes often take them in their
  // own order; outputs follow the OpDef's order in nearly every operator.
  void CheckInitOutputOrder(const index::FunctionDef& k, const index::CallSite& c) {
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

  // Without an OpDef the kernel is launched directly: profiling is its last GM_ADDR and every
  // launch in the tree passes it there.
  void CheckDirectLaunch() {
    bool any_marks = false;
    for (const SourceFile* f : ctx_.files) any_marks = any_marks || !f->traces.sites.empty();
    if (!any_marks || !ctx_.tree) return;
    std::map<std::string, std::pair<int, size_t>> kernels;  // name -> (profiling param index, params)
    for (const index::CallGraph& g : ctx_.Graphs()) {
      const index::FunctionDef& k = *g.root().inst.fn;
      int prof = -1;
      for (size_t p = 0; p < k.params.size(); ++p)
        if (IsProfilingName(k.params[p].name)) prof = static_cast<int>(p);
      const index::StreamToken& at = (*k.stream)[k.name_pos];
      if (prof < 0) {
        ctx_.Report(k.file, k.line, k.column, "binding-kernel-order",
                    fmt::format("kernel {} records trace marks but takes no profiling GM_ADDR; add `GM_ADDR "
                                "profiling_data` as its last parameter and pass the profiling buffer there",
                                k.name));
        continue;
      }
      for (size_t p = static_cast<size_t>(prof) + 1; p < k.params.size(); ++p) {
        if (k.params[p].type_text.find('*') == std::string::npos && k.params[p].type_text.find("GM_ADDR") == std::string::npos)
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
      kernels[k.name] = {prof, k.params.size()};
    }
    bool launched = false;
    for (const SourceFile* f : ctx_.files) {
      const auto& t = f->lex.tokens;
      for (size_t i = 0; i + 3 < t.size(); ++i) {
        if (!t[i].active || t[i].in_directive || t[i].kind != TokenKind::kIdentifier) continue;
        size_t open = t.size();
        std::string kernel;
        std::vector<std::pair<size_t, size_t>> args;
        if (kernels.count(std::string(t[i].text)) && t[i + 1].Is("<<") && t[i + 2].Is("<")) {
          for (size_t k = i + 3; k + 3 < t.size(); ++k)
            if (t[k].Is(">") && t[k + 1].Is(">") && t[k + 2].Is(">") && t[k + 3].Is("(")) {
              open = k + 3;
              break;
            }
          kernel = std::string(t[i].text);
          if (open < t.size()) args = Args(t, open);
        } else if (t[i].Is("ACLRT_LAUNCH_KERNEL") && t[i + 1].Is("(") && kernels.count(std::string(t[i + 2].text))) {
          size_t c = MatchingClose(t, i + 1);
          kernel = std::string(t[i + 2].text);
          if (c + 1 < t.size() && t[c + 1].Is("(")) {
            args = Args(t, c + 1);
            if (args.size() >= 2) args.erase(args.begin(), args.begin() + 2);  // blockDim, stream
          }
        } else if (t[i].Is("EXEC_KERNEL_CMD") && t[i + 1].Is("(") && kernels.count(std::string(t[i + 2].text))) {
          kernel = std::string(t[i + 2].text);
          args = Args(t, i + 1);
          if (args.size() >= 2) args.erase(args.begin(), args.begin() + 2);  // name, blockDim
        }
        if (kernel.empty() || args.empty()) continue;
        launched = true;
        auto [prof, n] = kernels[kernel];
        if (args.size() != n || prof < 0) continue;
        auto r = args[static_cast<size_t>(prof)];
        if (!IsProfilingName(JoinTokens(t, r.first, r.second)))
          ctx_.Report(f, t[r.first].line, t[r.first].column, "binding-pybind",
                      fmt::format("the launch of {} passes \"{}\" where the kernel takes its profiling buffer "
                                  "(argument {}); pass the profiling buffer there",
                                  kernel, JoinTokens(t, r.first, r.second), prof + 1));
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

  LintContext& ctx_;
  std::vector<const SourceFile*> host_, pybind_, aclnn_, examples_;
  OpDef def_;
  std::set<std::string> misordered_;  // kernels reported by binding-kernel-order
};

}  // namespace

void CheckBinding(LintContext& ctx) { BindingChecker(ctx).Run(); }

}  // namespace optrace::source
