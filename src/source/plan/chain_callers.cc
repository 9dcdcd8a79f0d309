// Profiling chain, the callers: launch macros and adapters pass the buffer, the aclnn API allocates
// and returns it, Python samples unpack and save it.
#include <cstdint>

#include "source/lexer/kernel_launches.h"
#include "source/plan/profiling_chain_builder.h"

namespace optrace::source {

namespace chain_steps {

void ChainBuilder::Adapters() {
  bool any = false;
  for (const SourceFile* f : others_) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (!Code(t[i]) || !t[i + 1].Is("(")) continue;
      bool exec = t[i].text.rfind("EXEC_NPU_CMD", 0) == 0;
      bool direct = t[i].text.rfind("aclnn", 0) == 0 && t[i].text.find("GetWorkspaceSize") != std::string_view::npos &&
                    i > 0 && !(t[i - 1].kind == TokenKind::kIdentifier && !t[i - 1].Is("return")) && !t[i - 1].Is("*");
      if (!exec && !direct) continue;
      if (exec) {
        std::vector<std::pair<size_t, size_t>> a = Args(t, i + 1);
        if (!a.empty() && !IsAclnnApiOf(JoinTokens(t, a[0].first, a[0].second), def_.class_name)) continue;
      } else if (!IsAclnnApiOf(t[i].text, def_.class_name)) {
        continue;
      }
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

void ChainBuilder::Adapter(const SourceFile& f, size_t call, int fn) {
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
    Manual(where,
           fmt::format("allocate a [{}] int64 tensor, pass it last to {} and return it last", kWords, t[call].text));
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
  Done(
      f, t[call].line,
      fmt::format("adapter {}: allocates {}, passes it last to {} and returns it last", b.name, kBuffer, t[call].text));
  Manual(where, fmt::format("{} now returns one more tensor: add `Tensor` to the returns of its op schema "
                            "(TORCH_LIBRARY registration) and unpack it in callers",
                            b.name));
}

size_t ChainBuilder::NameToken(const std::vector<Token>& t, const Block& b) {
  for (size_t i = 0; i < b.open; ++i)
    if (t[i].line == b.line && t[i].column == b.column) return i;
  return b.head_begin > 0 ? b.head_begin - 1 : 0;
}

size_t ChainBuilder::ReturnTypeBegin(const std::vector<Token>& t, const Block& b) {
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

void ChainBuilder::Aclnn() {
  // op_host/op_api/aclnn_*.cpp, and the op_api/ folder at the operator root (ops-nn, ops-transformer).
  std::vector<const SourceFile*> files = host_;
  files.insert(files.end(), others_.begin(), others_.end());
  std::erase_if(files, [](const SourceFile* f) { return fs::path(f->rel).filename().string().rfind("aclnn_", 0) != 0; });
  auto is_api = [](std::string_view n) {
    return n.rfind("aclnn", 0) == 0 && n.ends_with("GetWorkspaceSize");  // not ...Common helpers
  };
  auto is_declaration = [](const std::vector<Token>& t, size_t i) {
    return i > 0 && (t[i - 1].kind == TokenKind::kIdentifier || t[i - 1].Is("*")) && !t[i - 1].Is("return");
  };
  // Which APIs carry the buffer on: a definition that calls aclnnInner* (which then gets it). An
  // API whose definition does not, or is not in the tree, keeps its signature: adding a parameter
  // it never passes on would only break its callers. Its wiring is a hand step.
  std::map<std::string, bool> forwards;
  std::set<std::string, std::less<>> inner_called;  // the aclnnInner* those definitions call
  for (const SourceFile* f : files) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (!Code(t[i]) || t[i].kind != TokenKind::kIdentifier || !t[i + 1].Is("(") || !is_api(t[i].text)) continue;
      if (t[i].text.rfind("aclnnInner", 0) == 0 || !is_declaration(t, i)) continue;
      bool& fw = forwards[std::string(t[i].text)];
      size_t body = MatchingClose(t, i + 1);
      while (body < t.size() && !t[body].Is("{") && !t[body].Is(";")) ++body;
      if (body >= t.size() || !t[body].Is("{")) continue;
      size_t end = MatchingClose(t, body);
      for (size_t k = body; k < end && k < t.size(); ++k)
        if (Code(t[k]) && t[k].text.rfind("aclnnInner", 0) == 0 && is_api(t[k].text)) {
          fw = true;
          inner_called.insert(std::string(t[k].text));
        }
    }
  }
  std::set<std::string> listed;
  for (const SourceFile* f : files) {
    const auto& t = f->lex.tokens;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (!Code(t[i]) || t[i].kind != TokenKind::kIdentifier || !t[i + 1].Is("(")) continue;
      std::string_view n = t[i].text;
      if (!is_api(n)) continue;
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
      if (inner && !inner_called.count(n)) continue;  // no forwarding API in the tree calls it
      if (is_declaration(t, i)) {
        if (!inner && !forwards[std::string(n)]) {
          if (listed.insert(std::string(n)).second)
            Manual(fmt::format("{}:{}", f->rel, t[i].line),
                   fmt::format("{} does not pass its tensors on to aclnnInner* in this tree: add "
                               "`const aclTensor *profilingDataOut` after its outputs and pass it on to the op (as its "
                               "last output, e.g. in OP_OUTPUT) by hand, in its declaration and definition together",
                               n));
          continue;
        }
        InsertAt(*f, t[prev.second - 1], ", const aclTensor *profilingDataOut");
        Done(*f, t[i].line, fmt::format("{}: const aclTensor *profilingDataOut after the outputs", n));
      } else if (inner) {  // the call inside a forwarding definition
        InsertAt(*f, t[prev.second - 1], ", profilingDataOut");
        Done(*f, t[i].line, fmt::format("{}: profilingDataOut passed after the outputs", n));
      }
    }
  }
}

namespace {

// The first token of the statement at the top level of function block `b` that holds token i: a
// launch inside a loop or an if is set up before that whole statement.
size_t TopLevelStatement(const std::vector<Token>& t, const Block& b, size_t i) {
  auto next_code = [&](size_t k) {
    size_t n = NextCode(t, k);
    return n < i ? n : i;
  };
  auto block_statement = [&](size_t s) {
    return t[s].Is("{") || t[s].Is("if") || t[s].Is("for") || t[s].Is("while") || t[s].Is("switch") ||
           t[s].Is("try");
  };
  size_t start = next_code(b.open);
  int depth = 0;
  for (size_t k = start; k < i; ++k) {
    if (!Code(t[k])) continue;
    if (t[k].Is("(") || t[k].Is("[") || t[k].Is("{")) ++depth;
    if (t[k].Is(")") || t[k].Is("]") || t[k].Is("}")) --depth;
    if (depth != 0) continue;
    size_t n = NextCode(t, k);
    if (t[k].Is(";") ||
        (t[k].Is("}") && block_statement(start) && !(n < t.size() && (t[n].Is("else") || t[n].Is("catch")))))
      start = next_code(k);
  }
  return start;
}

bool IsDeviceSynchronize(std::string_view n) {
  return n == "aclrtSynchronizeStream" || n == "aclrtSynchronizeStreamWithTimeout" || n == "aclrtSynchronizeDevice" ||
         n == "aclrtSynchronizeDeviceWithTimeout" || n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize";
}

// The last token of a braced `for (...) {...}`, `while (...) {...}` or else-less `if (...) {...}`
// starting at `at`; t.size() for any other statement. With `braceless_if`, an else-less
// `if (cond) stmt;` counts too. With `in_cond`, token in_cond must lie in the condition.
size_t ControlStatementEnd(const std::vector<Token>& t, size_t at, bool braceless_if = false,
                           size_t in_cond = SIZE_MAX) {
  if (at >= t.size() || !(t[at].Is("for") || t[at].Is("while") || t[at].Is("if"))) return t.size();
  size_t open = NextCode(t, at);
  if (open >= t.size() || !t[open].Is("(")) return t.size();
  size_t close = MatchingClose(t, open);
  if (close >= t.size() || (in_cond != SIZE_MAX && (in_cond <= open || in_cond >= close))) return t.size();
  size_t body = NextCode(t, close);
  if (body >= t.size()) return t.size();
  const bool braced = t[body].Is("{");
  if (!braced && !(braceless_if && t[at].Is("if"))) return t.size();
  size_t end = braced ? MatchingClose(t, body) : StatementEnd(t, body);
  if (end >= t.size()) return t.size();
  size_t after = NextCode(t, end);
  if (t[at].Is("if") && after < t.size() && t[after].Is("else")) return t.size();
  return end;
}

bool IsControlKeyword(const Token& tok) {
  for (const char* k : {"if", "else", "for", "while", "do", "switch", "case", "default", "try", "catch"})
    if (tok.Is(k)) return true;
  return false;
}

bool IncludesCstdio(const SourceFile& f) {
  for (const Directive& d : f.lex.directives)
    if (d.kind == DirectiveKind::kInclude && (d.include_path == "cstdio" || d.include_path == "stdio.h")) return true;
  return false;
}

}  // namespace

void ChainBuilder::Launchers() {
  std::set<std::string> names;
  for (const ix::FunctionDef* k : kernels_) names.insert(k->name);
  for (const PlanKernel& k : plan_.kernels) names.insert(k.function);
  auto is_kernel = [&](std::string_view n) { return names.count(std::string(n)) > 0; };
  bool any = false;
  for (const SourceFile* f : set_.Files()) {
    std::vector<KernelLaunch> launches = FindKernelLaunches(f->lex.tokens, is_kernel);
    std::map<int, std::vector<const KernelLaunch*>> by_function;
    for (const KernelLaunch& l : launches) {
      any = true;
      int fn = Enclosing(f, l.first);
      if (fn >= 0) by_function[fn].push_back(&l);
    }
    bool cstdio = IncludesCstdio(*f);
    for (const auto& [fn, list] : by_function) LaunchesIn(*f, fn, list, cstdio);
  }
  if (!any) {
    for (const ix::FunctionDef* k : kernels_)
      Manual(fmt::format("{}:{}", k->file->rel, k->line),
             fmt::format("{} is launched from outside the operator tree: pass a device buffer of [{}] int64 words "
                         "as its last argument and save it after a device synchronize",
                         k->name, kWords));
  }
}

std::set<std::string> ChainBuilder::Synchronizers() {
  std::map<std::string, bool> always;  // name -> every definition synchronizes
  for (const SourceFile* f : set_.Files()) {
    const auto& t = f->lex.tokens;
    const CodeStructure& cs = Structure(f);
    for (size_t bi = 0; bi < cs.blocks.size(); ++bi) {
      const Block& b = cs.blocks[bi];
      if (b.kind != BlockKind::kFunction || b.name.empty() || b.close >= t.size()) continue;
      bool syncs = false;
      for (size_t k = b.open + 1; k + 1 < b.close && !syncs; ++k) {
        if (!Code(t[k]) || !IsDeviceSynchronize(t[k].text) || !t[k + 1].Is("(")) continue;
        if (cs.InnermostBlock(k) != static_cast<int>(bi)) continue;
        size_t stmt = TopLevelStatement(t, b, k);
        syncs = stmt < t.size() && !IsControlKeyword(t[stmt]);
      }
      auto [it, fresh] = always.emplace(b.name, syncs);
      if (!fresh) it->second = it->second && syncs;
    }
  }
  std::set<std::string> out;
  for (const auto& [name, yes] : always)
    if (yes && !IsDeviceSynchronize(name)) out.insert(name);
  return out;
}

// The launches of one host function. The function's signature is never changed (its declarations
// and callers, `main` among them, stay as they are): a torch adapter allocates the buffer as a
// tensor and returns it; plain host code allocates it on the device before the launch, copies it
// back after the synchronize that follows and writes it as rank0.bin.
void ChainBuilder::LaunchesIn(const SourceFile& f, int fn, const std::vector<const KernelLaunch*>& launches,
                              bool& cstdio) {
  const auto& t = f.lex.tokens;
  const CodeStructure& cs = Structure(&f);
  const Block& b = cs.blocks[static_cast<size_t>(fn)];
  const KernelLaunch& first = *launches.front();
  const KernelLaunch& last = *launches.back();
  std::string where = fmt::format("{}:{}", f.rel, t[first.first].line);
  std::string tensor;
  for (size_t k = b.head_begin; k + 1 < b.head_end; ++k)
    if (t[k].Is("Tensor") && tensor.empty()) {
      size_t n = k + 1;
      while (n < b.head_end && (t[n].Is("&") || t[n].Is("const") || t[n].Is("*"))) ++n;
      if (n < b.head_end && t[n].kind == TokenKind::kIdentifier) tensor = std::string(t[n].text);
    }
  const size_t s0 = TopLevelStatement(t, b, first.first);
  // A lambda between the statement and a launch (a custom handler) must capture the buffer: one
  // with a capture list and no default capture gets it added.
  std::vector<std::pair<size_t, bool>> captures;  // the ']' of each, and whether the list is empty
  for (const KernelLaunch* l : launches) {
    for (size_t k = TopLevelStatement(t, b, l->first); k < l->first; ++k) {
      if (!Code(t[k]) || !t[k].Is("[")) continue;
      size_t close = MatchingClose(t, k);
      if (close >= l->first) continue;
      size_t after = NextCode(t, close);
      bool lambda = after < t.size() && (t[after].Is("(") || t[after].Is("{") || t[after].Is("mutable") ||
                                         t[after].Is("->"));
      if (!lambda) continue;
      size_t body = after;  // the lambda's '{': it must hold the launch
      if (t[body].Is("(")) body = MatchingClose(t, body);
      while (body < l->first && !t[body].Is("{")) ++body;
      if (body >= l->first || MatchingClose(t, body) < l->first) continue;
      bool defaulted = close > k + 1 && (t[k + 1].Is("=") || (t[k + 1].Is("&") && (t[k + 2].Is(",") || k + 2 == close)));
      if (!defaulted &&
          std::none_of(captures.begin(), captures.end(), [&](const auto& c) { return c.first == close; }))
        captures.push_back({close, close == k + 1});
    }
  }
  auto pass = [&](const KernelLaunch& l, const std::string& value) {
    // After the kernel's last argument; `k<<<...>>>()` gets no leading comma.
    bool lone = l.args.empty() && l.kind == KernelLaunch::Kind::kChevrons;
    InsertAt(f, t[l.close], lone ? value : ", " + value, true);
    Done(f, t[l.first].line,
         fmt::format("{} launch of {}: {} passed last", KernelLaunch::KindName(l.kind), l.kernel, value));
  };
  // Where no buffer can be made here, the launches pass nullptr (the device API writes nothing
  // for a null buffer): the tree still builds, and the hand step says what to do.
  const std::string bytes = fmt::format("sizeof(long long) * {}", kWords);
  auto pass_null = [&](const std::string& why) {
    for (const KernelLaunch* l : launches) {
      pass(*l, "nullptr");
      Manual(fmt::format("{}:{}", f.rel, t[l->first].line),
             fmt::format("the launch of {} passes nullptr for the profiling buffer ({}), so no trace is written: "
                         "allocate {} bytes on the device, zero them, pass them instead and write them as "
                         "rank<N>.bin after a device synchronize",
                         l->kernel, why, bytes));
    }
  };
  if (s0 > 0 && t[s0 - 1].line == t[s0].line) {
    pass_null(fmt::format("the launching statement shares its line with other code in {}", b.name));
    return;
  }
  const std::string indent = IndentOfLine(f, t[s0].line);
  auto capture = [&] {
    for (const auto& [close, empty] : captures) InsertAt(f, t[close], empty ? kBuffer : fmt::format(", {}", kBuffer), true);
  };
  if (!tensor.empty()) {  // a torch adapter: the buffer is a tensor it returns
    capture();
    AddLine(f, t[s0].line, indent,
            fmt::format("at::Tensor {} = at::zeros({{{}}}, {}.options().dtype(at::kLong));", kBuffer, kWords, tensor));
    for (const KernelLaunch* l : launches)
      pass(*l, l->kind == KernelLaunch::Kind::kAclrtLaunchKernel ? fmt::format("{}.data_ptr()", kBuffer) : kBuffer);
    Manual(where,
           fmt::format("return {} from {} (and add it to the op schema) so the caller can save it", kBuffer, b.name));
    return;
  }
  const bool cuda = f.rel.ends_with(".cu") || f.rel.ends_with(".cuh");
  // The first synchronize after the last launch, at the function's top level: the buffer is
  // complete there, and freeing it there frees it on every path that allocated it. Without one
  // (a launcher that returns to its caller) a buffer made here could be neither saved nor freed,
  // and the file may not even see the runtime's allocation API (a kernel source's launcher).
  // A call of a helper that always synchronizes counts (Synchronizers), and so does a synchronize
  // in the condition of an `if` without else (`if (!SyncStream(buf)) { ...; return false; }`):
  // the write-back goes after the whole if statement, where the device has synchronized.
  const std::set<std::string>& helpers = *(synchronizers_ ? synchronizers_ : (synchronizers_ = Synchronizers()));
  // A call of a device synchronize or of such a helper (a method of that name is neither).
  auto sync_call = [&](size_t k) {
    return Code(t[k]) && (IsDeviceSynchronize(t[k].text) || helpers.count(std::string(t[k].text))) &&
           k + 1 < t.size() && t[k + 1].Is("(") && !(k > 0 && (t[k - 1].Is(".") || t[k - 1].Is("->")));
  };
  size_t sync_end = t.size();
  for (size_t k = last.close; k < b.close && k + 1 < t.size(); ++k) {
    if (!sync_call(k)) continue;
    size_t stmt = TopLevelStatement(t, b, k);
    size_t end = StatementEnd(t, stmt);
    if (end >= t.size() && t[stmt].Is("if")) end = ControlStatementEnd(t, stmt, true, k);
    if (cs.InnermostBlock(k) == fn && end < t.size() && LastOnLine(t, end) && FirstOnLine(t, stmt)) sync_end = end;
    break;
  }
  // A loop that launches and then synchronizes in the same block (`for (cfg : list) { k<<<...>>>(...);
  // CHECK_ACL(aclrtSynchronizeStream(s)); ... }`): every launch has synchronized once the whole
  // top-level statement has run, so the write-back goes after it.
  if (sync_end >= t.size()) {
    const int launch_block = cs.InnermostBlock(last.first);
    const size_t outer = TopLevelStatement(t, b, last.first);
    const size_t outer_end = ControlStatementEnd(t, outer);
    for (size_t k = last.close; launch_block != fn && k < outer_end && outer_end < t.size() && k + 1 < t.size(); ++k) {
      if (!sync_call(k) || cs.InnermostBlock(k) != launch_block) continue;
      if (LastOnLine(t, outer_end) && FirstOnLine(t, outer)) sync_end = outer_end;
      break;
    }
  }
  if (sync_end >= t.size()) {
    pass_null(fmt::format("{} does not synchronize the device after it: its caller must provide the buffer", b.name));
    return;
  }
  capture();
  AddLine(f, t[s0].line, indent, fmt::format("void* {} = nullptr;", kBuffer));
  if (cuda) {
    AddLine(f, t[s0].line, indent, fmt::format("cudaMalloc(&{}, {});", kBuffer, bytes));
    AddLine(f, t[s0].line, indent, fmt::format("cudaMemset({}, 0, {});", kBuffer, bytes));
  } else {
    AddLine(f, t[s0].line, indent, fmt::format("aclrtMalloc(&{}, {}, ACL_MEM_MALLOC_HUGE_FIRST);", kBuffer, bytes));
    AddLine(f, t[s0].line, indent, fmt::format("aclrtMemset({0}, {1}, 0, {1});", kBuffer, bytes));
  }
  for (const KernelLaunch* l : launches) pass(*l, kBuffer);
  const int after = t[sync_end].line + 1;
  const std::string sync_indent = IndentOfLine(f, t[sync_end].line);
  const std::string inner = sync_indent + "    ";
  if (!cstdio) {
    AddLine(f, IncludeLine(f.lex), "", "#include <cstdio>");
    cstdio = true;
  }
  AddLine(f, after, sync_indent, "{");
  AddLine(f, after, inner, "void* optrace_host = nullptr;");
  if (cuda) {
    AddLine(f, after, inner, fmt::format("cudaMallocHost(&optrace_host, {});", bytes));
    AddLine(f, after, inner,
            fmt::format("cudaMemcpy(optrace_host, {}, {}, cudaMemcpyDeviceToHost);", kBuffer, bytes));
  } else {
    AddLine(f, after, inner, fmt::format("aclrtMallocHost(&optrace_host, {});", bytes));
    AddLine(f, after, inner,
            fmt::format("aclrtMemcpy(optrace_host, {1}, {0}, {1}, ACL_MEMCPY_DEVICE_TO_HOST);", kBuffer, bytes));
  }
  AddLine(f, after, inner, "std::FILE* optrace_file = std::fopen(\"rank0.bin\", \"wb\");");
  AddLine(f, after, inner,
          fmt::format("if (optrace_file != nullptr) {{ std::fwrite(optrace_host, 1, {}, optrace_file); "
                      "std::fclose(optrace_file); }}",
                      bytes));
  AddLine(f, after, inner, cuda ? "cudaFreeHost(optrace_host);" : "aclrtFreeHost(optrace_host);");
  AddLine(f, after, sync_indent, "}");
  AddLine(f, after, sync_indent, (cuda ? "cudaFree(" : "aclrtFree(") + std::string(kBuffer) + ");");
  Done(f, t[s0].line, fmt::format("{}: {} allocated before the launch of {}, written to rank0.bin and freed after the "
                                  "synchronize at line {}",
                                  b.name, kBuffer, first.kernel, t[sync_end].line));
  Manual(where, "a program of several ranks: name the file rank<its rank>.bin (it writes rank0.bin)");
}

void ChainBuilder::Samples() {
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

}  // namespace chain_steps
}  // namespace optrace::source
