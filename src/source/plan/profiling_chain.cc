#include "source/plan/profiling_chain.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <set>

#include "source/lexer/code_structure.h"
#include "source/lexer/include_tree.h"
#include "source/index/call_resolver.h"
#include "source/index/code_index.h"
#include "source/index/op_def.h"
#include "source/lexer/trace_calls.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace ix = index;
namespace {

bool Code(const Token& t) { return t.active && !t.in_directive; }

constexpr const char* kBuffer = "profiling_data";
const std::string kWords = fmt::format("{} * {} * {}", kInferMaxBlocks, kInferCoresPerBlock, kDefaultProfSizePerCore);

std::vector<size_t> LineStarts(std::string_view text) {
  std::vector<size_t> s{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') s.push_back(i + 1);
  return s;
}

std::string IndentOfLine(const SourceFile& f, int line) {
  std::string_view text = *f.text;
  std::vector<size_t> starts = LineStarts(text);
  if (line < 1 || static_cast<size_t>(line) > starts.size()) return "";
  size_t b = starts[static_cast<size_t>(line - 1)], e = b;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return std::string(text.substr(b, e - b));
}

bool IsDirectiveLine(const SourceFile& f, int line) {
  for (const Token& t : f.lex.tokens)
    if (t.line == line) return t.in_directive;
  return false;
}

class ChainBuilder {
 public:
  ChainBuilder(const Plan& plan, const SourceSet& set) : plan_(plan), set_(set) {}

  ChainPlan Run() {
    for (const SourceFile* f : set_.Files()) {
      const std::string& rel = f->rel;
      if (rel.find("op_host/") != std::string::npos || rel.rfind("op_host", 0) == 0) host_.push_back(f);
      else if (rel.find("op_kernel/") == std::string::npos) others_.push_back(f);
    }
    def_ = ParseOpDef(host_);
    if (def_.profiling >= 0) return std::move(out_);  // the chain is there: lint checks it
    BuildIndex();
    // A kernel that already takes the buffer, or sets it up and writes it back, has its chain.
    bool kernel_has_profiling = false;
    for (const ix::FunctionDef* k : kernels_) {
      for (const ix::Param& p : k->params)
        if (IsProfilingName(p.name)) kernel_has_profiling = true;
      for (const ix::CallSite& c : index_->Body(*k).calls)
        if (c.name == "OPTRACE_KERNEL_END" || c.name == "SetMoeProfilePtr") kernel_has_profiling = true;
    }
    if (kernel_has_profiling) return std::move(out_);
    out_.applies = true;
    if (!def_.outputs.empty()) {
      OpDefOutput();
      Infer();
    }
    for (const ix::FunctionDef* k : kernels_) Kernel(*k);
    Adapters();
    Aclnn();
    if (def_.outputs.empty()) Launchers();
    Samples();
    return std::move(out_);
  }

 private:
  FileEdits& Edits(const SourceFile& f) { return out_.edits[f.rel]; }

  void InsertAt(const SourceFile& f, const Token& at_end_of, std::string text, bool before = false) {
    std::vector<size_t> starts = LineStarts(*f.text);
    size_t line_start = starts[static_cast<size_t>(at_end_of.line - 1)];
    size_t offset = (before ? at_end_of.offset : at_end_of.end_offset()) - line_start;
    Edits(f).inserts[at_end_of.line].push_back({offset, std::move(text)});
  }

  void AddLine(const SourceFile& f, int before_line, const std::string& indent, std::string code, bool end = false,
               int span = INT_MAX) {
    SiteMarks::Line l;
    l.before_line = before_line;
    l.end = end;
    l.span = span;
    l.indent = indent;
    l.code = std::move(code);
    l.macro = IsDirectiveLine(f, before_line);
    Edits(f).lines.push_back(std::move(l));
  }

  void Done(const SourceFile& f, int line, std::string what) {
    out_.done.push_back(fmt::format("{}:{}: {}", f.rel, line, what));
  }
  void Manual(const std::string& where, std::string what) { out_.manual.push_back(fmt::format("{}: {}", where, what)); }

  // The kernels of the plan, read by the code index (macro-generated ones included).
  void BuildIndex() {
    std::set<const SourceFile*> files;
    for (const PlanKernel& k : plan_.kernels) {
      const SourceFile* f = set_.Find(k.entry);
      if (f) files.insert(f);
    }
    // In path order, as lint and plan index them: a set of pointers iterates in allocation order,
    // which moved the kernels' edits around from one copy of a tree to the next.
    std::vector<const SourceFile*> list(files.begin(), files.end());
    std::sort(list.begin(), list.end(), [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
    index_ = std::make_unique<ix::CodeIndex>(list);
    std::set<std::string> seen;
    for (const ix::FunctionDef* k : index_->Kernels()) {
      bool planned = false;
      for (const PlanKernel& pk : plan_.kernels) planned = planned || (pk.function == k->name && pk.entry == k->file->rel);
      if (!planned) continue;
      // Kernels of one #define share their text: edit it once.
      const ix::StreamToken& open = (*k->stream)[k->body_open];
      std::string key = open.source ? fmt::format("{}:{}", open.source->rel, open.tok->offset) : k->name;
      if (seen.insert(key).second) kernels_.push_back(k);
    }
  }

  void OpDefOutput() {
    OpDefOutputAfter(def_.outputs.back(), "this->");
    // Each per-SoC config's own output list (after its last output).
    std::map<std::string, const OpDefParam*> last_of;
    for (const OpDefParam& p : def_.config_outputs) last_of[p.receiver] = &p;
    for (const auto& [receiver, p] : last_of) {
      bool has = false;
      for (const OpDefParam& q : def_.config_outputs) has = has || (q.receiver == receiver && IsProfilingName(q.name));
      if (!has) OpDefOutputAfter(*p, receiver + ".");
    }
  }

  void OpDefOutputAfter(const OpDefParam& last, const std::string& receiver) {
    const SourceFile& f = *last.file;
    int line = f.lex.tokens[last.statement_end < f.lex.tokens.size() ? last.statement_end : last.token].line;
    int n = std::max(1, last.dtype_count);
    std::string dtypes, formats;
    for (int i = 0; i < (last.list_form ? 1 : n); ++i) {
      dtypes += (i ? ", " : "") + std::string("ge::DT_INT64");
      formats += (i ? ", " : "") + std::string("ge::FORMAT_ND");
    }
    std::string code = fmt::format("{}Output(\"{}\").ParamType(REQUIRED).{}({{{}}}).{}({{{}}})", receiver, kBuffer,
                                   last.list_form ? "DataTypeList" : "DataType", dtypes,
                                   last.list_form ? "FormatList" : "Format", formats);
    if (last.unknown_shape_format && !last.list_form) code += fmt::format(".UnknownShapeFormat({{{}}})", formats);
    code += ";";
    AddLine(f, line + 1, IndentOfLine(f, last.line), code, false, 0);
    Done(f, line + 1, fmt::format("OpDef{}: output \"{}\" (REQUIRED, DT_INT64) after \"{}\"",
                                  last.receiver.empty() ? "" : " config " + last.receiver, kBuffer, last.name));
  }

  // The function named `name` defined in the host files: {file, block}.
  std::pair<const SourceFile*, int> FindFunction(const std::string& name) {
    for (const SourceFile* f : host_) {
      const CodeStructure& cs = Structure(f);
      for (size_t b = 0; b < cs.blocks.size(); ++b)
        if (cs.blocks[b].kind == BlockKind::kFunction && cs.blocks[b].name == name) return {f, static_cast<int>(b)};
    }
    return {nullptr, -1};
  }

  const CodeStructure& Structure(const SourceFile* f) {
    auto& s = structures_[f];
    if (!s) s = std::make_unique<CodeStructure>(AnalyzeStructure(f->lex));
    return *s;
  }

  // Where `.InferShape(Fn)` registers Fn in a chain at namespace scope (IMPL_OP_INFERSHAPE(Op)...):
  // the file and the token range of Fn. {nullptr, 0, 0} when there is none.
  struct Registration {
    const SourceFile* file = nullptr;
    size_t first = 0, last = 0;  // Fn's tokens [first, last]
  };
  Registration RegistrationOf(const char* a) {
    for (const SourceFile* f : host_) {
      const auto& t = f->lex.tokens;
      const CodeStructure& cs = Structure(f);
      for (size_t i = 1; i + 3 < t.size(); ++i) {
        if (!Code(t[i]) || !t[i].Is(a) || !t[i - 1].Is(".") || !t[i + 1].Is("(")) continue;
        if (cs.EnclosingFunction(i) >= 0) continue;  // `this->SetInferShape(Fn)` in a constructor: not here
        size_t k = i + 2;
        while (k < t.size() && (t[k].kind == TokenKind::kIdentifier || t[k].Is("::"))) ++k;
        if (k == i + 2 || k >= t.size() || !t[k].Is(")") || t[k - 1].Is("::")) continue;
        return {f, i + 2, k - 1};
      }
    }
    return {};
  }

  // The infer shape Fn cannot take lines (defined outside the tree, Ops::Base::InferShape4Elewise,
  // or a one-line body): register a wrapper that calls it and then sets the profiling output's
  // shape. `.InferShape(Fn)` becomes `.InferShape(OptraceInferShapeWith<Fn>)`, two insertions
  // on its line; the wrapper template goes before the registration statement.
  bool WrapInferShape(size_t index) { return WrapInfer(index, true); }
  // The same for a dtype function without a final `return` line of its own:
  // `.InferDataType(OptraceInferDataTypeWith<Fn>)`, which sets the profiling output to DT_INT64.
  bool WrapInferDataType(size_t index) { return WrapInfer(index, false); }

  bool WrapInfer(size_t index, bool shape) {
    Registration r = RegistrationOf(shape ? "InferShape" : "InferDataType");
    if (!r.file) return false;
    const auto& t = r.file->lex.tokens;
    if (t[r.first].line != t[r.last].line || IsDirectiveLine(*r.file, t[r.first].line)) return false;
    // The statement's first line: back to the token after the previous ';', '{' or '}'.
    size_t start = r.first;
    while (start > 0 && !t[start - 1].Is(";") && !t[start - 1].Is("{") && !t[start - 1].Is("}")) --start;
    int line = t[start].line;
    std::string indent = IndentOfLine(*r.file, line);
    const char* context = shape ? "gert::InferShapeContext" : "gert::InferDataTypeContext";
    const char* wrapper = shape ? "OptraceInferShapeWith" : "OptraceInferDataTypeWith";
    AddLine(*r.file, line, indent, fmt::format("template <ge::graphStatus (*kInfer)({}*)>", context));
    AddLine(*r.file, line, indent, fmt::format("static ge::graphStatus {}({}* context) {{", wrapper, context));
    std::vector<std::string> body = {"  const ge::graphStatus optrace_status = kInfer(context);",
                                     "  if (optrace_status != ge::GRAPH_SUCCESS) { return optrace_status; }"};
    if (shape) {
      body.push_back(fmt::format("  gert::Shape* optrace_profiling_shape = context->GetOutputShape({});", index));
      body.push_back("  if (optrace_profiling_shape == nullptr) { return ge::GRAPH_FAILED; }");
      body.push_back("  optrace_profiling_shape->SetDimNum(1);");
      body.push_back(
          fmt::format("  optrace_profiling_shape->SetDim(0, {});  /* blocks x cores x PROF_SIZE_PER_CORE */", kWords));
    } else {
      body.push_back(fmt::format("  context->SetOutputDataType({}, ge::DT_INT64);", index));
    }
    body.push_back("  return ge::GRAPH_SUCCESS;");
    body.push_back("}");
    for (const std::string& code : body) AddLine(*r.file, line, indent, code);
    InsertAt(*r.file, t[r.first], std::string(wrapper) + "<", true);
    InsertAt(*r.file, t[r.last], ">");
    Done(*r.file, t[r.first].line,
         shape ? fmt::format("InferShape({}): wrapped, so output {} gets shape [{}]", JoinTokens(t, r.first, r.last + 1),
                             index, kWords)
               : fmt::format("InferDataType({}): wrapped, so output {} gets ge::DT_INT64",
                             JoinTokens(t, r.first, r.last + 1), index));
    return true;
  }

  // `.InferOutDataTypeSameWithFirstInput()` gives every output input 0's dtype. The registry enables
  // the rule registered last (OpImplRegisterV2's documented contract), so a following
  // `.InferDataType(OptraceInferDataTypeSameWithFirstInput)` that keeps outputs 0..index-1 on input 0's
  // dtype and sets the profiling output to DT_INT64 replaces it without deleting a line.
  bool ReplaceSameWithFirstInput(size_t index) {
    for (const SourceFile* f : host_) {
      const auto& t = f->lex.tokens;
      const CodeStructure& cs = Structure(f);
      for (size_t i = 1; i + 2 < t.size(); ++i) {
        if (!Code(t[i]) || !t[i].Is("InferOutDataTypeSameWithFirstInput") || !t[i - 1].Is(".") ||
            !t[i + 1].Is("(") || !t[i + 2].Is(")") || cs.EnclosingFunction(i) >= 0)
          continue;
        if (IsDirectiveLine(*f, t[i].line)) return false;
        size_t start = i;
        while (start > 0 && !t[start - 1].Is(";") && !t[start - 1].Is("{") && !t[start - 1].Is("}")) --start;
        int line = t[start].line;
        std::string indent = IndentOfLine(*f, line);
        const char* fn = "OptraceInferDataTypeSameWithFirstInput";
        std::vector<std::string> body = {
            fmt::format("static ge::graphStatus {}(gert::InferDataTypeContext* context) {{", fn),
            "  const ge::DataType optrace_first = context->GetInputDataType(0);",
            fmt::format("  for (size_t optrace_i = 0; optrace_i < {}; ++optrace_i) {{ "
                        "context->SetOutputDataType(optrace_i, optrace_first); }}",
                        index),
            fmt::format("  context->SetOutputDataType({}, ge::DT_INT64);", index),
            "  return ge::GRAPH_SUCCESS;", "}"};
        for (const std::string& code : body) AddLine(*f, line, indent, code);
        InsertAt(*f, t[i + 2], fmt::format(".InferDataType({})", fn));
        Done(*f, t[i].line,
             fmt::format("InferOutDataTypeSameWithFirstInput(): followed by InferDataType({}) (the last registered "
                         "rule is used), so outputs 0..{} keep input 0's dtype and output {} gets ge::DT_INT64",
                         fn, index > 0 ? index - 1 : 0, index));
        return true;
      }
    }
    return false;
  }

  bool HasCall(const char* name) {
    for (const SourceFile* f : host_)
      for (const Token& t : f->lex.tokens)
        if (Code(t) && t.Is(name)) return true;
    return false;
  }

  // Names registered as infer functions: `.InferShape(Fn)`, `SetInferShape(Fn)`, and the same for dtypes.
  std::string Registered(const char* a, const char* b) {
    for (const SourceFile* f : host_) {
      const auto& t = f->lex.tokens;
      for (size_t i = 0; i + 3 < t.size(); ++i) {
        if (!Code(t[i]) || !t[i + 1].Is("(")) continue;
        // `.InferShape(Fn)` (a registration chain) or `SetInferShape(Fn)`; not the definition itself.
        if (!(t[i].Is(b) || (t[i].Is(a) && i > 0 && t[i - 1].Is(".")))) continue;
        size_t k = i + 2;
        std::string name;
        bool plain = true;
        while (k < t.size() && !t[k].Is(")")) {
          if (t[k].kind == TokenKind::kIdentifier) name = std::string(t[k].text);
          else if (!t[k].Is("::")) plain = false;
          ++k;
        }
        if (plain && !name.empty()) return name;
      }
    }
    return "";
  }

  void Infer() {
    size_t index = def_.outputs.size();
    struct Want {
      const char* what;
      const char* reg_a;
      const char* reg_b;
    };
    for (Want w : {Want{"shape", "InferShape", "SetInferShape"}, Want{"dtype", "InferDataType", "SetInferDataType"}}) {
      std::string name = Registered(w.reg_a, w.reg_b);
      auto [f, b] = name.empty() ? std::pair<const SourceFile*, int>{nullptr, -1} : FindFunction(name);
      const bool shape = std::string(w.what) == "shape";
      if (!f && shape && !name.empty() && WrapInferShape(index)) continue;
      if (!f && !shape) {
        if (ReplaceSameWithFirstInput(index)) continue;
        Registration same = RegistrationOf("InferOutDataTypeSameWithFirstInput");
        if (same.file != nullptr || HasCall("InferOutDataTypeSameWithFirstInput")) {
          Manual(def_.file->rel,
                 fmt::format("InferOutDataTypeSameWithFirstInput() gives output {} (\"{}\") the first input's dtype: "
                             "replace it by an InferDataType function that sets outputs 0..{} from input 0 and "
                             "output {} to ge::DT_INT64",
                             index, kBuffer, index > 0 ? index - 1 : 0, index));
          continue;
        }
      }
      if (!f) {
        Manual(def_.file->rel, fmt::format("no infer {} function registered in the operator tree; where the "
                                           "operator's outputs are inferred, set output {} (\"{}\") to {}",
                                           w.what, index, kBuffer,
                                           std::string(w.what) == "shape"
                                               ? fmt::format("shape [{}] (int64 words)", kWords)
                                               : std::string("ge::DT_INT64")));
        continue;
      }
      const CodeStructure& cs = Structure(f);
      const Block& fn = cs.blocks[static_cast<size_t>(b)];
      const auto& t = f->lex.tokens;
      // The context parameter: the last identifier of the first parameter; gert contexts only.
      std::string ctx, head = JoinTokens(t, fn.head_begin, fn.head_end);
      for (size_t k = fn.head_begin; k < fn.head_end && !t[k].Is(","); ++k)
        if (t[k].kind == TokenKind::kIdentifier) ctx = std::string(t[k].text);
      // gert's contexts, qualified or after `using namespace gert;` (the matmul family's infer files).
      const bool gert = head.find("gert::") != std::string::npos || head.find("InferShapeContext") != std::string::npos ||
                        head.find("InferDataTypeContext") != std::string::npos;
      if (!gert || ctx.empty()) {
        Manual(fmt::format("{}:{}", f->rel, fn.line),
               fmt::format("{} is not a gert infer function; set output {} (\"{}\") there by hand", name, index, kBuffer));
        continue;
      }
      // Before the last return of the body.
      size_t ret = t.size();
      for (size_t k = fn.open; k < fn.close; ++k)
        if (Code(t[k]) && t[k].Is("return") && cs.InnermostBlock(k) == b) ret = k;
      if (ret >= t.size() || (ret > 0 && t[ret - 1].line == t[ret].line)) {
        if (shape ? WrapInferShape(index) : WrapInferDataType(index)) continue;
        Manual(fmt::format("{}:{}", f->rel, fn.line),
               fmt::format("{} has no final `return` on a line of its own; set output {} there by hand", name, index));
        continue;
      }
      std::string indent = IndentOfLine(*f, t[ret].line);
      int line = t[ret].line;
      if (std::string(w.what) == "shape") {
        AddLine(*f, line, indent, fmt::format("gert::Shape* optrace_profiling_shape = {}->GetOutputShape({});", ctx, index));
        AddLine(*f, line, indent, "if (optrace_profiling_shape == nullptr) { return ge::GRAPH_FAILED; }");
        AddLine(*f, line, indent, "optrace_profiling_shape->SetDimNum(1);");
        AddLine(*f, line, indent,
                fmt::format("optrace_profiling_shape->SetDim(0, {});  /* blocks x cores x PROF_SIZE_PER_CORE */",
                            kWords));
        Done(*f, line, fmt::format("{}: output {} shape [{}]", name, index, kWords));
      } else {
        AddLine(*f, line, indent, fmt::format("{}->SetOutputDataType({}, ge::DT_INT64);", ctx, index));
        Done(*f, line, fmt::format("{}: output {} dtype DT_INT64", name, index));
      }
    }
  }

  // Token ranges of a function's parameters in its stream.
  static std::vector<std::pair<size_t, size_t>> ParamRanges(const ix::FunctionDef& k) {
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

  // The file token behind a stream token, or null (made by ## pasting).
  static std::pair<const SourceFile*, const Token*> FileToken(const ix::StreamToken& st) {
    if (!st.source) return {nullptr, nullptr};
    return {st.source, &st.source->lex.tokens[st.index]};
  }

  void Kernel(const ix::FunctionDef& k) {
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
    }
    if (after == 0 || params.empty()) {
      Manual(where, fmt::format("cannot find where the outputs of {} end; add `GM_ADDR {}` after them by hand", k.name,
                                kBuffer));
      return;
    }
    auto [pf, ptok] = FileToken(s[params[after - 1].second - 1]);
    if (!pf) {
      Manual(where, fmt::format("the parameters of {} come from macro pasting; add `GM_ADDR {}` by hand", k.name, kBuffer));
      return;
    }
    InsertAt(*pf, *ptok, fmt::format(", GM_ADDR {}", kBuffer));
    Done(*pf, ptok->line, fmt::format("{}: GM_ADDR {} after \"{}\"", k.name, kBuffer, ptok->text));
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
    Done(*of, t[first].line, fmt::format("{}: OPTRACE_KERNEL_BEGIN() / OPTRACE_KERNEL_END({}) (buffer set-up and "
                                         "write-back)",
                                         k.name, kBuffer));
    InitCall(k, params, after);
  }

  // `op.Init(x, ..., y, workspace, tiling)` in the entry: profiling after the last output there and
  // in Init's definition, when there is exactly one such call and one definition.
  void InitCall(const ix::FunctionDef& k, const std::vector<std::pair<size_t, size_t>>& params, size_t after) {
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
    Done(*df, dtok->line, fmt::format("{}: GM_ADDR {} after \"{}\" (the entry passes it too)", init.DisplayName(),
                                      kBuffer, dtok->text));
  }

  // The function block around token i of f, -1 if none.
  int Enclosing(const SourceFile* f, size_t i) {
    const CodeStructure& cs = Structure(f);
    for (int b = cs.InnermostBlock(i); b >= 0; b = cs.blocks[static_cast<size_t>(b)].parent)
      if (cs.blocks[static_cast<size_t>(b)].kind == BlockKind::kFunction) return b;
    return -1;
  }

  std::vector<std::pair<size_t, size_t>> Args(const std::vector<Token>& t, size_t open) {
    size_t close = MatchingClose(t, open);
    std::vector<std::pair<size_t, size_t>> args;
    if (close >= t.size()) return args;
    int depth = 0;
    size_t start = open + 1;
    for (size_t i = open + 1; i < close; ++i) {
      if (!Code(t[i])) continue;
      if (t[i].Is("(") || t[i].Is("[") || t[i].Is("{")) ++depth;
      if (t[i].Is(")") || t[i].Is("]") || t[i].Is("}")) --depth;
      if (depth == 0 && t[i].Is(",")) {
        args.emplace_back(start, i);
        start = i + 1;
      }
    }
    if (close > open + 1) args.emplace_back(start, close);
    return args;
  }

  // The torch adapter: EXEC_NPU_CMD(aclnnOp, ...) anywhere outside op_kernel/ and op_host/.
  void Adapters() {
    bool any = false;
    for (const SourceFile* f : others_) {
      const auto& t = f->lex.tokens;
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (!Code(t[i]) || !t[i + 1].Is("(")) continue;
        bool exec = t[i].text.rfind("EXEC_NPU_CMD", 0) == 0;
        bool direct = t[i].text.rfind("aclnn", 0) == 0 && t[i].text.find("GetWorkspaceSize") != std::string_view::npos &&
                      i > 0 && !(t[i - 1].kind == TokenKind::kIdentifier && !t[i - 1].Is("return")) && !t[i - 1].Is("*");
        if (!exec && !direct) continue;
        int fn = Enclosing(f, i);
        if (fn < 0) continue;
        any = true;
        if (direct) {
          Manual(fmt::format("{}:{}", f->rel, t[i].line),
                 fmt::format("{} is called directly: create an aclTensor for a [{}] int64 profiling tensor and pass it "
                             "after the outputs (before the workspace size), then return the tensor last",
                             t[i].text, kWords));
          continue;
        }
        Adapter(*f, i, fn);
      }
    }
    if (!any && !def_.outputs.empty())
      Manual(def_.file->rel, fmt::format("no torch adapter (EXEC_NPU_CMD) in the operator tree; where the operator is "
                                         "called, allocate a [{}] int64 tensor, pass it after the outputs and "
                                         "return it last",
                                         kWords));
  }

  void Adapter(const SourceFile& f, size_t call, int fn) {
    const auto& t = f.lex.tokens;
    const CodeStructure& cs = Structure(&f);
    const Block& b = cs.blocks[static_cast<size_t>(fn)];
    std::string where = fmt::format("{}:{}", f.rel, t[call].line);
    std::vector<std::pair<size_t, size_t>> args = Args(t, call + 1);
    size_t close = MatchingClose(t, call + 1);
    if (args.size() < 2 || close >= t.size()) return;
    std::string tensor;
    for (size_t a = 1; a < args.size() && tensor.empty(); ++a)
      if (args[a].second == args[a].first + 1 && t[args[a].first].kind == TokenKind::kIdentifier)
        tensor = std::string(t[args[a].first].text);
    // The statement starts a line of its own.
    size_t stmt = call;
    while (stmt > b.open + 1 && !t[stmt - 1].Is(";") && !t[stmt - 1].Is("{") && !t[stmt - 1].Is("}")) --stmt;
    if (tensor.empty() || (stmt > 0 && t[stmt - 1].line == t[stmt].line)) {
      Manual(where, fmt::format("allocate a [{}] int64 tensor, pass it last to {} and return it last", kWords,
                                t[call].text));
      return;
    }
    // Return statements of the function, after the call.
    std::vector<size_t> returns;
    for (size_t k = call; k < b.close; ++k)
      if (Code(t[k]) && t[k].Is("return") && Enclosing(&f, k) == fn) returns.push_back(k);
    std::string ret_type = JoinTokens(t, ReturnTypeBegin(t, b), NameToken(t, b));
    bool void_fn = ret_type.find("void") != std::string::npos && ret_type.find('*') == std::string::npos;
    if (void_fn || returns.empty()) {
      Manual(where, fmt::format("the adapter returns nothing: allocate a [{}] int64 tensor, pass it last to {} and "
                                "make the function return it (with the op schema)",
                                kWords, t[call].text));
      return;
    }
    // Return type: std::tuple<...> gets one more at::Tensor; a single at::Tensor becomes a pair.
    size_t rt_b = ReturnTypeBegin(t, b), rt_e = NameToken(t, b);
    bool tuple = false, single = false;
    for (size_t k = rt_b; k < rt_e; ++k) {
      if (t[k].Is("tuple")) tuple = true;
      if (t[k].Is("Tensor")) single = true;
    }
    if (tuple) {
      size_t gt = rt_e;
      while (gt > rt_b && !t[gt - 1].Is(">")) --gt;
      if (gt == rt_b) return Manual(where, "cannot read the adapter's return type; return the profiling tensor last");
      InsertAt(f, t[gt - 1], ", at::Tensor", true);
    } else if (single && !ret_type.empty() && ret_type.find("auto") == std::string::npos) {
      InsertAt(f, t[rt_b], "std::tuple<", true);
      InsertAt(f, t[rt_e - 1], ", at::Tensor>");
    } else if (ret_type.find("auto") == std::string::npos) {
      return Manual(where, fmt::format("the adapter returns {}: return the profiling tensor last by hand", ret_type));
    }
    for (size_t r : returns) {
      size_t end = r;
      while (end < b.close && !t[end].Is(";")) ++end;
      // The last ')' or '}' of the returned expression closes the tuple.
      size_t last = end;
      while (last > r && !t[last - 1].Is(")") && !t[last - 1].Is("}")) --last;
      bool is_tuple = false;
      for (size_t k = r; k < end; ++k)
        if (t[k].Is("make_tuple") || t[k].Is("tuple") || t[k].Is("forward_as_tuple") || t[k].Is("{")) is_tuple = true;
      if (is_tuple && last > r) {
        InsertAt(f, t[last - 1], fmt::format(", {}", kBuffer), true);
        // std::tuple<A, B>(...): one more template argument.
        for (size_t k = r; k < end; ++k)
          if (t[k].Is("tuple") && k + 1 < end && t[k + 1].Is("<")) {
            size_t gt = MatchingClose(t, k + 1);
            if (gt < end) InsertAt(f, t[gt], ", at::Tensor", true);
          }
      } else if (single && end > r + 1) {
        InsertAt(f, t[r + 1], "std::make_tuple(", true);
        InsertAt(f, t[end - 1], fmt::format(", {})", kBuffer));
      }
    }
    AddLine(f, t[stmt].line, IndentOfLine(f, t[stmt].line),
            fmt::format("at::Tensor {} = at::empty({{{}}}, {}.options().dtype(at::kLong));", kBuffer, kWords, tensor));
    InsertAt(f, t[close], fmt::format(", {}", kBuffer), true);
    Done(f, t[call].line, fmt::format("adapter {}: allocates {}, passes it last to {} and returns it last", b.name,
                                      kBuffer, t[call].text));
    Manual(where, fmt::format("{} now returns one more tensor: add `Tensor` to the returns of its op schema "
                              "(TORCH_LIBRARY registration) and unpack it in callers",
                              b.name));
  }

  static size_t NameToken(const std::vector<Token>& t, const Block& b) {
    for (size_t i = 0; i < b.open; ++i)
      if (t[i].line == b.line && t[i].column == b.column) return i;
    return b.head_begin > 0 ? b.head_begin - 1 : 0;
  }

  static size_t ReturnTypeBegin(const std::vector<Token>& t, const Block& b) {
    size_t name = NameToken(t, b);
    size_t k = name;
    while (k > 0) {
      const Token& x = t[k - 1];
      if (x.Is(";") || x.Is("}") || x.Is("{") || x.Is(":") || x.in_directive || !x.active) break;
      --k;
    }
    // Skip specifiers and qualifiers of the name (ns::name).
    while (k < name && (t[k].Is("inline") || t[k].Is("static") || t[k].Is("HOST_API"))) ++k;
    size_t e = name;
    while (e > k + 1 && t[e - 1].Is("::")) e -= 2;
    return k;
  }

  // Hand-written aclnn: aclnnXxxGetWorkspaceSize(..., outputs, [profiling], uint64_t *workspaceSize, ...).
  void Aclnn() {
    // op_host/op_api/aclnn_*.cpp, and the op_api/ folder at the operator root (ops-nn, ops-transformer).
    std::vector<const SourceFile*> files = host_;
    files.insert(files.end(), others_.begin(), others_.end());
    for (const SourceFile* f : files) {
      std::string name = fs::path(f->rel).filename().string();
      if (name.rfind("aclnn_", 0) != 0) continue;
      const auto& t = f->lex.tokens;
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (!Code(t[i]) || t[i].kind != TokenKind::kIdentifier || !t[i + 1].Is("(")) continue;
        std::string_view n = t[i].text;
        if (n.rfind("aclnn", 0) != 0 || !n.ends_with("GetWorkspaceSize")) continue;  // not ...Common helpers
        bool inner = n.rfind("aclnnInner", 0) == 0;
        std::vector<std::pair<size_t, size_t>> args = Args(t, i + 1);
        int ws = -1;
        for (size_t a = 0; a < args.size(); ++a) {
          std::string text = NormalizeName(JoinTokens(t, args[a].first, args[a].second));
          if (text.find("workspacesize") != std::string::npos) ws = static_cast<int>(a);
          if (IsProfilingName(text)) ws = -2;
        }
        if (ws == -2 || ws <= 0) continue;
        const auto& prev = args[static_cast<size_t>(ws - 1)];
        bool declaration = i > 0 && (t[i - 1].kind == TokenKind::kIdentifier || t[i - 1].Is("*")) &&
                           !t[i - 1].Is("return");
        if (declaration) {
          InsertAt(*f, t[prev.second - 1], ", const aclTensor *profilingDataOut");
          Done(*f, t[i].line, fmt::format("{}: const aclTensor *profilingDataOut after the outputs", n));
          // Its definition must pass it on.
          size_t body = MatchingClose(t, i + 1);
          while (body < t.size() && !t[body].Is("{") && !t[body].Is(";")) ++body;
          if (body < t.size() && t[body].Is("{")) {
            size_t end = MatchingClose(t, body);
            bool forwards = false;
            for (size_t k = body; k < end && k < t.size(); ++k)
              if (Code(t[k]) && t[k].text.rfind("aclnnInner", 0) == 0) forwards = true;
            if (!forwards)
              Manual(fmt::format("{}:{}", f->rel, t[i].line),
                     fmt::format("{} does not forward to aclnnInner*: pass profilingDataOut on to the op (as its last "
                                 "output, e.g. in OP_OUTPUT) by hand",
                                 n));
          }
        } else if (inner) {
          InsertAt(*f, t[prev.second - 1], ", profilingDataOut");
          Done(*f, t[i].line, fmt::format("{}: profilingDataOut passed after the outputs", n));
        }
      }
    }
  }

  // Direct launches of a kernel without an OpDef: `name<<<...>>>(args)`, ACLRT_LAUNCH_KERNEL(name)(...),
  // EXEC_KERNEL_CMD(name, ...).
  void Launchers() {
    std::set<std::string> names;
    for (const ix::FunctionDef* k : kernels_) names.insert(k->name);
    for (const PlanKernel& k : plan_.kernels) names.insert(k.function);
    std::set<std::string> changed_fns;
    bool any = false;
    for (const SourceFile* f : set_.Files()) {
      const auto& t = f->lex.tokens;
      for (size_t i = 0; i + 3 < t.size(); ++i) {
        if (!Code(t[i]) || t[i].kind != TokenKind::kIdentifier) continue;
        size_t open = t.size();
        std::string kind;
        if (names.count(std::string(t[i].text)) && t[i + 1].Is("<<") && t[i + 2].Is("<")) {
          for (size_t k = i + 3; k + 3 < t.size(); ++k)
            if (t[k].Is(">") && t[k + 1].Is(">") && t[k + 2].Is(">") && t[k + 3].Is("(")) {
              open = k + 3;
              break;
            }
          kind = "<<<>>>";
        } else if (t[i].Is("ACLRT_LAUNCH_KERNEL") && t[i + 1].Is("(") && names.count(std::string(t[i + 2].text))) {
          size_t c = MatchingClose(t, i + 1);
          if (c + 1 < t.size() && t[c + 1].Is("(")) open = c + 1;
          kind = "ACLRT_LAUNCH_KERNEL";
        } else if (t[i].Is("EXEC_KERNEL_CMD") && t[i + 1].Is("(") && names.count(std::string(t[i + 2].text))) {
          open = i + 1;
          kind = "EXEC_KERNEL_CMD";
        }
        if (open >= t.size()) continue;
        any = true;
        size_t close = MatchingClose(t, open);
        int fn = Enclosing(f, i);
        if (close >= t.size() || fn < 0) continue;
        const CodeStructure& cs = Structure(f);
        const Block& b = cs.blocks[static_cast<size_t>(fn)];
        std::string where = fmt::format("{}:{}", f->rel, t[i].line);
        if (kind == "<<<>>>") {
          InsertAt(*f, t[close], fmt::format(", {}", kBuffer), true);
          if (changed_fns.insert(f->rel + ":" + std::to_string(b.line)).second) {
            size_t pclose = b.head_end;
            bool empty = b.head_end <= b.head_begin;
            if (pclose < t.size()) InsertAt(*f, t[pclose], empty ? fmt::format("void* {}", kBuffer)
                                                                  : fmt::format(", void* {}", kBuffer), true);
            Manual(where, fmt::format("{} now takes the profiling buffer last: callers pass a device buffer of [{}] "
                                      "int64 words (a torch.int64 tensor's data_ptr()) and return it; update its "
                                      "declaration where it is declared",
                                      b.name, kWords));
          }
          Done(*f, t[i].line, fmt::format("{} launch of {}: {} passed last", kind, t[i].text, kBuffer));
          continue;
        }
        // Host functions with tensors: allocate next to the launch.
        std::string tensor;
        for (size_t k = b.head_begin; k + 1 < b.head_end; ++k)
          if (t[k].Is("Tensor") && tensor.empty()) {
            size_t n = k + 1;
            while (n < b.head_end && (t[n].Is("&") || t[n].Is("const") || t[n].Is("*"))) ++n;
            if (n < b.head_end && t[n].kind == TokenKind::kIdentifier) tensor = std::string(t[n].text);
          }
        // The top-level statement of the function holding the launch (a lambda handler's statement).
        size_t stmt = i;
        int depth = 0;
        for (size_t k = i; k > b.open; --k) {
          if (t[k].Is("}") || t[k].Is(")")) ++depth;
          if ((t[k].Is("{") || t[k].Is("(")) && depth > 0) --depth;
          else if ((t[k].Is("{") || t[k].Is("(")) && depth == 0 && k != b.open) {
            stmt = k;
            continue;
          }
          stmt = k;
        }
        size_t s0 = stmt;
        while (s0 > b.open + 1 && !t[s0 - 1].Is(";") && !t[s0 - 1].Is("{") && !t[s0 - 1].Is("}")) --s0;
        bool capture_ok = true;
        for (size_t k = s0; k < i; ++k)
          if (t[k].Is("[") && k + 1 < i && !t[k + 1].Is("=") && !t[k + 1].Is("&") && !t[k + 1].Is("]")) capture_ok = false;
        if (tensor.empty() || !capture_ok || (s0 > 0 && t[s0 - 1].line == t[s0].line)) {
          Manual(where, fmt::format("allocate a [{}] int64 tensor in {}, pass it last to {} and return it", kWords,
                                    b.name, kind));
          continue;
        }
        AddLine(*f, t[s0].line, IndentOfLine(*f, t[s0].line),
                fmt::format("at::Tensor {} = at::empty({{{}}}, {}.options().dtype(at::kLong));", kBuffer, kWords, tensor));
        InsertAt(*f, t[close], kind == "ACLRT_LAUNCH_KERNEL" ? fmt::format(", {}.data_ptr()", kBuffer)
                                                             : fmt::format(", {}", kBuffer),
                 true);
        Done(*f, t[i].line, fmt::format("{} of {}: allocates {} and passes it last", kind, t[i + 2].text, kBuffer));
        Manual(where, fmt::format("return {} from {} (and add it to the op schema) so the caller can save it", kBuffer,
                                  b.name));
      }
    }
    if (!any) {
      for (const ix::FunctionDef* k : kernels_)
        Manual(fmt::format("{}:{}", k->file->rel, k->line),
               fmt::format("{} is launched from outside the operator tree: pass a device buffer of [{}] int64 words "
                           "as its last argument and save it after a device synchronize",
                           k->name, kWords));
    }
  }

  // Python drivers that call the operator: unpacking, synchronize and save are the user's.
  void Samples() {
    std::error_code ec;
    for (const char* dir : {"examples", "tests", "test"}) {
      fs::path d = plan_.op_dir / dir;
      if (!fs::is_directory(d, ec)) continue;
      for (const auto& e : fs::recursive_directory_iterator(d, ec)) {
        if (!e.is_regular_file(ec) || e.path().extension() != ".py") continue;
        Manual(set_.Relative(e.path()),
               fmt::format("unpack the extra output (`*outs, {} = op(...)`), call torch_npu.npu.synchronize() and "
                           "save_profiling_data({}, rank, dir) (PYTHONPATH=optrace/python)",
                           kBuffer, kBuffer));
      }
    }
  }

  const Plan& plan_;
  const SourceSet& set_;
  ChainPlan out_;
  std::vector<const SourceFile*> host_, others_;
  OpDef def_;
  std::unique_ptr<ix::CodeIndex> index_;
  std::vector<const ix::FunctionDef*> kernels_;
  std::map<const SourceFile*, std::unique_ptr<CodeStructure>> structures_;
};

}  // namespace

ChainPlan PlanProfilingChain(const Plan& plan, const SourceSet& sources) { return ChainBuilder(plan, sources).Run(); }

}  // namespace optrace::source
