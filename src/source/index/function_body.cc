#include "source/index/function_body.h"

#include <algorithm>

#include "source/index/declarations.h"

namespace optrace::source::index {
namespace {

bool OneOf(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list)
    if (s == x) return true;
  return false;
}

// Words that are followed by '(' without being calls.
bool NotACall(std::string_view s) {
  return IsStatementKeyword(s) || OneOf(s, {"decltype", "alignas", "__attribute__", "noexcept", "typeid", "defined",
                                            "__builtin_expect", "int", "float", "double", "char", "bool", "long",
                                            "short", "unsigned", "signed", "void", "auto", "const", "volatile"});
}

class BodyParser {
 public:
  BodyParser(const FunctionDef& fn, FunctionBody* body, std::vector<std::unique_ptr<FunctionDef>>* lambdas)
      : fn_(fn), s_(*fn.stream), b_(*body), lambdas_(lambdas) {}

  void Run() {
    // Parameters are locals of the whole body (for index-argument and object types).
    if (fn_.body_close <= fn_.body_open) return;
    ParseBlock(fn_.body_open + 1, fn_.body_close, -1, false);
  }

 private:
  int AddControl(Control::Kind kind, int parent, size_t keyword) {
    Control c;
    c.kind = kind;
    c.parent = parent;
    c.keyword = keyword;
    c.line = s_[keyword].line;
    b_.controls.push_back(c);
    return static_cast<int>(b_.controls.size()) - 1;
  }

  // Statements in [b, e). In a switch body, `case X:` / `default:` open a kCase control that
  // holds the statements up to the next label.
  void ParseBlock(size_t b, size_t e, int parent, bool switch_body) {
    // Blocks nested deeper than any real kernel are left unread: the parser recurses per level
    // (80,000 nested braces overflowed the stack; issue 29.10).
    if (depth_ >= kMaxBlockDepth) return;
    ++depth_;
    ParseStatements(b, e, parent, switch_body);
    --depth_;
  }

  void ParseStatements(size_t b, size_t e, int parent, bool switch_body) {
    int current = parent;
    size_t i = b;
    while (i < e) {
      if (switch_body && (s_.Is(i, "case") || s_.Is(i, "default"))) {
        size_t colon = i + 1;
        for (; colon < e; ++colon) {
          if (s_.Is(colon, ":") ) break;
          if (s_.Is(colon, "(")) {
            size_t m = s_.Match(colon);
            if (m < e) colon = m;
          }
        }
        if (current != parent) b_.controls[static_cast<size_t>(current)].body_end = i > 0 ? i - 1 : i;
        current = AddControl(Control::kCase, parent, i);
        Control& c = b_.controls[static_cast<size_t>(current)];
        c.head_begin = i + 1;
        c.head_end = colon;
        c.body_begin = colon + 1;
        c.body_end = e > 0 ? e - 1 : e;
        i = colon + 1;
        continue;
      }
      size_t next = Statement(i, e, current);
      i = next > i ? next : i + 1;
    }
  }

  // Parses the statement controlled by control c starting at i; sets its body range.
  size_t Sub(size_t i, size_t e, int c) {
    Control* ctl = &b_.controls[static_cast<size_t>(c)];
    if (i >= e) {
      ctl->body_begin = ctl->body_end = e > 0 ? e - 1 : 0;
      return e;
    }
    if (s_.Is(i, "{")) {
      size_t m = s_.Match(i);
      if (m > e) m = e;
      ctl->braced = true;
      ctl->body_begin = i;
      ctl->body_end = m;
      ParseBlock(i + 1, m, c, ctl->kind == Control::kSwitch);
      return m + 1;
    }
    size_t next = Statement(i, e, c);
    ctl = &b_.controls[static_cast<size_t>(c)];
    ctl->body_begin = i;
    ctl->body_end = next > i ? next - 1 : i;
    return next;
  }

  // The ';' ending a simple statement at i (brackets skipped), or e.
  size_t StatementEnd(size_t i, size_t e) const {
    for (size_t k = i; k < e; ++k) {
      if (s_.Is(k, ";")) return k;
      if (s_.Is(k, "(") || s_.Is(k, "[") || s_.Is(k, "{")) {
        size_t m = s_.Match(k);
        if (m >= e) return e;
        k = m;
      }
      if (s_.Is(k, "}")) return k;
    }
    return e;
  }

