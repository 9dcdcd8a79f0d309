#include "source/plan/code_index.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace optrace::source {
namespace {

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list)
    if (s == x) return true;
  return false;
}

bool IsKeyword(std::string_view s) {
  return IsOneOf(s, {"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "static_cast",
                     "reinterpret_cast", "const_cast", "dynamic_cast", "catch", "new", "delete", "throw", "template",
                     "typename", "using", "case", "do", "else", "MoeTracing", "TRACE_POINT", "static_assert",
                     "defined", "noexcept", "const", "constexpr", "auto", "void", "inline", "static", "struct",
                     "class", "enum", "namespace", "public", "private", "protected", "goto", "break", "continue"});
}

bool Code(const Token& t) { return t.active && !t.in_directive; }

std::string StripSpaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// Replaces whole identifiers of `text` that are bound template parameters.
std::string Substitute(const std::string& text, const Bindings& b) {
  if (b.empty()) return text;
  std::string out, word;
  auto flush = [&] {
    auto it = b.find(word);
    out += it == b.end() ? word : it->second;
    word.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else {
      flush();
      out += c;
    }
  }
  flush();
  return out;
}

std::vector<std::string> SplitTopLevel(const std::string& text) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!StripSpaces(cur).empty()) parts.push_back(cur);
  return parts;
}

// "AscendC::AIC" and "AIC" name the same template argument.
std::string LastComponent(const std::string& s) {
  std::string x = StripSpaces(s);
  size_t p = x.rfind("::");
  return p == std::string::npos ? x : x.substr(p + 2);
}

}  // namespace

unsigned FlipCore(unsigned c) { return c == kCoreAic ? kCoreAiv : c == kCoreAiv ? kCoreAic : c; }

unsigned CoreOfText(const std::string& raw) {
  std::string text = StripSpaces(raw);
  bool aiv = text.find("AIV") != std::string::npos || text.find("_VEC") != std::string::npos ||
             text.find("VEC_") != std::string::npos;
  bool aic = text.find("AIC") != std::string::npos || text.find("CUBE") != std::string::npos;
  if (aiv == aic) return kCoreNone;
  unsigned c = aiv ? kCoreAiv : kCoreAic;
  if (text.find("!=") != std::string::npos || (!text.empty() && text[0] == '!')) c = FlipCore(c);
  return c;
}

std::string CoreName(unsigned c) {
  switch (c) {
    case kCoreAic: return "AIC";
    case kCoreAiv: return "AIV";
    case kCoreBoth: return "AIC+AIV";
    default: return "-";
  }
}

