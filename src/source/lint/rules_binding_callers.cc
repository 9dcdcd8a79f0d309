// Binding rules, the callers: pybind adapters (EXEC_NPU_CMD, the returned tuple), examples and the
// hand-written aclnn layer.
#include "source/lint/binding_checker.h"

namespace optrace::source {

namespace binding_steps {

void BindingChecker::CheckPybind() {
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

void BindingChecker::CheckExamples() {
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

void BindingChecker::CheckOutputArgs(const SourceFile* f, size_t call,
                                     const std::vector<std::pair<size_t, size_t>>& data) {
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
  } else if (static_cast<size_t>(prof_pos) + 1 == data.size()) {
    NullThroughVariable(f, call, data.back());
  } else {
    auto r = data[static_cast<size_t>(prof_pos)];
    ctx_.Report(f, t[r.first].line, t[r.first].column, "binding-pybind",
                fmt::format("the profiling tensor is argument {} of {} passed to {}; it must be the last "
                            "(after the main outputs)",
                            prof_pos + 1, data.size(), t[call].text));
  }
}

// The profiling tensor passed as a variable that holds no tensor at the call: `auto prof =
// c10::nullopt; EXEC_NPU_CMD(..., prof)` passes nothing, as `nullopt` written in the call does.
// The last assignment before the call, in the call's block or one around it, being null is
// certain (an error); a null among the earlier or conditional ones, or a ternary with a null arm,
// is a warning (the profiling tensor may be absent at run time).
void BindingChecker::NullThroughVariable(const SourceFile* f, size_t call, std::pair<size_t, size_t> arg) {
  const auto& t = f->lex.tokens;
  if (arg.second != arg.first + 1 || t[arg.first].kind != TokenKind::kIdentifier) return;
  const CodeStructure& cs = ctx_.Structure(f);
  const int fn = cs.EnclosingFunction(call);
  if (fn < 0) return;
  const Block& body = cs.blocks[static_cast<size_t>(fn)];
  const std::string_view name = t[arg.first].text;
  struct Assignment {
    size_t at;
    bool null, maybe_null;
  };
  std::vector<Assignment> assignments;
  std::vector<size_t> uses;  // every mention: one that is not an assignment may fill it (prof.emplace(...))
  for (size_t k = body.open + 1; k + 1 < call; ++k) {
    if (!t[k].active || t[k].in_directive || !t[k].Is(name)) continue;
    if (t[k - 1].Is(".") || t[k - 1].Is("->") || t[k - 1].Is("::")) continue;
    uses.push_back(k);
    size_t begin = 0, end = 0;
    if (t[k + 1].Is("=")) {  // `prof = ...;`, `auto prof = ...;`: up to the ';'
      begin = end = k + 2;
      for (int depth = 0; end < call && !(depth == 0 && t[end].Is(";")); ++end) {
        if (t[end].Is("(") || t[end].Is("{") || t[end].Is("[")) ++depth;
        if (t[end].Is(")") || t[end].Is("}") || t[end].Is("]")) --depth;
      }
    } else if ((t[k + 1].Is("(") || t[k + 1].Is("{")) &&
               (t[k - 1].kind == TokenKind::kIdentifier || t[k - 1].Is(">")) && !t[k - 1].Is("return")) {
      begin = k + 2;  // `T prof(...)`, `T prof{...}`
      end = MatchingClose(t, k + 1);
    } else if (t[k + 1].Is(";") && (t[k - 1].Is(">") || t[k - 1].kind == TokenKind::kIdentifier) &&
               !t[k - 1].Is("return")) {  // `c10::optional<at::Tensor> prof;`: empty until assigned
      size_t type = k;
      while (type > body.open + 1 && !t[type - 1].Is(";") && !t[type - 1].Is("{") && !t[type - 1].Is("}")) --type;
      bool optional = false;
      for (size_t x = type; x < k; ++x) optional = optional || t[x].Is("optional");
      if (optional) assignments.push_back({k, true, false});
      continue;
    } else {
      continue;
    }
    if (end >= call) continue;
    // nullptr / nullopt / 0, an empty `T prof{}` / `T prof()`, or `c10::optional<at::Tensor>()`.
    bool empty_optional = false;
    if (end >= begin + 2 && ((t[end - 2].Is("(") && t[end - 1].Is(")")) || (t[end - 2].Is("{") && t[end - 1].Is("}"))))
      for (size_t x = begin; x + 2 < end; ++x) empty_optional = empty_optional || t[x].Is("optional");
    const bool null = (end > begin && IsNullArg(t, {begin, end})) || empty_optional || (begin == end && !t[k + 1].Is("="));
    bool ternary = false, null_arm = false;
    for (size_t x = begin; x < end; ++x) {
      ternary = ternary || t[x].Is("?");
      null_arm = null_arm || t[x].Is("nullopt") || t[x].Is("nullptr") || t[x].Is("NULL");
    }
    const bool maybe = ternary && null_arm;
    assignments.push_back({k, null, maybe && !null});
  }
  if (assignments.empty()) return;
  const Assignment& last = assignments.back();
  const int last_block = cs.InnermostBlock(last.at);
  const bool reaches_call = (last_block == fn || cs.Within(cs.InnermostBlock(call), last_block)) &&
                            uses.back() == last.at;
  const int line = t[last.at].line;
  if (last.null && reaches_call) {
    ctx_.Report(f, t[arg.first].line, t[arg.first].column, "binding-pybind",
                fmt::format("\"{}\" passed to {} holds no tensor (set empty at line {}): the kernel gets no "
                            "profiling buffer; allocate a [128 * 3 * PROF_SIZE_PER_CORE] int64 tensor instead",
                            name, t[call].text, line));
    return;
  }
  if (!last.null && !last.maybe_null && reaches_call) return;  // overwritten with a tensor on every path
  for (const Assignment& a : assignments)
    if (a.null || a.maybe_null) {
      ctx_.Report(f, t[arg.first].line, t[arg.first].column, "binding-pybind-maybe-null",
                  fmt::format("\"{}\" passed to {} may hold no tensor (line {} {}): on that path the kernel "
                              "gets no profiling buffer",
                              name, t[call].text, t[a.at].line, a.null ? "sets it empty" : "may set it empty"));
      return;
    }
}

// Whether a function declared to return `head` (the tokens before its name) can return the
// operator's outputs: a helper that hands back a workspace pointer or a status code (a test
// harness's `OpWorkspace* OpGetWorkspace(...)` around the GetWorkspaceSize call) cannot.
static bool CanReturnOutputs(const std::vector<Token>& t, size_t name) {
  size_t i = name;
  while (i >= 2 && t[i - 1].Is("::") && t[i - 2].kind == TokenKind::kIdentifier) i -= 2;  // ns::Name
  if (i == 0) return true;
  const Token& type = t[i - 1];
  if (type.Is("*")) return false;
  static constexpr std::string_view kScalar[] = {"void", "bool", "int", "unsigned", "long", "short", "char",
                                                 "int32_t", "int64_t", "uint32_t", "uint64_t", "size_t",
                                                 "aclnnStatus", "aclError", "aclrtStream"};
  for (std::string_view s : kScalar)
    if (type.Is(s)) return false;
  return true;
}

void BindingChecker::CheckReturn(const SourceFile* f, const CodeStructure& cs, size_t call) {
  const auto& t = f->lex.tokens;
  int fn = cs.EnclosingFunction(call);
  if (fn < 0) return;
  const Block& b = cs.blocks[static_cast<size_t>(fn)];
  if (b.head_begin >= 2 && !CanReturnOutputs(t, b.head_begin - 2)) return;
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

void BindingChecker::CheckAclnn() {
  for (const SourceFile* f : aclnn_) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (!t[i].active || t[i].kind != TokenKind::kIdentifier || !t[i + 1].Is("(")) continue;
      std::string_view name = t[i].text;
      // The API is aclnn<Op>GetWorkspaceSize (and aclnnInner*); a file's own helpers named
      // ...GetWorkspaceSizeCommon / ...CommonProcess are not part of it.
      if (!StartsWith(name, "aclnn") || !name.ends_with("GetWorkspaceSize")) continue;
      auto args = Args(t, i + 1);
      bool declaration =
          i > 0 && ((t[i - 1].kind == TokenKind::kIdentifier && !t[i - 1].Is("return")) || t[i - 1].Is("*"));
      // Position of the profiling argument vs the last aclTensor* / tensor argument.
      int prof = -1, last_tensor = -1, first_runtime = -1;
      for (size_t a = 0; a < args.size(); ++a) {
        std::string text = JoinTokens(t, args[a].first, args[a].second);
        if (IsProfilingName(text)) prof = static_cast<int>(a);
        bool workspace = text.find("workspaceSize") != std::string::npos || text.find("executor") != std::string::npos;
        if (workspace && first_runtime < 0) first_runtime = static_cast<int>(a);
        if (!workspace && (!declaration || text.find("aclTensor") != std::string::npos))
          last_tensor = static_cast<int>(a);
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

}  // namespace binding_steps
}  // namespace optrace::source