  size_t Statement(size_t i, size_t e, int parent) {
    std::string_view x = s_.Text(i);
    if (x == ";") return i + 1;
    if (x == "{") {
      int c = AddControl(Control::kBlock, parent, i);
      return Sub(i, e, c);
    }
    if (x == "if") {
      int c = AddControl(Control::kIf, parent, i);
      size_t k = i + 1;
      if (s_.Is(k, "constexpr")) {
        b_.controls[static_cast<size_t>(c)].is_constexpr = true;
        ++k;
      }
      size_t after = k;
      if (s_.Is(k, "(")) {
        size_t m = s_.Match(k);
        if (m >= e) return e;
        b_.controls[static_cast<size_t>(c)].head_begin = k + 1;
        b_.controls[static_cast<size_t>(c)].head_end = m;
        Expression(k + 1, m, c);
        after = m + 1;
      } else if (s_.IsIdent(k)) {  // `if ASCEND_IS_AIV {`: the macro supplies the parentheses
        b_.controls[static_cast<size_t>(c)].head_begin = k;
        b_.controls[static_cast<size_t>(c)].head_end = k + 1;
        after = k + 1;
      }
      size_t next = Sub(after, e, c);
      if (s_.Is(next, "else")) {
        int el = AddControl(Control::kElse, parent, next);
        b_.controls[static_cast<size_t>(el)].else_of = c;
        if (s_.Is(next + 1, "if")) {
          size_t n2 = Sub(next + 1, e, el);
          // The `if` of `else if` continues the chain.
          for (size_t k2 = static_cast<size_t>(el) + 1; k2 < b_.controls.size(); ++k2) {
            if (b_.controls[k2].parent == el && b_.controls[k2].kind == Control::kIf) {
              b_.controls[k2].else_of = c;
              break;
            }
          }
          return n2;
        }
        return Sub(next + 1, e, el);
      }
      return next;
    }
    if (x == "for" || x == "while" || x == "switch") {
      Control::Kind kind = x == "for" ? Control::kFor : x == "while" ? Control::kWhile : Control::kSwitch;
      int c = AddControl(kind, parent, i);
      if (!s_.Is(i + 1, "(")) return StatementEnd(i, e) + 1;
      size_t m = s_.Match(i + 1);
      if (m >= e) return e;
      b_.controls[static_cast<size_t>(c)].head_begin = i + 2;
      b_.controls[static_cast<size_t>(c)].head_end = m;
      if (kind == Control::kFor) ForHeader(i + 2, m, c);
      else Expression(i + 2, m, c);
      return Sub(m + 1, e, c);
    }
    if (x == "do") {
      int c = AddControl(Control::kDo, parent, i);
      size_t next = Sub(i + 1, e, c);
      if (s_.Is(next, "while") && s_.Is(next + 1, "(")) {
        size_t m = s_.Match(next + 1);
        if (m >= e) return e;
        b_.controls[static_cast<size_t>(c)].head_begin = next + 2;
        b_.controls[static_cast<size_t>(c)].head_end = m;
        Expression(next + 2, m, c);
        next = m + 1;
        if (s_.Is(next, ";")) ++next;
      }
      return next;
    }
    if (x == "try") {
      int c = AddControl(Control::kTry, parent, i);
      size_t next = Sub(i + 1, e, c);
      while (s_.Is(next, "catch") && s_.Is(next + 1, "(")) {
        size_t m = s_.Match(next + 1);
        if (m >= e) return e;
        int h = AddControl(Control::kBlock, parent, next);
        next = Sub(m + 1, e, h);
      }
      return next;
    }
    if (x == "case" || x == "default") {  // a label outside a switch body we parsed as such
      size_t k = i;
      while (k < e && !s_.Is(k, ":")) ++k;
      return k + 1;
    }
    size_t end = StatementEnd(i, e);
    if (x == "return" || x == "co_return") {
      b_.returns.push_back(i);
      Expression(i + 1, end, parent);
      return end + 1;
    }
    if (x == "break" || x == "continue" || x == "goto") return end + 1;
    if (x == "using" || x == "typedef") {
      LocalAlias(i, end, parent);
      return end + 1;
    }
    if (x == "static_assert") return end + 1;
    if (s_.IsIdent(i) && s_.Is(i + 1, ":") && !s_.Is(i + 2, ":")) return i + 2;  // a label
    ++b_.statements;
    Simple(i, end, parent);
    return end + 1;
  }