std::string KebabCase(const std::string& raw) {
  std::string name = raw;
  while (!name.empty() && name.back() == '_') name.pop_back();
  if (name.size() > 1 && name[0] == 'k' && std::isupper(static_cast<unsigned char>(name[1]))) name = name.substr(1);
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '_' || c == ' ' || c == '-') {
      if (!out.empty() && out.back() != '-') out += '-';
      continue;
    }
    if (!std::isalnum(static_cast<unsigned char>(c))) continue;
    bool upper = std::isupper(static_cast<unsigned char>(c));
    if (upper && i > 0 && !out.empty() && out.back() != '-') {
      char p = name[i - 1];
      bool next_lower = i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      if (std::islower(static_cast<unsigned char>(p)) || std::isdigit(static_cast<unsigned char>(p)) ||
          (std::isupper(static_cast<unsigned char>(p)) && next_lower)) {
        out += '-';
      }
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string FunctionDef::DisplayName() const {
  std::string s = owner.empty() ? name : owner + "::" + name;
  if (!template_args.empty()) s += "<" + template_args + ">";
  return s;
}

CodeIndex::CodeIndex(const std::vector<const SourceFile*>& files) {
  for (const SourceFile* f : files) {
    structures_[f] = std::make_unique<CodeStructure>(AnalyzeStructure(f->lex));
    for (const Directive& d : f->lex.directives) {
      if (d.kind != DirectiveKind::kDefine || !d.active) continue;
      size_t paren = d.argument.find('(');
      size_t space = d.argument.find_first_of(" \t");
      if (paren == std::string::npos || (space != std::string::npos && space < paren)) continue;
      size_t close = d.argument.find(')', paren);
      if (close == std::string::npos) continue;
      macros_[d.argument.substr(0, paren)] = d.argument.substr(close + 1);
    }
  }
  for (const SourceFile* f : files) IndexFile(f);
  // Regions of #if naming a core type (#else flips).
  for (const SourceFile* f : files) {
    struct Frame {
      unsigned core;
      int start;
    };
    std::vector<Frame> stack;
    auto& out = regions_[f];
    for (const Directive& d : f->lex.directives) {
      switch (d.kind) {
        case DirectiveKind::kIf:
        case DirectiveKind::kIfdef:
        case DirectiveKind::kIfndef: {
          unsigned c = CoreOfText(d.argument);
          if (d.kind == DirectiveKind::kIfndef) c = FlipCore(c);
          stack.push_back({c, d.line});
          break;
        }
        case DirectiveKind::kElif:
        case DirectiveKind::kElse:
          if (stack.empty()) break;
          if (stack.back().core != kCoreNone) out.push_back({stack.back().start, d.line, stack.back().core});
          stack.back() = {d.kind == DirectiveKind::kElse ? FlipCore(stack.back().core) : CoreOfText(d.argument),
                          d.line};
          break;
        case DirectiveKind::kEndif:
          if (stack.empty()) break;
          if (stack.back().core != kCoreNone) out.push_back({stack.back().start, d.line, stack.back().core});
          stack.pop_back();
          break;
        default:
          break;
      }
    }
  }
}

void CodeIndex::IndexFile(const SourceFile* f) {
  const CodeStructure& cs = *structures_.at(f);
  const auto& t = f->lex.tokens;
  auto prev = [&](size_t i) -> long {
    for (long j = static_cast<long>(i) - 1; j >= 0; --j)
      if (Code(t[static_cast<size_t>(j)])) return j;
    return -1;
  };
  auto at = [&](long i, std::string_view s) { return i >= 0 && t[static_cast<size_t>(i)].Is(s); };
  std::set<std::string> classes;
  for (const Block& b : cs.blocks) {
    if (b.kind != BlockKind::kScope) continue;
    for (long q = prev(b.open); q >= 0; q = prev(static_cast<size_t>(q))) {
      const Token& x = t[static_cast<size_t>(q)];
      if (x.Is(";") || x.Is("{") || x.Is("}")) break;
      if (x.Is("class") || x.Is("struct")) classes.insert(b.name);
    }
  }
  // Class members `Type name_;` / `const Type& name_;` for object -> class resolution.
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!Code(t[i]) || t[i].kind != TokenKind::kIdentifier) continue;
    int blk = cs.InnermostBlock(i);
    if (blk < 0 || cs.blocks[static_cast<size_t>(blk)].kind != BlockKind::kScope) continue;
    if (!classes.count(std::string(t[i].text)) && !member_types_.count("#class:" + std::string(t[i].text))) continue;
    size_t j = i + 1;
    while (j < t.size() && (t[j].Is("&") || t[j].Is("*") || t[j].Is("const"))) ++j;
    if (j + 1 < t.size() && t[j].kind == TokenKind::kIdentifier && (t[j + 1].Is(";") || t[j + 1].Is("=")))
      member_types_[std::string(t[j].text)] = std::string(t[i].text);
  }
  for (const std::string& c : classes) member_types_["#class:" + c] = c;

  for (size_t bi = 0; bi < cs.blocks.size(); ++bi) {
    const Block& b = cs.blocks[bi];
    bool lambda = b.kind == BlockKind::kLambda || (b.kind == BlockKind::kOther && at(prev(b.open), "]"));
    if (b.kind != BlockKind::kFunction && !lambda) continue;
    auto def = std::make_unique<FunctionDef>();
    def->file = f;
    def->cs = &cs;
    def->block = static_cast<int>(bi);
    def->open = b.open;
    def->close = b.close;
    def->line = b.line;
    if (lambda) {
      // `auto name = [..](..) {`: the lambda is called through `name`.
      long q = b.kind == BlockKind::kLambda ? prev(b.head_begin - 1) : prev(b.open);
      int depth = 0;
      for (; q >= 0; q = prev(static_cast<size_t>(q))) {
        if (t[static_cast<size_t>(q)].Is("]")) ++depth;
        if (t[static_cast<size_t>(q)].Is("[") && --depth == 0) break;
      }
      long eq = q >= 0 ? prev(static_cast<size_t>(q)) : -1;
      long name = eq >= 0 ? prev(static_cast<size_t>(eq)) : -1;
      if (!at(eq, "=") || name < 0 || t[static_cast<size_t>(name)].kind != TokenKind::kIdentifier) continue;
      def->name = std::string(t[static_cast<size_t>(name)].text);
      def->is_lambda = true;
      def->line = t[static_cast<size_t>(name)].line;
    } else {
      def->name = b.name;
      def->template_args = b.template_args;
      size_t name_tok = b.open;
      for (size_t i = 0; i < b.open; ++i)
        if (t[i].line == b.line && t[i].column == b.column) {
          name_tok = i;
          break;
        }
      long p = prev(name_tok);
      if (at(p, "::")) {
        long q = prev(static_cast<size_t>(p));
        if (at(q, ">")) {
          int depth = 0;
          for (; q >= 0; q = prev(static_cast<size_t>(q))) {
            if (at(q, ">")) ++depth;
            if (at(q, "<") && --depth == 0) break;
          }
          q = q >= 0 ? prev(static_cast<size_t>(q)) : -1;
        }
        if (q >= 0) def->owner = std::string(t[static_cast<size_t>(q)].text);
        p = q >= 0 ? prev(static_cast<size_t>(q)) : -1;
      } else {
        for (int s = b.parent; s >= 0; s = cs.blocks[static_cast<size_t>(s)].parent) {
          const Block& sb = cs.blocks[static_cast<size_t>(s)];
          if (sb.kind == BlockKind::kScope && classes.count(sb.name)) {
            def->owner = sb.name;
            break;
          }
        }
      }
      // Declaration head: return type, template header, __global__.
      bool has_type = false;
      long start = p;
      for (; p >= 0; p = prev(static_cast<size_t>(p))) {
        const Token& x = t[static_cast<size_t>(p)];
        if (x.Is(";") || x.Is("{") || x.Is("}")) break;
        long before = prev(static_cast<size_t>(p));
        if (x.Is(":") && before >= 0 && IsOneOf(t[static_cast<size_t>(before)].text, {"public", "private", "protected"}))
          break;
        if (x.Is("void")) has_type = true;
        if (x.Is("__global__")) def->is_kernel = true;
        start = p;
      }
      def->returns_void = has_type || def->name == def->owner || def->name[0] == '~';
      for (long q = start; q >= 0 && static_cast<size_t>(q) < name_tok; ++q) {
        if (!at(q, "template")) continue;
        long lt = q + 1;
        while (static_cast<size_t>(lt) < name_tok && !Code(t[static_cast<size_t>(lt)])) ++lt;
        if (!at(lt, "<")) break;
        size_t gt = MatchingClose(t, static_cast<size_t>(lt));
        for (size_t k = static_cast<size_t>(lt) + 1; k < gt && k < t.size(); ++k) {
          if (t[k].kind != TokenKind::kIdentifier) continue;
          size_t n = k + 1;
          while (n < gt && !Code(t[n])) ++n;
          if (n == gt || t[n].Is(",") || t[n].Is("=")) def->template_params.push_back(std::string(t[k].text));
        }
        break;
      }
    }
    // Parameter names: the last identifier of each top-level segment (before any default).
    if (b.head_end > b.head_begin) {
      std::string last;
      int depth = 0;
      bool in_default = false;
      for (size_t k = b.head_begin; k <= b.head_end && k < t.size(); ++k) {
        const Token& x = t[k];
        if (!Code(x)) continue;
        if (k == b.head_end || (depth == 0 && x.Is(","))) {
          if (!last.empty()) def->params.push_back(last);
          last.clear();
          in_default = false;
          continue;
        }
        if (x.Is("(") || x.Is("<") || x.Is("[")) ++depth;
        if (x.Is(")") || x.Is(">") || x.Is("]")) --depth;
        if (depth == 0 && x.Is("=")) in_default = true;
        if (!in_default && depth == 0 && x.kind == TokenKind::kIdentifier && !IsKeyword(x.text)) last = x.text;
      }
    }
    by_name_.emplace(def->name, def.get());
    functions_.push_back(std::move(def));
  }
}

