// Binding rules, the graph's infer functions: the profiling output gets a shape and an int64 dtype.
#include "source/lint/binding_checker.h"

namespace optrace::source {

namespace binding_steps {

bool BindingChecker::InferRegistered() const {
  for (const SourceFile* f : host_)
    for (const Token& t : f->lex.tokens)
      if (t.active && !t.in_directive &&
          (t.Is("IMPL_OP_INFERSHAPE") || t.Is("SetInferShape") || t.Is("SetInferDataType") ||
           t.Is("IMPLEMT_COMMON_INFERFUNC") || t.Is("IMPLEMT_INFERFUNC") || t.Is("INFER_FUNC_REG") ||
           t.Is("COMMON_INFER_FUNC_REG") || t.Is("IMPL_OP") || t.Is("InferShape")))
        return true;
  return false;
}

std::vector<BindingChecker::InferRegistration> BindingChecker::InferRegistrations() const {
  std::vector<InferRegistration> out;
  for (const SourceFile* f : host_) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i + 3 < t.size(); ++i) {
      if (!t[i].active || t[i].in_directive || !(t[i].Is("IMPL_OP_INFERSHAPE") || t[i].Is("IMPL_OP")) ||
          !t[i + 1].Is("(") || t[i + 2].kind != TokenKind::kIdentifier || !t[i + 3].Is(")"))
        continue;
      // The chain `.InferShape(Fn).InferDataType(ns::Fn2)...` up to its `;`: the last name in
      // each call's parentheses is the function.
      for (size_t k = i + 4; k + 2 < t.size() && !t[k].Is(";") && !t[k].Is("{") && !t[k].Is("}"); ++k) {
        if (!t[k].Is(".") || t[k + 1].kind != TokenKind::kIdentifier || !t[k + 2].Is("(")) continue;
        size_t close = k + 3, name = 0;
        while (close < t.size() && !t[close].Is(")") && !t[close].Is(";")) {
          if (t[close].kind == TokenKind::kIdentifier) name = close;
          ++close;
        }
        if (name == 0 || close >= t.size() || !t[close].Is(")")) continue;
        out.push_back({std::string(t[i + 2].text), std::string(t[k + 1].text), std::string(t[name].text), f,
                       t[k + 1].line, t[k + 1].column});
      }
    }
  }
  return out;
}

std::set<std::string> BindingChecker::OtherOperatorsInferFunctions(const std::vector<InferRegistration>& regs) const {
  std::map<std::string, std::set<std::string>> ops_of;  // function -> operators it is registered for
  for (const InferRegistration& r : regs) ops_of[r.function].insert(r.op);
  std::set<std::string> out;
  // Only when the tree registers this operator's own functions too: a registration under another
  // name than the OpDef class would otherwise make every function someone else's.
  bool registers_this = false;
  for (const InferRegistration& r : regs) registers_this = registers_this || r.op == def_.class_name;
  if (def_.class_name.empty() || !registers_this) return out;
  for (const auto& [fn, ops] : ops_of)
    if (!ops.count(def_.class_name)) out.insert(fn);
  return out;
}

bool BindingChecker::DefinedInTree(const std::string& function) {
  for (const SourceFile* f : host_)
    for (const Block& b : ctx_.Structure(f).blocks)
      if (b.kind == BlockKind::kFunction && b.name == function) return true;
  return false;
}