  void LocalAlias(size_t i, size_t end, int parent) {
    if (s_.Is(i, "using")) {
      if (s_.IsIdent(i + 1) && s_.Is(i + 2, "=")) {
        LocalDecl d;
        d.name = std::string(s_.Text(i + 1));
        d.type = ParseTypeName(s_, i + 3, end);
        d.control = parent;
        d.pos = i + 1;
        d.is_alias = true;
        b_.locals.push_back(std::move(d));
      }
      return;
    }
    if (end > i + 2 && s_.IsIdent(end - 1)) {
      LocalDecl d;
      d.name = std::string(s_.Text(end - 1));
      d.type = ParseTypeName(s_, i + 1, end - 1);
      d.control = parent;
      d.pos = end - 1;
      d.is_alias = true;
      b_.locals.push_back(std::move(d));
    }
  }

  // A type at i (specifiers, qualified name, template args, then * & const): returns the position
  // after it, or i when there is none.
  size_t TypeAt(size_t i, size_t e) const {
    size_t k = i;
    while (k < e && OneOf(s_.Text(k), {"const", "static", "constexpr", "volatile", "typename", "struct", "class",
                                        "register", "thread_local", "__gm__", "__ubuf__"})) {
      ++k;
    }
    if (s_.Is(k, "::")) ++k;
    if (!s_.IsIdent(k) || IsStatementKeyword(s_.Text(k))) return i;
    while (k < e) {
      if (!s_.IsIdent(k)) return i;
      ++k;
      while (k < e && OneOf(s_.Text(k - 1), {"unsigned", "signed", "long", "short"}) &&
             OneOf(s_.Text(k), {"int", "long", "short", "char"})) {
        ++k;
      }
      if (s_.Is(k, "<")) {
        size_t m = s_.MatchAngle(k);
        if (m >= e) return i;
        k = m + 1;
      }
      if (s_.Is(k, "::")) {
        ++k;
        if (s_.Is(k, "template")) ++k;
        continue;
      }
      break;
    }
    while (k < e && OneOf(s_.Text(k), {"*", "&", "&&", "const", "volatile", "__restrict__", "__gm__"})) ++k;
    return k;
  }

  // A declaration statement `Type a(...), b = ..., c{...};` or an expression statement.
  void Simple(size_t i, size_t end, int parent) {
    size_t t = TypeAt(i, end);
    if (t > i && t < end && s_.IsIdent(t) && !IsStatementKeyword(s_.Text(t)) &&
        OneOf(s_.Text(t + 1), {"(", "{", "=", ";", ",", "[", ":"}) && !s_.Is(t + 1, "::")) {
      // Type at [tb, t): skip leading specifiers for the TypeName.
      TypeName type = ParseTypeName(s_, i, t);
      bool is_auto = !type.IsValue() && type.parts.size() == 1 && type.Last() == "auto";
      size_t k = t;
      while (k < end) {
        if (!s_.IsIdent(k)) break;
        LocalDecl d;
        d.name = std::string(s_.Text(k));
        d.type = type;
        d.control = parent;
        d.pos = k;
        size_t after = k + 1;
        while (s_.Is(after, "[")) {
          size_t m = s_.Match(after);
          if (m >= end) break;
          after = m + 1;
        }
        size_t init_b = after, init_e = after;
        bool construct_args = false;
        if (s_.Is(after, "(") || s_.Is(after, "{")) {
          size_t m = s_.Match(after);
          if (m > end) m = end;
          init_b = after;
          init_e = m + 1;
          construct_args = true;
        } else if (s_.Is(after, "=")) {
          init_b = after + 1;
          init_e = Comma(init_b, end);
        }
        if (is_auto && s_.Is(after, "=")) {
          // auto x = Type(...) / Type{...}: the type of the initializer.
          size_t it = TypeAt(init_b, init_e);
          if (it > init_b && (s_.Is(it, "(") || s_.Is(it, "{")) && s_.Match(it) + 1 == init_e) {
            TypeName t2 = ParseTypeName(s_, init_b, it);
            if (!t2.IsValue()) d.type = t2;
          }
          if (s_.Is(init_b, "[")) d.is_lambda = true;
        }
        b_.locals.push_back(d);
        if (d.is_lambda) {
          Lambda(init_b, init_e, parent, d.name, false);
        } else {
          if (!type.IsValue() && !is_auto && !type.pointer && !IsFundamentalType(type.Last())) {
            // A construction: `Type obj(args)`, `Type obj{args}`, `Type obj;`.
            CallSite c;
            c.name = type.Last();
            c.type = type;
            c.construct = true;
            c.pos = k;
            c.end = construct_args ? init_e - 1 : k;
            c.control = parent;
            c.line = s_[k].line;
            c.macro = s_[k].macro;
            if (construct_args && s_.Is(init_b, "(")) Args(init_b, init_e - 1, &c.args);
            if (!(s_.Is(after, "=") || TypeLooksLikeReference(i, t))) b_.calls.push_back(std::move(c));
          }
          if (init_e > init_b) Expression(construct_args ? init_b + 1 : init_b, construct_args ? init_e - 1 : init_e,
                                          parent);
        }
        k = init_e > after ? init_e : after;
        if (s_.Is(k, ",")) {
          ++k;
          while (k < end && OneOf(s_.Text(k), {"*", "&", "&&"})) ++k;
          continue;
        }
        break;
      }
      return;
    }
    Expression(i, end, parent);
  }