const FunctionDef* CodeIndex::FindEntry(const SourceFile* entry_file) const {
  const FunctionDef* first = nullptr;
  for (const auto& f : functions_) {
    if (f->file != entry_file || f->is_lambda) continue;
    if (f->is_kernel) return f.get();
    if (!first) first = f.get();
  }
  return first;
}

std::vector<CallSite> CodeIndex::Calls(const FunctionDef& f) const {
  std::vector<CallSite> out;
  std::map<std::string, std::string> locals;
  // Parameters of a known class type: `const MoeContext& ctx`.
  const Block& b = f.cs->blocks[static_cast<size_t>(f.block)];
  const auto& t = f.file->lex.tokens;
  std::string type;
  for (size_t k = b.head_begin; k < b.head_end && k < t.size(); ++k) {
    if (t[k].kind != TokenKind::kIdentifier) continue;
    std::string s(t[k].text);
    if (member_types_.count("#class:" + s)) {
      type = s;
    } else if (!type.empty() && !IsKeyword(s)) {
      locals[s] = type;
      type.clear();
    }
  }
  FindCallsIn(f, f.open + 1, f.close, &out, &locals, 0);
  return out;
}

void CodeIndex::FindCallsIn(const FunctionDef& f, size_t begin, size_t end, std::vector<CallSite>* out,
                            std::map<std::string, std::string>* locals, int macro_depth) const {
  const auto& t = f.file->lex.tokens;
  const CodeStructure& cs = *f.cs;
  auto next = [&](size_t i) {
    for (size_t j = i + 1; j < t.size(); ++j)
      if (Code(t[j])) return j;
    return t.size();
  };
  auto prev = [&](size_t i) -> long {
    for (long j = static_cast<long>(i) - 1; j >= static_cast<long>(begin) - 1 && j >= 0; --j)
      if (Code(t[static_cast<size_t>(j)])) return j;
    return -1;
  };
  std::set<size_t> named_lambda_opens;
  for (const auto& d : functions_)
    if (d->is_lambda && d->file == f.file && d->open != f.open) named_lambda_opens.insert(d->open);
  for (size_t i = begin; i < end && i < t.size(); ++i) {
    const Token& x = t[i];
    if (!Code(x)) continue;
    if (x.Is("{") && named_lambda_opens.count(i)) {
      size_t c = MatchingClose(t, i);
      i = c < end ? c : end;
      continue;
    }
    if (x.kind != TokenKind::kIdentifier || IsKeyword(x.text)) continue;
    std::string name(x.text);
    // Local declarations of a known class: `MoeDispatch dispatch(ctx_);` -> dispatch is a MoeDispatch.
    if (member_types_.count("#class:" + name)) {
      size_t j = next(i);
      while (j < t.size() && (t[j].Is("&") || t[j].Is("*") || t[j].Is("const"))) j = next(j);
      if (j < t.size() && t[j].kind == TokenKind::kIdentifier) {
        (*locals)[std::string(t[j].text)] = name;
        i = j;
        continue;
      }
    }
    size_t j = next(i);
    std::string targs;
    if (name == "operator" && j < t.size() && t[j].Is("(") && next(j) < t.size() && t[next(j)].Is(")")) {
      name = "operator()";
      j = next(next(j));
    }
    if (j < t.size() && t[j].Is("<")) {
      size_t gt = MatchingClose(t, j);
      if (gt >= t.size() || !t[gt].Is(">") || next(gt) >= t.size() || !t[next(gt)].Is("(")) continue;
      targs = JoinTokens(t, j + 1, gt);
      j = next(gt);
    }
    if (j >= t.size() || !t[j].Is("(")) continue;
    long p = prev(i);
    if (p >= 0) {
      const Token& pt = t[static_cast<size_t>(p)];
      if ((pt.kind == TokenKind::kIdentifier && !IsOneOf(pt.text, {"return", "else", "case", "throw", "co_return",
                                                                   "template", "do"})) ||
          pt.Is(">") || pt.Is("~")) {
        (*locals)[name] = pt.kind == TokenKind::kIdentifier ? std::string(pt.text) : "";
        continue;  // a declaration `Type var(args)`, not a call
      }
    }
    CallSite c;
    c.callee = name;
    c.template_args = targs;
    c.token = i;
    c.line = x.line;
    if (p >= 0 && t[static_cast<size_t>(p)].Is("template")) p = prev(static_cast<size_t>(p));
    if (p >= 0 && t[static_cast<size_t>(p)].Is("::")) {
      long q = prev(static_cast<size_t>(p));
      if (q >= 0 && t[static_cast<size_t>(q)].kind == TokenKind::kIdentifier)
        c.qualifier = std::string(t[static_cast<size_t>(q)].text);
    } else if (p >= 0 && (t[static_cast<size_t>(p)].Is(".") || t[static_cast<size_t>(p)].Is("->"))) {
      long q = prev(static_cast<size_t>(p));
      if (q >= 0 && t[static_cast<size_t>(q)].kind == TokenKind::kIdentifier) {
        c.object = std::string(t[static_cast<size_t>(q)].text);
        auto it = locals->find(c.object);
        if (it != locals->end()) {
          c.qualifier = it->second;
        } else if (auto m = member_types_.find(c.object); m != member_types_.end()) {
          c.qualifier = m->second;
        }
      } else {
        c.object = "?";
      }
    } else if (auto it = locals->find(name); it != locals->end() && !it->second.empty()) {
      // `dispatch(args)`: a functor object's operator().
      c.object = name;
      c.qualifier = it->second;
      c.callee = "operator()";
    }
    for (int blk = cs.InnermostBlock(i); blk >= 0 && blk != f.block; blk = cs.blocks[static_cast<size_t>(blk)].parent)
      c.control.insert(c.control.begin(), blk);
    bool defined = by_name_.count(c.callee) > 0;
    auto macro = macros_.find(name);
    if (!defined && macro != macros_.end() && macro_depth < 3) {
      // A macro wrapping calls: the calls in its body happen here.
      LexedFile body = Lex(macro->second);
      for (size_t k = 0; k + 1 < body.tokens.size(); ++k) {
        if (body.tokens[k].kind != TokenKind::kIdentifier || !body.tokens[k + 1].Is("(")) continue;
        std::string inner(body.tokens[k].text);
        if (!by_name_.count(inner) || IsKeyword(inner)) continue;
        CallSite m = c;
        m.callee = inner;
        m.qualifier.clear();
        m.object.clear();
        m.template_args.clear();
        m.via_macro = true;
        out->push_back(m);
      }
      continue;
    }
    out->push_back(std::move(c));
  }
}