BindingChecker::DtypeSource BindingChecker::DtypeInference(const Token** same_first) const {
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

void BindingChecker::CheckInfer() {
  if (!InferRegistered()) {
    const Param& prof = def_.outputs[static_cast<size_t>(def_.profiling)];
    ctx_.Report(prof.file, prof.line, prof.column, "binding-unchecked",
                fmt::format("no infer shape/dtype function is registered in the operator tree, so the shape and "
                            "dtype of output {} (\"{}\") cannot be checked here; where the operator's outputs are "
                            "inferred, set shape [128 * 3 * PROF_SIZE_PER_CORE] and ge::DT_INT64 for it",
                            def_.profiling, prof.name));
    return;
  }
  // A DYNAMIC output before the profiling output (ops-math dynamic_partition's `y`, one tensor per
  // partition) makes the profiling output's index in the infer context a run-time number: which
  // GetOutputShape / SetOutputDataType call sets it cannot be read statically.
  for (int i = 0; i < def_.profiling; ++i) {
    const Param& o = def_.outputs[static_cast<size_t>(i)];
    if (!o.dynamic) continue;
    const Param& prof = def_.outputs[static_cast<size_t>(def_.profiling)];
    ctx_.Report(prof.file, prof.line, prof.column, "binding-unchecked",
                fmt::format("output {} (\"{}\") before \"{}\" is DYNAMIC (a list of tensors), so the profiling output's "
                            "index in the infer functions is only known at run time and cannot be checked here; see "
                            "that they set shape [128 * 3 * PROF_SIZE_PER_CORE] and ge::DT_INT64 for the output after "
                            "that list",
                            i, o.name, prof.name));
    return;
  }
  auto constants = Constants(host_);
  long want = def_.profiling;
  bool shape = false, dtype = false, any_infer = false;
  // Where to report: the InferShape / InferDataType definitions, preferring an *infer* file.
  // A function the OpDef registers (`.InferDataType(InferDtypeForX)`) wins over one whose name
  // merely says so.
  struct Where {
    const SourceFile* file = nullptr;
    int line = 1, column = 1;
    bool registered = false;
  } shape_fn, dtype_fn;
  auto note = [](Where& w, const SourceFile* f, const Token& tok, bool registered) {
    bool better = w.file == nullptr || (registered && !w.registered) ||
                  (registered == w.registered && w.file != f && f->rel.find("infer") != std::string::npos &&
                   w.file->rel.find("infer") == std::string::npos);
    if (better) w = {f, tok.line, tok.column, registered};
  };
  const std::vector<InferRegistration> regs = InferRegistrations();
  const std::set<std::string> others = OtherOperatorsInferFunctions(regs);
  std::set<std::string> registered_shape, registered_dtype;
  for (const InferRegistration& r : regs) {
    if (others.count(r.function)) continue;
    if (r.method == "InferShape") registered_shape.insert(r.function);
    if (r.method == "InferDataType") registered_dtype.insert(r.function);
  }
  for (const SourceFile* f : host_) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (!t[i].active || !t[i + 1].Is("(")) continue;
      bool get_shape = t[i].Is("GetOutputShape");
      bool set_dtype = t[i].Is("SetOutputDataType");
      if ((get_shape || set_dtype) && !others.empty()) {
        const CodeStructure& cs = ctx_.Structure(f);
        int fn = cs.EnclosingFunction(i);
        if (fn >= 0 && others.count(cs.blocks[static_cast<size_t>(fn)].name)) continue;  // another operator's
      }
      bool defines = i > 0 && t[i - 1].kind == TokenKind::kIdentifier && !t[i - 1].Is("return");
      if (defines) {
        const std::string name(t[i].text);
        if (registered_shape.count(name)) note(shape_fn, f, t[i], true);
        else if (name.find("InferShape") != std::string::npos) note(shape_fn, f, t[i], false);
        if (registered_dtype.count(name)) note(dtype_fn, f, t[i], true);
        else if (name.find("InferDataType") != std::string::npos) note(dtype_fn, f, t[i], false);
      }
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
  // This operator's infer function of a kind registered from outside the tree (conv3d_transpose_v2:
  // `.InferDataType(Ops::NN::Conv::InferDataTypeForConvTransposeV2)`, defined in a folder shared by
  // the conv operators): what it sets cannot be seen here.
  for (bool* found : {&shape, &dtype}) {
    if (*found) continue;
    const char* method = found == &shape ? "InferShape" : "InferDataType";
    for (const InferRegistration& r : regs) {
      if (r.op != def_.class_name || r.method != method || DefinedInTree(r.function)) continue;
      ctx_.Report(r.file, r.line, r.column, "binding-unchecked",
                  fmt::format("the {} function registered for {} ({}) is not in the operator tree, so whether it "
                              "sets output {} (\"{}\") to {} cannot be checked here; see that it does",
                              found == &shape ? "infer shape" : "infer dtype", r.op, r.function, def_.profiling, prof.name,
                              found == &shape ? "shape [128 * 3 * PROF_SIZE_PER_CORE]" : "ge::DT_INT64"));
      *found = true;
      break;
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

}  // namespace binding_steps
}  // namespace optrace::source
