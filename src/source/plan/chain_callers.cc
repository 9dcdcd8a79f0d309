// Profiling chain, the callers: launch macros and adapters pass the buffer, the aclnn API allocates
// and returns it, Python samples unpack and save it.
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
      bool declaration =
          i > 0 && (t[i - 1].kind == TokenKind::kIdentifier || t[i - 1].Is("*")) && !t[i - 1].Is("return");
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

void ChainBuilder::Launchers() {
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
          if (pclose < t.size())
            InsertAt(*f, t[pclose], empty ? fmt::format("void* {}", kBuffer) : fmt::format(", void* {}", kBuffer),
                     true);
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
        if ((t[k].Is("{") || t[k].Is("(")) && depth > 0)
          --depth;
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
        if (t[k].Is("[") && k + 1 < i && !t[k + 1].Is("=") && !t[k + 1].Is("&") && !t[k + 1].Is("]"))
          capture_ok = false;
      if (tensor.empty() || !capture_ok || (s0 > 0 && t[s0 - 1].line == t[s0].line)) {
        Manual(where, fmt::format("allocate a [{}] int64 tensor in {}, pass it last to {} and return it", kWords,
                                  b.name, kind));
        continue;
      }
      AddLine(
          *f, t[s0].line, IndentOfLine(*f, t[s0].line),
          fmt::format("at::Tensor {} = at::empty({{{}}}, {}.options().dtype(at::kLong));", kBuffer, kWords, tensor));
      InsertAt(*f, t[close],
               kind == "ACLRT_LAUNCH_KERNEL" ? fmt::format(", {}.data_ptr()", kBuffer) : fmt::format(", {}", kBuffer),
               true);
      Done(*f, t[i].line, fmt::format("{} of {}: allocates {} and passes it last", kind, t[i + 2].text, kBuffer));
      Manual(where,
             fmt::format("return {} from {} (and add it to the op schema) so the caller can save it", kBuffer, b.name));
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