const FunctionDef* CodeIndex::Resolve(const FunctionDef& caller, const CallSite& call, const Bindings& bindings) const {
  auto [lo, hi] = by_name_.equal_range(call.callee);
  std::vector<const FunctionDef*> cands;
  for (auto it = lo; it != hi; ++it) {
    const FunctionDef* d = it->second;
    if (d->is_lambda) {
      // A named lambda is visible only inside the function that defines it.
      if (d->file == caller.file && caller.cs->Within(d->block, caller.block) && call.object.empty() &&
          call.qualifier.empty())
        cands.push_back(d);
      continue;
    }
    cands.push_back(d);
  }
  if (cands.empty()) return nullptr;
  auto keep = [&](auto pred) {
    std::vector<const FunctionDef*> k;
    for (const FunctionDef* d : cands)
      if (pred(d)) k.push_back(d);
    if (!k.empty()) cands = std::move(k);
    return !k.empty() || !cands.empty();
  };
  if (!call.qualifier.empty()) {
    bool any = false;
    for (const FunctionDef* d : cands) any = any || d->owner == call.qualifier || d->is_lambda;
    if (!any && !member_types_.count("#class:" + call.qualifier)) return nullptr;  // AscendC::SyncAll
    keep([&](const FunctionDef* d) { return d->owner == call.qualifier; });
  } else if (call.object.empty()) {
    keep([&](const FunctionDef* d) { return d->is_lambda || d->owner == caller.owner; });
  }
  std::string args = LastComponent(Substitute(call.template_args, bindings));
  if (!args.empty()) {
    for (const FunctionDef* d : cands)
      if (!d->template_args.empty() && LastComponent(d->template_args) == args) return d;
  }
  for (const FunctionDef* d : cands)
    if (d->template_args.empty()) return d;
  return cands.front();
}

