// Profiling chain, the graph link: the OpDef's extra int64 output and its shape and dtype inference.
#include "source/plan/profiling_chain_builder.h"

namespace optrace::source {

namespace chain_steps {

void ChainBuilder::OpDefOutput() {
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

void ChainBuilder::OpDefOutputAfter(const OpDefParam& last, const std::string& receiver) {
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
  Done(f, line + 1,
       fmt::format("OpDef{}: output \"{}\" (REQUIRED, DT_INT64) after \"{}\"",
                   last.receiver.empty() ? "" : " config " + last.receiver, kBuffer, last.name));
}

ChainBuilder::Registration ChainBuilder::RegistrationOf(const char* a) {
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

bool ChainBuilder::WrapInferShape(size_t index) { return WrapInfer(index, true); }

bool ChainBuilder::WrapInferDataType(size_t index) { return WrapInfer(index, false); }

bool ChainBuilder::WrapInfer(size_t index, bool shape) {
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

bool ChainBuilder::ReplaceSameWithFirstInput(size_t index) {
  for (const SourceFile* f : host_) {
    const auto& t = f->lex.tokens;
    const CodeStructure& cs = Structure(f);
    for (size_t i = 1; i + 2 < t.size(); ++i) {
      if (!Code(t[i]) || !t[i].Is("InferOutDataTypeSameWithFirstInput") || !t[i - 1].Is(".") || !t[i + 1].Is("(") ||
          !t[i + 2].Is(")") || cs.EnclosingFunction(i) >= 0)
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
          "  return ge::GRAPH_SUCCESS;",
          "}"};
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

bool ChainBuilder::HasCall(const char* name) {
  for (const SourceFile* f : host_)
    for (const Token& t : f->lex.tokens)
      if (Code(t) && t.Is(name)) return true;
  return false;
}

std::string ChainBuilder::Registered(const char* a, const char* b) {
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
        if (t[k].kind == TokenKind::kIdentifier)
          name = std::string(t[k].text);
        else if (!t[k].Is("::"))
          plain = false;
        ++k;
      }
      if (plain && !name.empty()) return name;
    }
  }
  return "";
}

void ChainBuilder::Infer() {
  size_t index = def_.outputs.size();
  // A DYNAMIC output (split_v's, unpack's `y`: one tensor per piece) is expanded in the infer
  // context, so the profiling output is not at `index` but last of however many there are at run
  // time; writing GetOutputShape(index) would reshape one of y's tensors. Left as a hand step.
  for (const OpDefParam& o : def_.outputs) {
    if (!o.dynamic) continue;
    Manual(def_.file->rel,
           fmt::format("output \"{}\" is DYNAMIC, so \"{}\" is the last of a run-time number of outputs in the infer "
                       "functions: set its shape [{}] and ge::DT_INT64 there at index "
                       "context->GetComputeNodeOutputNum() - 1 (not {})",
                       o.name, kBuffer, kWords, index));
    return;
  }
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
      Manual(def_.file->rel,
             fmt::format("no infer {} function registered in the operator tree; where the "
                         "operator's outputs are inferred, set output {} (\"{}\") to {}",
                         w.what, index, kBuffer,
                         std::string(w.what) == "shape" ? fmt::format("shape [{}] (int64 words)", kWords)
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
      Manual(
          fmt::format("{}:{}", f->rel, fn.line),
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
      AddLine(*f, line, indent,
              fmt::format("gert::Shape* optrace_profiling_shape = {}->GetOutputShape({});", ctx, index));
      AddLine(*f, line, indent, "if (optrace_profiling_shape == nullptr) { return ge::GRAPH_FAILED; }");
      AddLine(*f, line, indent, "optrace_profiling_shape->SetDimNum(1);");
      AddLine(
          *f, line, indent,
          fmt::format("optrace_profiling_shape->SetDim(0, {});  /* blocks x cores x PROF_SIZE_PER_CORE */", kWords));
      Done(*f, line, fmt::format("{}: output {} shape [{}]", name, index, kWords));
    } else {
      AddLine(*f, line, indent, fmt::format("{}->SetOutputDataType({}, ge::DT_INT64);", ctx, index));
      Done(*f, line, fmt::format("{}: output {} dtype DT_INT64", name, index));
    }
  }
}

}  // namespace chain_steps
}  // namespace optrace::source