  bool TypeLooksLikeReference(size_t b, size_t e) const {
    for (size_t k = b; k < e; ++k)
      if (s_.Is(k, "&") || s_.Is(k, "&&") || s_.Is(k, "*")) return true;
    return false;
  }

  size_t Comma(size_t b, size_t e) const {
    for (size_t k = b; k < e; ++k) {
      if (s_.Is(k, ",")) return k;
      if (s_.Is(k, "(") || s_.Is(k, "[") || s_.Is(k, "{")) {
        size_t m = s_.Match(k);
        if (m >= e) return e;
        k = m;
      } else if (s_.Is(k, "<")) {
        size_t m = s_.MatchAngle(k);
        if (m < e) k = m;
      }
    }
    return e;
  }

  void ForHeader(size_t b, size_t e, int c) {
    size_t semi = b;
    for (; semi < e; ++semi) {
      if (s_.Is(semi, ";")) break;
      if (s_.Is(semi, "(") || s_.Is(semi, "[") || s_.Is(semi, "{")) {
        size_t m = s_.Match(semi);
        if (m < e) semi = m;
      }
    }
    Control& ctl = b_.controls[static_cast<size_t>(c)];
    if (semi >= e) {  // range-for: `for (auto& x : xs)`
      size_t colon = b;
      while (colon < e && !(s_.Is(colon, ":") && !s_.Is(colon + 1, ":") && !s_.Is(colon - 1, ":"))) ++colon;
      if (colon < e && colon > b && s_.IsIdent(colon - 1)) {
        ctl.loop_var = std::string(s_.Text(colon - 1));
        LocalDecl d;
        d.name = ctl.loop_var;
        d.type = ParseTypeName(s_, b, colon - 1);
        d.control = c;
        d.pos = colon - 1;
        b_.locals.push_back(d);
        Expression(colon + 1, e, c);
      }
      return;
    }
    size_t before = b_.locals.size();
    if (semi > b) Simple(b, semi, c);
    if (b_.locals.size() > before) {
      ctl.loop_var = b_.locals[before].name;
      ctl.loop_var_type = b_.locals[before].type;
    }
    Expression(semi + 1, e, c);
    if (ctl.loop_var.empty()) {
      // `for (; i < n; ++i)`: the variable the increment clause changes.
      size_t semi2 = semi + 1;
      while (semi2 < e && !s_.Is(semi2, ";")) ++semi2;
      for (size_t k = semi2 + 1; k < e; ++k)
        if (s_.IsIdent(k)) {
          ctl.loop_var = std::string(s_.Text(k));
          break;
        }
    }
  }