Bindings CodeIndex::BindingsFor(const FunctionDef& callee, const CallSite& call, const Bindings& caller) const {
  Bindings b;
  std::vector<std::string> args = SplitTopLevel(Substitute(call.template_args, caller));
  for (size_t i = 0; i < callee.template_params.size() && i < args.size(); ++i)
    b[callee.template_params[i]] = StripSpaces(args[i]);
  return b;
}

unsigned CodeIndex::ControlCore(const FunctionDef& f, int block, const Bindings& bindings) const {
  const Block& b = f.cs->blocks[static_cast<size_t>(block)];
  if (b.kind != BlockKind::kControl) return kCoreNone;
  if (b.name == "else") {
    if (b.else_of < 0) return kCoreNone;
    unsigned c = ControlCore(f, b.else_of, bindings);
    return c == kCoreBoth ? kCoreDead : c == kCoreDead ? kCoreBoth : FlipCore(c);
  }
  if (b.name != "if") return kCoreNone;
  std::string cond = StripSpaces(Substitute(JoinTokens(f.file->lex.tokens, b.head_begin, b.head_end), bindings));
  // `CORE_TYPE == AscendC::AIV` with CORE_TYPE bound: decided for this instantiation.
  for (std::string op : {"==", "!="}) {
    size_t p = cond.find(op);
    if (p == std::string::npos) continue;
    unsigned l = CoreOfText(cond.substr(0, p)), r = CoreOfText(cond.substr(p + 2));
    if (l != kCoreNone && r != kCoreNone) {
      bool taken = (l == r) == (op == "==");
      return taken ? kCoreBoth : kCoreDead;
    }
  }
  return CoreOfText(cond);
}

