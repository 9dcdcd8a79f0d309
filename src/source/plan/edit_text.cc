#include "source/plan/edit_text.h"

namespace optrace::source {

bool Code(const Token& t) { return t.active && !t.in_directive; }

size_t NextCode(const std::vector<Token>& t, size_t i) {
  for (size_t j = i + 1; j < t.size(); ++j)
    if (Code(t[j])) return j;
  return t.size();
}

long PrevCode(const std::vector<Token>& t, size_t i) {
  for (long j = static_cast<long>(i) - 1; j >= 0; --j)
    if (Code(t[static_cast<size_t>(j)])) return j;
  return -1;
}

bool FirstOnLine(const std::vector<Token>& t, size_t i) { return i == 0 || t[i - 1].line < t[i].line; }
bool LastOnLine(const std::vector<Token>& t, size_t i) { return i + 1 >= t.size() || t[i + 1].line > t[i].line; }

std::vector<size_t> LineStarts(std::string_view text) {
  std::vector<size_t> s{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') s.push_back(i + 1);
  return s;
}

std::string IndentOf(std::string_view text, const std::vector<size_t>& starts, int line) {
  if (line < 1 || static_cast<size_t>(line) > starts.size()) return "";
  size_t b = starts[static_cast<size_t>(line - 1)], e = b;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return std::string(text.substr(b, e - b));
}

size_t StatementEnd(const std::vector<Token>& t, size_t k) {
  int depth = 0;
  for (size_t j = k; j < t.size(); ++j) {
    if (!Code(t[j])) continue;
    if (t[j].Is("(") || t[j].Is("[")) ++depth;
    if (t[j].Is(")") || t[j].Is("]")) --depth;
    if (depth == 0 && (t[j].Is("{") || t[j].Is("}"))) return t.size();
    if (depth == 0 && t[j].Is(";")) return j;
  }
  return t.size();
}

size_t TokenAt(const std::vector<Token>& t, int line, int column) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].line == line && t[i].column == column) return i;
  return t.size();
}

int IncludeLine(const LexedFile& f) {
  const auto& d = f.directives;
  const bool guarded = d.size() >= 2 && d[0].kind == DirectiveKind::kIfndef && d[1].kind == DirectiveKind::kDefine;
  int after = 0, depth = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const Directive& x = d[i];
    if (x.kind == DirectiveKind::kIf || x.kind == DirectiveKind::kIfdef || x.kind == DirectiveKind::kIfndef) ++depth;
    if (x.kind == DirectiveKind::kEndif) --depth;
    // The include guard's own #ifndef is the file's top level.
    if (x.kind == DirectiveKind::kInclude && x.active && x.brace_depth == 0 && depth == (guarded ? 1 : 0))
      after = x.line;
  }
  if (after == 0 && guarded) after = d[1].line;
  return after + 1;
}

}  // namespace optrace::source