  void Args(size_t open, size_t close, std::vector<std::pair<size_t, size_t>>* out) const {
    size_t start = open + 1;
    for (size_t k = open + 1; k <= close && k < s_.size(); ++k) {
      if (k == close || s_.Is(k, ",")) {
        if (k > start) out->push_back({start, k});
        start = k + 1;
        continue;
      }
      if (s_.Is(k, "(") || s_.Is(k, "[") || s_.Is(k, "{")) {
        size_t m = s_.Match(k);
        if (m < close) k = m;
      } else if (s_.Is(k, "<")) {
        size_t m = s_.MatchAngle(k);
        if (m < close) k = m;
      }
    }
  }

  // Does the '[' at k open a lambda? (not a subscript)
  bool LambdaAt(size_t k, size_t e) const {
    if (!s_.Is(k, "[")) return false;
    if (k > 0) {
      std::string_view p = s_.Text(k - 1);
      if (s_.IsIdent(k - 1) && p != "return") return false;
      if (p == ")" || p == "]" || p == ">") return false;
    }
    size_t m = s_.Match(k);
    if (m >= e) return false;
    size_t n = m + 1;
    if (s_.Is(n, "(")) {
      size_t pm = s_.Match(n);
      if (pm >= e) return false;
      n = pm + 1;
    }
    while (n < e && !s_.Is(n, "{") && !s_.Is(n, ";") && !s_.Is(n, ",") && !s_.Is(n, ")")) ++n;
    return s_.Is(n, "{");
  }

  // A lambda whose '[' is at b; returns the position after its body.
  size_t Lambda(size_t b, size_t e, int parent, const std::string& name, bool callback) {
    size_t m = s_.Match(b);
    if (m >= e) return e;
    size_t n = m + 1, po = s_.size(), pc = s_.size();
    if (s_.Is(n, "(")) {
      po = n;
      pc = s_.Match(n);
      if (pc >= e) return e;
      n = pc + 1;
    }
    while (n < e && !s_.Is(n, "{")) ++n;
    if (n >= e) return e;
    size_t close = s_.Match(n);
    if (close >= s_.size()) return e;
    auto f = std::make_unique<FunctionDef>();
    f->name = name.empty() ? "lambda" : name;
    f->is_lambda = true;
    f->is_callback = callback;
    f->parent = &fn_;
    f->lambda_at = b;
    f->scope = fn_.scope;
    f->owner = fn_.owner;  // members of the enclosing class are visible through the capture
    f->stream = &s_;
    f->name_pos = b;
    if (po < s_.size()) {
      f->params_open = po;
      f->params_close = pc;
      bool v = false;
      f->params = ParseParams(s_, po, pc, &v);
    }
    f->body_open = n;
    f->body_close = close;
    f->file = s_[b].file;
    f->line = s_[b].line;
    f->column = s_[b].column;
    f->macro = s_[b].macro;
    f->returns_void = true;
    const FunctionDef* raw = f.get();
    b_.lambdas.push_back(raw);
    if (callback) {
      CallSite c;
      c.name = "lambda";
      c.lambda = raw;
      c.pos = b;
      c.end = close;
      c.control = parent;
      c.line = s_[b].line;
      c.macro = s_[b].macro;
      b_.calls.push_back(std::move(c));
    }
    lambdas_->push_back(std::move(f));
    return close + 1;
  }

  // Calls in tokens [b, e) (an expression, a condition, an initializer).
  void Expression(size_t b, size_t e, int parent) {
    for (size_t k = b; k < e; ++k) {
      if (s_.Is(k, "[") && LambdaAt(k, e)) {
        size_t after = Lambda(k, e, parent, "", true);
        k = after > k ? after - 1 : k;
        continue;
      }
      if (!s_.IsIdent(k) || NotACall(s_.Text(k))) {
        if (s_.Is(k, "operator") && s_.Is(k + 1, "(") && s_.Is(k + 2, ")")) {
          size_t n = k + 3;
          if (s_.Is(n, "<")) {
            size_t m = s_.MatchAngle(n);
            if (m < e) n = m + 1;
          }
          if (s_.Is(n, "(")) Call(k, n, e, parent, "operator()");
          k = n > k ? n - 1 : k;
        }
        continue;
      }
      size_t n = k + 1;
      if (s_.Is(n, "<")) {
        size_t m = s_.MatchAngle(n);
        if (m >= e || !s_.Is(m + 1, "(")) continue;
        n = m + 1;
      }
      if (!s_.Is(n, "(")) continue;
      Call(k, n, e, parent, std::string(s_.Text(k)));
    }
  }

