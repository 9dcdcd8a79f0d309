#include "source/index/type_name.h"

#include <unordered_set>

namespace optrace::source::index {
namespace {

bool OneOf(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list)
    if (s == x) return true;
  return false;
}

}  // namespace

bool IsSpecifierKeyword(std::string_view s) {
  return OneOf(s, {"const", "volatile", "static", "inline", "constexpr", "consteval", "constinit", "extern",
                   "virtual", "explicit", "friend", "mutable", "register", "thread_local", "typename", "template",
                   "struct", "class", "union", "enum", "unsigned", "signed", "__inline__", "__forceinline__",
                   "__attribute__", "__global__", "__aicore__", "__device__", "__host__", "__gm__", "__ubuf__",
                   "__vector__", "__cube__", "__mix__",
                   "__restrict__", "__restrict", "noexcept", "override", "final", "auto", "decltype"});
}

bool IsParenthesizedSpecifier(std::string_view s) {
  return s == "__mix__" || s == "__attribute__" || s == "alignas" || s == "__declspec";
}

bool IsStatementKeyword(std::string_view s) {
  // Asked for every identifier of every body: a hash set, not a list scan.
  static const std::unordered_set<std::string_view> kWords = {
      "if", "else", "for", "while", "do", "switch", "case", "default", "return", "break", "continue",
      "goto", "try", "catch", "throw", "using", "typedef", "namespace", "sizeof", "alignof", "new",
      "delete", "static_assert", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
      "co_return", "co_await", "co_yield", "this", "operator", "asm", "__asm__", "true", "false",
      "nullptr", "public", "private", "protected"};
  return s.size() <= 16 && kWords.count(s) > 0;
}

const std::string& TypeName::Last() const {
  static const std::string kEmpty;
  return parts.empty() ? kEmpty : parts.back().name;
}

std::string TypeName::Str() const {
  if (parts.empty()) return value;
  std::string s = global ? "::" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) s += "::";
    s += parts[i].name;
    if (parts[i].templated) {
      s += '<';
      for (size_t a = 0; a < parts[i].args.size(); ++a) {
        if (a > 0) s += ", ";
        s += parts[i].args[a].Str();
      }
      s += '>';
    }
  }
  return s;
}

std::string TypeName::Qualifier() const {
  std::string s;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (i > 0) s += "::";
    s += parts[i].name;
  }
  return s;
}

std::vector<TypeName> ParseTemplateArgs(const TokenStream& s, size_t lt, size_t gt) {
  std::vector<TypeName> args;
  size_t start = lt + 1;
  int depth = 0;
  for (size_t i = lt + 1; i <= gt && i < s.size(); ++i) {
    std::string_view x = s.Text(i);
    if (i == gt || (depth == 0 && x == ",")) {
      if (i > start) args.push_back(ParseTypeName(s, start, i));
      start = i + 1;
      continue;
    }
    if (x == "(" || x == "[" || x == "{") {
      size_t m = s.Match(i);
      if (m < gt) i = m;
    } else if (x == "<") {
      size_t m = s.MatchAngle(i);
      if (m < gt) i = m;
      else ++depth;
    } else if (x == ">") {
      --depth;
    }
  }
  return args;
}

TypeName ParseTypeName(const TokenStream& s, size_t b, size_t e) {
  TypeName t;
  size_t i = b;
  auto skip_specifiers = [&] {
    while (i < e && (OneOf(s.Text(i), {"typename", "class", "struct", "union", "enum", "const", "volatile",
                                        "__gm__", "__ubuf__", "constexpr", "static", "inline"}) ||
                     s.Text(i) == "&" || s.Text(i) == "&&")) {
      ++i;
    }
  };
  skip_specifiers();
  if (i < e && s.Is(i, "::")) {
    t.global = true;
    ++i;
  }
  bool ok = i < e && s.IsIdent(i) && !IsStatementKeyword(s.Text(i));
  while (ok && i < e) {
    TypeName::Part p;
    p.name = std::string(s.Text(i));
    // `unsigned int`, `long long`: fundamental multi-word names are one part.
    while (i + 1 < e && OneOf(p.name, {"unsigned", "signed", "long", "short"}) && s.IsIdent(i + 1) &&
           OneOf(s.Text(i + 1), {"int", "long", "short", "char"})) {
      p.name += " " + std::string(s.Text(++i));
    }
    ++i;
    if (i < e && s.Is(i, "<")) {
      size_t gt = s.MatchAngle(i);
      if (gt >= e) {
        ok = false;
        break;
      }
      p.templated = true;
      p.args = ParseTemplateArgs(s, i, gt);
      i = gt + 1;
    }
    t.parts.push_back(std::move(p));
    if (i < e && s.Is(i, "::")) {
      ++i;
      if (i < e && s.Is(i, "template")) ++i;
      ok = i < e && s.IsIdent(i);
      continue;
    }
    break;
  }
  // What may follow a type: cv, pointers, references, a pack expansion.
  while (ok && i < e) {
    std::string_view x = s.Text(i);
    if (x == "*") t.pointer = true;
    if (x == "*" || x == "&" || x == "&&" || x == "const" || x == "volatile" || x == "..." || x == "__restrict__" ||
        x == "__gm__") {
      ++i;
      continue;
    }
    break;
  }
  if (!ok || i != e) {
    TypeName v;
    v.value = s.Join(b, e);
    return v;
  }
  return t;
}

}  // namespace optrace::source::index
