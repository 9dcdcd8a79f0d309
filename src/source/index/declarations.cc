// The declaration reader (declarations.h). About 710 lines: one recursive-descent walk over the
// scopes, whose cases share its cursor and scope stack.
#include "source/index/declarations.h"
#include "source/index/core_types.h"

#include <cctype>

namespace optrace::source::index {
namespace {

bool OneOf(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list)
    if (s == x) return true;
  return false;
}

// An identifier spelled like a macro (CATLASS_DEVICE, FORCE_INLINE_AICORE): in a declaration
// head it is an attribute or specifier macro, not the return type.
bool LooksLikeMacro(std::string_view s) {
  bool upper = false;
  for (char c : s) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    if (std::isupper(static_cast<unsigned char>(c))) upper = true;
  }
  return upper && s.size() > 1;
}

bool IsReserved(std::string_view s) { return s.size() > 4 && s.starts_with("__") && s.ends_with("__"); }

}  // namespace

std::vector<TemplateParam> ParseTemplateParams(const TokenStream& s, size_t lt, size_t gt) {
  std::vector<TemplateParam> out;
  size_t start = lt + 1;
  for (size_t i = lt + 1; i <= gt && i < s.size(); ++i) {
    bool end = i == gt || s.Is(i, ",");
    if (!end) {
      if (s.Is(i, "<")) {
        size_t m = s.MatchAngle(i);
        if (m < gt) i = m;
      } else if (s.Is(i, "(") || s.Is(i, "[") || s.Is(i, "{")) {
        size_t m = s.Match(i);
        if (m < gt) i = m;
      }
      continue;
    }
    size_t b = start, e = i;
    start = i + 1;
    if (b >= e) continue;
    TemplateParam p;
    size_t eq = e;
    for (size_t k = b; k < e; ++k) {
      if (s.Is(k, "<")) {
        size_t m = s.MatchAngle(k);
        if (m < e) k = m;
        continue;
      }
      if (s.Is(k, "(")) {
        size_t m = s.Match(k);
        if (m < e) k = m;
        continue;
      }
      if (s.Is(k, "=")) {
        eq = k;
        break;
      }
    }
    if (eq < e) p.default_arg = ParseTypeName(s, eq + 1, e);
    // The name: the last identifier before the default.
    size_t name = eq;
    for (size_t k = eq; k > b; --k) {
      if (s.IsIdent(k - 1)) {
        name = k - 1;
        break;
      }
      if (!s.Is(k - 1, "...")) break;
    }
    for (size_t k = b; k < eq; ++k)
      if (s.Is(k, "...")) p.pack = true;
    // `template <class> class TT`, `typename T`, `class T`: type parameters.
    bool type_kw = s.Is(b, "class") || s.Is(b, "typename") || s.Is(b, "template");
    p.is_type = type_kw;
    if (name < eq && !(type_kw && name == b)) {
      p.name = std::string(s.Text(name));
      if (!type_kw) p.type_text = s.Join(b, name);
    } else if (!type_kw) {
      p.type_text = s.Join(b, eq);
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Param> ParseParams(const TokenStream& s, size_t open, size_t close, bool* variadic) {
  std::vector<Param> out;
  size_t start = open + 1;
  for (size_t i = open + 1; i <= close && i < s.size(); ++i) {
    bool end = i == close || s.Is(i, ",");
    if (!end) {
      if (s.Is(i, "<")) {
        size_t m = s.MatchAngle(i);
        if (m < close) i = m;
      } else if (s.Is(i, "(") || s.Is(i, "[") || s.Is(i, "{")) {
        size_t m = s.Match(i);
        if (m < close) i = m;
      }
      continue;
    }
    size_t b = start, e = i;
    start = i + 1;
    if (b >= e) continue;
    if (e == b + 1 && s.Is(b, "void")) continue;
    if (s.Is(b, "...") && e == b + 1) {
      if (variadic) *variadic = true;
      continue;
    }
    Param p;
    size_t eq = e;
    for (size_t k = b; k < e; ++k) {
      if (s.Is(k, "<")) {
        size_t m = s.MatchAngle(k);
        if (m < e) k = m;
        continue;
      }
      if (s.Is(k, "(") || s.Is(k, "[")) {
        size_t m = s.Match(k);
        if (m < e) k = m;
        continue;
      }
      if (s.Is(k, "=")) {
        eq = k;
        break;
      }
    }
    p.has_default = eq < e;
    size_t tend = eq;
    while (tend > b && s.Is(tend - 1, "]")) {  // array parameter `T a[N]`
      size_t m = s.Match(tend - 1);
      if (m >= tend) break;
      tend = m;
    }
    if (tend > b + 1 && s.IsIdent(tend - 1) && !IsSpecifierKeyword(s.Text(tend - 1)) &&
        !OneOf(s.Text(tend - 1), {"int", "float", "double", "char", "bool", "long", "short", "half"})) {
      p.name = std::string(s.Text(tend - 1));
      --tend;
    }
    // Leading attributes / address-space qualifiers are not part of the type.
    size_t tb = b;
    while (tb < tend && (IsReserved(s.Text(tb)) || s.Is(tb, "const"))) ++tb;
    p.type_text = s.Join(tb, tend);
    p.type = ParseTypeName(s, tb, tend);
    for (size_t k = b; k < tend; ++k)
      if (s.Is(k, "...") && variadic) *variadic = true;
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

struct Ctx {
  std::vector<std::string> scope;
  ClassDef* cls = nullptr;
};

class DeclParser {
 public:
  DeclParser(const TokenStream& s, Declarations* out) : s_(s), out_(out) {}

  void Run() { ParseScope(0, s_.size(), Ctx{}); }

 private:
  size_t End() const { return s_.size(); }

  // Position after the ';' ending the declaration at i (brackets skipped), stopping before an
  // unbalanced '}' (end of the enclosing scope) or at e.
  size_t SkipDeclaration(size_t i, size_t e) const {
    for (; i < e; ++i) {
      std::string_view x = s_.Text(i);
      if (x == ";") return i + 1;
      if (x == "}") return i;
      if (x == "(" || x == "[" || x == "{") {
        size_t m = s_.Match(i);
        if (m >= e) return e;
        i = m;
      }
    }
    return e;
  }

  // '<' matching the '>' at gt, going backwards, or End().
  size_t MatchAngleBack(size_t gt, size_t lo) const {
    int depth = 0;
    for (size_t i = gt + 1; i-- > lo;) {
      std::string_view x = s_.Text(i);
      if (x == ">") ++depth;
      if (x == "<" && --depth == 0) return i;
      if (x == ")" || x == "]") {
        size_t m = s_.Match(i);
        if (m >= End() || m < lo) return End();
        i = m;
      }
      if (x == ";" || x == "{" || x == "}") return End();
    }
    return End();
  }

  size_t SkipAttributes(size_t i, size_t e) const {
    while (i < e) {
      if (s_.Is(i, "[") && s_.Is(i + 1, "[")) {
        size_t m = s_.Match(i);
        if (m >= e) return i;
        i = m + 1;
      } else if ((s_.Is(i, "__attribute__") || s_.Is(i, "alignas") || s_.Is(i, "__declspec")) && s_.Is(i + 1, "(")) {
        size_t m = s_.Match(i + 1);
        if (m >= e) return i;
        i = m + 1;
      } else if (s_.Is(i, "[") && s_.IsIdent(i + 1)) {
        // Bisheng-style `[aicore]` / `[host, aicore]` function attributes.
        size_t m = s_.Match(i);
        bool plain = m < e;
        for (size_t k = i + 1; plain && k < m; ++k) plain = s_.IsIdent(k) || s_.Is(k, ",");
        if (!plain) return i;
        i = m + 1;
      } else {
        return i;
      }
    }
    return i;
  }

  void ParseScope(size_t b, size_t e, const Ctx& ctx) {
    std::vector<TemplateParam> pending;
    bool has_template = false, explicit_spec = false;
    size_t i = b;
    while (i < e) {
      i = SkipAttributes(i, e);
      if (i >= e) break;
      std::string_view x = s_.Text(i);
      if (x == ";" || x == "}") {
        ++i;
        continue;
      }
      if ((x == "public" || x == "private" || x == "protected") && s_.Is(i + 1, ":")) {
        i += 2;
        continue;
      }
      if (x == "template" && s_.Is(i + 1, "<")) {
        size_t gt = s_.MatchAngle(i + 1);
        if (gt >= e) {
          i = SkipDeclaration(i, e);
          continue;
        }
        if (gt == i + 2) explicit_spec = true;
        std::vector<TemplateParam> ps = ParseTemplateParams(s_, i + 1, gt);
        pending.insert(pending.end(), ps.begin(), ps.end());
        has_template = true;
        i = gt + 1;
        continue;
      }
      size_t next = Declaration(i, e, ctx, pending, has_template, explicit_spec);
      pending.clear();
      has_template = explicit_spec = false;
      i = next > i ? next : i + 1;
    }
  }

  size_t Declaration(size_t i, size_t e, const Ctx& ctx, const std::vector<TemplateParam>& tparams, bool templ,
                     bool explicit_spec) {
    std::string_view x = s_.Text(i);
    if (x == "namespace") return Namespace(i, e, ctx);
    if (x == "using") return Using(i, e, ctx);
    if (x == "typedef") return Typedef(i, e, ctx);
    if (x == "static_assert" || x == "friend" || x == "asm" || x == "__asm__") return SkipDeclaration(i, e);
    if (x == "extern" && s_.IsKind(i + 1, TokenKind::kString) && s_.Is(i + 2, "{")) {
      size_t m = s_.Match(i + 2);
      if (m >= e) return e;
      ParseScope(i + 3, m, ctx);
      return m + 1;
    }
    // Skip leading specifiers to see a class key.
    size_t k = i;
    while (k < e && (OneOf(s_.Text(k), {"inline", "static", "constexpr", "extern", "const", "volatile"}) ||
                     IsReserved(s_.Text(k)) || (s_.IsIdent(k) && LooksLikeMacro(s_.Text(k)) && s_.IsIdent(k + 1)))) {
      ++k;
    }
    k = SkipAttributes(k, e);
    if (k < e && OneOf(s_.Text(k), {"class", "struct", "union"})) return Class(i, k, e, ctx, tparams, templ, explicit_spec);
    if (k < e && s_.Is(k, "enum")) return SkipDeclaration(i, e);
    return FunctionOrVariable(i, e, ctx, tparams, templ, explicit_spec);
  }

  size_t Namespace(size_t i, size_t e, const Ctx& ctx) {
    size_t k = i + 1;
    std::vector<std::string> names;
    while (k < e && (s_.IsIdent(k) || s_.Is(k, "::"))) {
      if (s_.IsIdent(k) && !s_.Is(k, "inline")) names.push_back(std::string(s_.Text(k)));
      ++k;
    }
    if (s_.Is(k, "=")) return SkipDeclaration(i, e);  // namespace alias
    if (!s_.Is(k, "{")) return SkipDeclaration(i, e);
    size_t m = s_.Match(k);
    if (m > e) m = e;
    Ctx inner = ctx;
    for (auto& n : names) inner.scope.push_back(n);
    ParseScope(k + 1, m, inner);
    return m + 1;
  }

  void AddAlias(const Ctx& ctx, std::string name, TypeName target) {
    if (name.empty() || target.Empty()) return;
    if (ctx.cls) {
      ctx.cls->aliases[name] = std::move(target);
      return;
    }
    out_->aliases.push_back({std::move(name), ctx.scope, std::move(target)});
  }

  size_t Using(size_t i, size_t e, const Ctx& ctx) {
    size_t end = SkipDeclaration(i, e);
    if (s_.Is(i + 1, "namespace")) return end;
    if (s_.IsIdent(i + 1) && s_.Is(i + 2, "=")) {
      size_t semi = end > i && s_.Is(end - 1, ";") ? end - 1 : end;
      AddAlias(ctx, std::string(s_.Text(i + 1)), ParseTypeName(s_, i + 3, semi));
    }
    return end;
  }

  size_t Typedef(size_t i, size_t e, const Ctx& ctx) {
    size_t k = i + 1;
    while (k < e && OneOf(s_.Text(k), {"struct", "class", "union", "enum"})) ++k;
    if (k < e && s_.IsIdent(k) && s_.Is(k + 1, "{")) ++k;
    if (s_.Is(k, "{")) {  // typedef struct { ... } Name;
      size_t m = s_.Match(k);
      return m >= e ? e : SkipDeclaration(m + 1, e);
    }
    size_t end = SkipDeclaration(i, e);
    size_t semi = end > i && s_.Is(end - 1, ";") ? end - 1 : end;
    if (semi > k + 1 && s_.IsIdent(semi - 1) && !s_.Is(semi - 2, ")"))
      AddAlias(ctx, std::string(s_.Text(semi - 1)), ParseTypeName(s_, i + 1, semi - 1));
    return end;
  }

  size_t Class(size_t start, size_t key, size_t e, const Ctx& ctx, const std::vector<TemplateParam>& tparams,
               bool templ, bool explicit_spec) {
    size_t k = SkipAttributes(key + 1, e);
    // The name is the last identifier before '<', ':', '{', ';' or `final` (skips export macros).
    size_t name = End();
    while (k < e && s_.IsIdent(k) && !s_.Is(k, "final")) {
      name = k;
      ++k;
      k = SkipAttributes(k, e);
      if (s_.Is(k, "::") && s_.IsIdent(k + 1)) {  // struct Outer::Inner
        ++k;
        continue;
      }
      // `class EXPORT_MACRO Name`: only a macro-like word is skipped; `struct S var {..}` is a variable.
      if (!(s_.IsIdent(k) && LooksLikeMacro(s_.Text(name)))) break;
    }
    if (s_.IsIdent(k) && !s_.Is(k, "final")) return SkipDeclaration(start, e);  // `struct S var ...;`
    std::vector<TypeName> spec;
    bool specialized = false;
    if (name < End() && s_.Is(k, "<")) {
      size_t gt = s_.MatchAngle(k);
      if (gt >= e) return SkipDeclaration(start, e);
      spec = ParseTemplateArgs(s_, k, gt);
      specialized = true;
      k = gt + 1;
    }
    if (s_.Is(k, "final")) ++k;
    std::vector<TypeName> bases;
    if (s_.Is(k, ":")) {
      size_t b = k + 1;
      for (++k; k < e && !s_.Is(k, "{") && !s_.Is(k, ";"); ++k) {
        if (s_.Is(k, "<")) {
          size_t m = s_.MatchAngle(k);
          if (m < e) k = m;
          continue;
        }
        if (s_.Is(k, "(")) {
          size_t m = s_.Match(k);
          if (m < e) k = m;
          continue;
        }
        if (s_.Is(k, ",")) {
          AddBase(b, k, &bases);
          b = k + 1;
        }
      }
      AddBase(b, k, &bases);
    }
    if (!s_.Is(k, "{") || name >= End()) return SkipDeclaration(start, e);  // forward declaration or variable
    size_t close = s_.Match(k);
    if (close > e) close = e;
    auto c = std::make_unique<ClassDef>();
    c->id = static_cast<int>(out_->classes.size());
    c->name = std::string(s_.Text(name));
    c->scope = ctx.scope;
    c->outer = ctx.cls;
    c->tparams = tparams;
    c->specialization = specialized || (templ && explicit_spec);
    c->spec_args = std::move(spec);
    c->bases = std::move(bases);
    c->stream = &s_;
    c->open = k;
    c->close = close;
    c->file = s_[name].file;
    c->line = s_[name].line;
    ClassDef* raw = c.get();
    out_->classes.push_back(std::move(c));
    Ctx inner = ctx;
    inner.scope.push_back(raw->name);
    inner.cls = raw;
    ParseScope(k + 1, close, inner);
    // `struct X {...} x;`: declarators after the body.
    if (close >= e) return e;
    return SkipDeclaration(close + 1, e);
  }

  void AddBase(size_t b, size_t e, std::vector<TypeName>* bases) {
    while (b < e && OneOf(s_.Text(b), {"public", "private", "protected", "virtual"})) ++b;
    if (b < e) bases->push_back(ParseTypeName(s_, b, e));
  }

  // Finds the first top-level '(' that follows a name, or the token that ends the head.
  size_t HeadStop(size_t i, size_t e) const {
    for (size_t k = i; k < e; ++k) {
      std::string_view x = s_.Text(k);
      if (x == "(" || x == "{" || x == ";" || x == "=" || x == "[" || x == "}") return k;
      if (x == ":" ) return k;
      if (IsParenthesizedSpecifier(x) && k + 1 < e && s_.Is(k + 1, "(")) {  // __mix__(1, 2), __attribute__((...))
        size_t m = s_.Match(k + 1);
        if (m < e) {
          k = m;
          continue;
        }
      }
      if (x == "<" && k > i && (s_.IsIdent(k - 1) || s_.Is(k - 1, ")"))) {
        size_t m = s_.MatchAngle(k);
        if (m < e) {
          k = m;
          continue;
        }
      }
      if (x == "operator") {
        // operator() / operator[] / operator== ...: the '(' after the symbol (and after
        // explicit specialisation arguments) opens the parameter list.
        size_t n = k + 1;
        if ((s_.Is(n, "(") && s_.Is(n + 1, ")")) || (s_.Is(n, "[") && s_.Is(n + 1, "]"))) {
          n += 2;
        } else {
          while (n < e && !s_.Is(n, "(") && !s_.Is(n, "<") && !s_.Is(n, ";") && !s_.Is(n, "{")) ++n;
        }
        if (s_.Is(n, "<")) {
          size_t m = s_.MatchAngle(n);
          if (m < e) n = m + 1;
        }
        return n;
      }
    }
    return e;
  }

  size_t FunctionOrVariable(size_t i, size_t e, const Ctx& ctx, const std::vector<TemplateParam>& tparams, bool templ,
                            bool explicit_spec) {
    size_t p = HeadStop(i, e);
    if (p >= e) return e;
    if (!s_.Is(p, "(")) return Variable(i, p, e, ctx);
    size_t close = s_.Match(p);
    if (close >= e) return SkipDeclaration(i, e);
    // The function name before '('.
    size_t q = p;
    std::vector<TypeName> spec;
    bool has_spec = false;
    std::string name;
    size_t name_pos = End();
    if (q > i && s_.Is(q - 1, ">")) {
      size_t lt = MatchAngleBack(q - 1, i);
      if (lt >= End() || lt <= i) return SkipDeclaration(i, e);
      spec = ParseTemplateArgs(s_, lt, q - 1);
      has_spec = true;
      q = lt;
    }
    if (q >= i + 3 && s_.Is(q - 1, ")") && s_.Is(q - 2, "(") && s_.Is(q - 3, "operator")) {
      name = "operator()";
      name_pos = q - 3;
    } else if (q >= i + 3 && s_.Is(q - 1, "]") && s_.Is(q - 2, "[") && s_.Is(q - 3, "operator")) {
      name = "operator[]";
      name_pos = q - 3;
    } else if (q >= i + 2 && s_.Is(q - 2, "operator")) {
      name = "operator" + std::string(s_.Text(q - 1));
      name_pos = q - 2;
    } else if (q >= i + 1 && s_.IsIdent(q - 1)) {
      name = std::string(s_.Text(q - 1));
      name_pos = q - 1;
      if (name_pos > i && s_.Is(name_pos - 1, "~")) {
        name = "~" + name;
        --name_pos;
      }
    } else {
      return SkipDeclaration(i, e);
    }
    if (IsStatementKeyword(name) && name != "operator") return SkipDeclaration(i, e);
    // Qualifier: A<T>::B:: before the name.
    size_t qs = name_pos;
    while (qs >= i + 2 && s_.Is(qs - 1, "::")) {
      size_t r = qs - 2;
      if (s_.Is(r, ">")) {
        size_t lt = MatchAngleBack(r, i);
        if (lt >= End() || lt == 0) break;
        r = lt - 1;
      }
      if (!s_.IsIdent(r)) break;
      qs = r;
    }
    TypeName qualifier;
    if (qs < name_pos) qualifier = ParseTypeName(s_, qs, name_pos - 1);
    // After ')': qualifiers, then the body, a declaration end, or a constructor init list.
    size_t a = close + 1;
    while (a < e) {
      std::string_view x = s_.Text(a);
      if (OneOf(x, {"const", "volatile", "override", "final", "&", "&&", "mutable"}) || IsReserved(x)) {
        ++a;
      } else if ((x == "noexcept" || x == "throw" || x == "__attribute__") && s_.Is(a + 1, "(")) {
        size_t m = s_.Match(a + 1);
        a = m >= e ? e : m + 1;
      } else if (x == "noexcept") {
        ++a;
      } else if (x == "->") {  // trailing return type
        ++a;
        while (a < e && !s_.Is(a, "{") && !s_.Is(a, ";")) {
          if (s_.Is(a, "<")) {
            size_t m = s_.MatchAngle(a);
            if (m < e) a = m;
          }
          ++a;
        }
      } else {
        break;
      }
    }
    // Head tokens before the qualified name: specifiers and the return type.
    bool kernel = false, is_static = false, has_void = false, has_type = false;
    unsigned qualified_cores = 0;
    size_t type_b = End(), type_e = End();
    for (size_t k = i; k < qs; ++k) {
      std::string_view x = s_.Text(k);
      if (x == "__global__") kernel = true;
      if (x == "__vector__") qualified_cores |= kCoreAiv;
      if (x == "__cube__") qualified_cores |= kCoreAic;
      if (x == "__mix__") qualified_cores |= kCoreBoth;
      if (x == "static") is_static = true;
      if (IsParenthesizedSpecifier(x) && k + 1 < qs && s_.Is(k + 1, "(")) {
        size_t m = s_.Match(k + 1);
        if (m < qs) k = m;
        continue;
      }
      if (s_[k].tok->kind == TokenKind::kString) continue;
      if (IsSpecifierKeyword(x) || IsReserved(x) || (s_.IsIdent(k) && LooksLikeMacro(x) && k + 1 < qs)) continue;
      if (s_.Is(k, "[")) {  // [aicore]
        size_t m = s_.Match(k);
        if (m < qs) k = m;
        continue;
      }
      if (x == "void" && !(k + 1 < qs && s_.Is(k + 1, "*"))) has_void = true;
      if (type_b == End()) type_b = k;
      type_e = k + 1;
      has_type = true;
    }
    std::string owner_name = qualifier.parts.empty() ? (ctx.cls ? ctx.cls->name : "") : qualifier.Last();
    bool ctor = !name.empty() && name == owner_name;
    bool dtor = !name.empty() && name[0] == '~';
    bool is_operator = name.rfind("operator", 0) == 0;
    if (!has_type && !ctor && !dtor && !is_operator) {
      // `MACRO(args)` at scope: an invocation, not a function (its braces, if any, are skipped).
      if (s_.Is(a, "{")) {
        size_t m = s_.Match(a);
        return m >= e ? e : m + 1;
      }
      return s_.Is(a, ";") ? a + 1 : close + 1;
    }
    if (s_.Is(a, "=")) return SkipDeclaration(i, e);  // = 0 / = default / = delete
    size_t body = End();
    if (s_.Is(a, "{")) {
      body = a;
    } else if (s_.Is(a, ":") && (ctor || !qualifier.parts.empty())) {
      // Constructor initializer list: name(...) or name{...}, separated by commas.
      size_t k = a + 1;
      while (k < e) {
        while (k < e && (s_.IsIdent(k) || s_.Is(k, "::"))) ++k;
        if (s_.Is(k, "<")) {
          size_t m = s_.MatchAngle(k);
          if (m < e) k = m + 1;
        }
        if (!s_.Is(k, "(") && !s_.Is(k, "{")) break;
        size_t m = s_.Match(k);
        if (m >= e) break;
        k = m + 1;
        if (s_.Is(k, ",")) {
          ++k;
          continue;
        }
        if (s_.Is(k, "{")) body = k;
        break;
      }
    } else if (s_.Is(a, ";") || s_.Is(a, "}")) {
      if (ctx.cls) ctx.cls->declared.emplace(name, tparams);  // a declared-only method
      return s_.Is(a, ";") ? a + 1 : a;
    }
    if (body >= End()) return SkipDeclaration(i, e);
    size_t body_close = s_.Match(body);
    if (body_close >= End()) return e;
    auto f = std::make_unique<FunctionDef>();
    f->id = static_cast<int>(out_->functions.size());
    f->name = name;
    f->scope = ctx.scope;
    f->qualifier = qualifier;
    f->tparams = tparams;
    f->specialization = has_spec && (explicit_spec || templ || ctx.cls);
    if (has_spec) f->spec_args = std::move(spec);
    bool variadic = false;
    f->params = ParseParams(s_, p, close, &variadic);
    f->variadic = variadic;
    if (type_b < type_e) f->return_type = ParseTypeName(s_, type_b, type_e);
    f->returns_void = has_void || ctor || dtor;
    f->is_kernel = kernel;
    f->qualified_cores = qualified_cores;
    f->is_ctor = ctor;
    f->is_dtor = dtor;
    f->is_static = is_static;
    f->stream = &s_;
    f->name_pos = name_pos;
    f->params_open = p;
    f->params_close = close;
    f->body_open = body;
    f->body_close = body_close;
    f->file = s_[name_pos].file;
    f->line = s_[name_pos].line;
    f->column = s_[name_pos].column;
    f->macro = s_[name_pos].macro;
    if (ctx.cls && qualifier.parts.empty()) f->owner = ctx.cls;
    if (!qualifier.parts.empty() && qualifier.parts.back().templated) {
      for (const TypeName& arg : qualifier.parts.back().args)
        f->owner_param_names.push_back(arg.IsValue() ? arg.value : arg.Last());
    }
    if (f->owner) const_cast<ClassDef*>(f->owner)->methods.emplace(f->name, f.get());
    out_->functions.push_back(std::move(f));
    return body_close + 1;
  }

  // A variable or field declaration ending at ';'; fields of a class are recorded with their type.
  size_t Variable(size_t i, size_t /*stop*/, size_t e, const Ctx& ctx) {
    size_t end = SkipDeclaration(i, e);
    if (!ctx.cls) return end;
    // Declarators: the identifier before '=', '{', '[', ',', ';' or ':' at top level.
    size_t type_b = i;
    while (type_b < end && (OneOf(s_.Text(type_b), {"static", "constexpr", "inline", "mutable", "const", "volatile"}) ||
                             IsReserved(s_.Text(type_b)))) {
      ++type_b;
    }
    // The first declarator: an identifier after the type, followed by one of , ; = { [ :
    size_t name = End();
    for (size_t k = type_b + 1; k < end; ++k) {
      if (s_.Is(k, "<")) {
        size_t m = s_.MatchAngle(k);
        if (m < end) k = m;
        continue;
      }
      if (s_.IsIdent(k) && (s_.Is(k + 1, ",") || s_.Is(k + 1, ";") || s_.Is(k + 1, "=") || s_.Is(k + 1, "{") ||
                            s_.Is(k + 1, "[") || s_.Is(k + 1, ":"))) {
        name = k;
        break;
      }
      if (s_.Is(k, "(") || s_.Is(k, "{") || s_.Is(k, ";")) break;
    }
    if (name >= end) return end;
    TypeName type = ParseTypeName(s_, type_b, name);
    if (type.IsValue()) return end;
    ctx.cls->fields[std::string(s_.Text(name))] = type;
    // More declarators: `T a, b;`
    for (size_t k = name + 1; k < end; ++k) {
      if (s_.Is(k, "(") || s_.Is(k, "{") || s_.Is(k, "[")) {
        size_t m = s_.Match(k);
        if (m < end) k = m;
        continue;
      }
      if (s_.Is(k, ",") && s_.IsIdent(k + 1)) ctx.cls->fields[std::string(s_.Text(k + 1))] = type;
    }
    return end;
  }

  const TokenStream& s_;
  Declarations* out_;
};

}  // namespace

void ParseDeclarations(const TokenStream& stream, Declarations* out) { DeclParser(stream, out).Run(); }

std::string ClassDef::QualifiedName() const {
  std::string s;
  for (const std::string& p : scope) {
    if (p.empty()) continue;
    s += p + "::";
  }
  return s + name;
}

std::string FunctionDef::DisplayName() const {
  std::string s;
  if (owner) s = owner->name + "::";
  else if (!qualifier.parts.empty()) s = qualifier.Last() + "::";
  s += name;
  if (!spec_args.empty()) {
    s += "<";
    for (size_t i = 0; i < spec_args.size(); ++i) s += (i ? ", " : "") + spec_args[i].Str();
    s += ">";
  }
  return s;
}

size_t FunctionDef::MinArgs() const {
  size_t n = 0;
  for (const Param& p : params)
    if (!p.has_default) ++n;
  return n;
}

size_t FunctionDef::MaxArgs() const { return variadic ? static_cast<size_t>(-1) : params.size(); }

}  // namespace optrace::source::index