  // A call whose name starts at k; `paren` is the '(' of its arguments (after any <targs>).
  void Call(size_t k, size_t paren, size_t e, int parent, std::string name) {
    size_t close = s_.Match(paren);
    if (close >= s_.size()) return;
    CallSite c;
    c.name = std::move(name);
    c.pos = k;
    c.end = close;
    c.control = parent;
    c.line = s_[k].line;
    c.macro = s_[k].macro;
    size_t after_name = c.name == "operator()" ? k + 3 : k + 1;
    if (s_.Is(after_name, "<")) {
      size_t m = s_.MatchAngle(after_name);
      if (m < paren) {
        c.targs = ParseTemplateArgs(s_, after_name, m);
        c.has_targs = true;
      }
    }
    Args(paren, close, &c.args);
    // What is before the name: A::B::, obj., obj->, this->, obj.template
    size_t p = k;
    if (p > 0 && s_.Is(p - 1, "template")) --p;
    if (p > 0 && s_.Is(p - 1, "::")) {
      size_t q = p - 1;
      while (q > 0) {
        size_t r = q - 1;
        if (s_.Is(r, ">")) {
          int depth = 0;
          size_t lt = s_.size();
          for (size_t z = r + 1; z-- > 0;) {
            if (s_.Is(z, ">")) ++depth;
            if (s_.Is(z, "<") && --depth == 0) {
              lt = z;
              break;
            }
            if (s_.Is(z, ";") || s_.Is(z, "{") || s_.Is(z, "}")) break;
          }
          if (lt >= s_.size() || lt == 0) break;
          r = lt - 1;
        }
        if (!s_.IsIdent(r)) break;
        q = r;
        if (q > 0 && s_.Is(q - 1, "::")) {
          --q;
          continue;
        }
        break;
      }
      if (q < p - 1) c.qualifier = ParseTypeName(s_, q, p - 1);
    } else if (p > 0 && (s_.Is(p - 1, ".") || s_.Is(p - 1, "->"))) {
      // The object: a chain of names joined by . or ->
      std::vector<std::string> chain;
      size_t q = p - 1;
      bool complex = false;
      while (true) {
        if (q == 0) break;
        size_t r = q - 1;
        if (s_.Is(r, ")") || s_.Is(r, "]")) {
          complex = true;
          break;
        }
        if (!s_.IsIdent(r)) {
          complex = true;
          break;
        }
        chain.insert(chain.begin(), std::string(s_.Text(r)));
        if (r > 0 && (s_.Is(r - 1, ".") || s_.Is(r - 1, "->"))) {
          q = r - 1;
          continue;
        }
        break;
      }
      c.object_complex = complex;
      for (size_t z = 0; z < chain.size(); ++z) c.object += (z ? "." : "") + chain[z];
    }
    b_.calls.push_back(std::move(c));
  }

  const FunctionDef& fn_;
  const TokenStream& s_;
  FunctionBody& b_;
  std::vector<std::unique_ptr<FunctionDef>>* lambdas_;
  int depth_ = 0;
};

}  // namespace

bool IsFundamentalType(std::string_view name) {
  return OneOf(name, {"int", "unsigned", "unsigned int", "signed", "long", "long long", "unsigned long",
                      "unsigned long long", "short", "unsigned short", "char", "unsigned char", "bool", "float",
                      "double", "void", "auto", "half", "bfloat16_t", "int8_t", "int16_t", "int32_t", "int64_t",
                      "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "ssize_t", "uintptr_t", "intptr_t",
                      "float16_t", "float32_t", "int4b_t", "GM_ADDR", "ptrdiff_t"});
}

void ParseBody(const FunctionDef& fn, std::vector<std::unique_ptr<FunctionDef>>* lambdas) {
  if (fn.body) return;
  fn.body = std::make_unique<FunctionBody>();
  BodyParser(fn, fn.body.get(), lambdas).Run();
}

int FunctionBody::ControlAt(size_t pos) const {
  int best = -1;
  for (size_t i = 0; i < controls.size(); ++i) {
    const Control& c = controls[i];
    size_t b = c.kind == Control::kCase ? c.keyword : c.keyword;
    if (pos >= b && pos <= c.body_end) best = static_cast<int>(i);  // later controls are nested deeper
  }
  return best;
}

}  // namespace optrace::source::index