std::string CodeIndex::ControlRole(const FunctionDef& f, int block, size_t token) const {
  const Block& b = f.cs->blocks[static_cast<size_t>(block)];
  if (b.kind != BlockKind::kControl || (b.name != "if" && b.name != "switch")) return "";
  const auto& t = f.file->lex.tokens;
  std::string cond = JoinTokens(t, b.head_begin, b.head_end);
  bool role = false;
  for (const char* hint : {"Role", "role", "aivIdx", "AivIdx", "SubBlockIdx", "subBlockIdx", "GetBlockIdx", "coreIdx"})
    role = role || cond.find(hint) != std::string::npos;
  if (!role) return "";
  auto last_ident = [&](size_t from, size_t to) {
    std::string s;
    for (size_t k = from; k < to && k < t.size(); ++k)
      if (Code(t[k]) && t[k].kind == TokenKind::kIdentifier) s = t[k].text;
    return KebabCase(s);
  };
  if (b.name == "switch") {
    size_t label = 0;
    for (size_t k = b.open + 1; k < token && k < t.size(); ++k)
      if (Code(t[k]) && t[k].Is("case") && f.cs->InnermostBlock(k) == block) label = k;
    if (label == 0) return "";
    // The label ends at the first ':' that is not part of a '::' (case AivRole::kSend:).
    for (size_t k = label; k < token; ++k)
      if (t[k].Is(":") && !(k + 1 < t.size() && t[k + 1].Is(":")) && !(k > 0 && t[k - 1].Is(":")))
        return last_ident(label, k);
    return "";
  }
  for (size_t k = b.head_begin; k < b.head_end; ++k)
    if (t[k].Is("==")) return last_ident(k, b.head_end);
  return last_ident(b.head_begin, b.head_end);
}

unsigned CodeIndex::RegionCore(const SourceFile* f, int line) const {
  auto it = regions_.find(f);
  if (it == regions_.end()) return kCoreNone;
  for (const Region& r : it->second)
    if (line > r.first && line < r.last) return r.core;
  return kCoreNone;
}

}  // namespace optrace::source
