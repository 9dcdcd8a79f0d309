#include "source/lexer/trace_define.h"
#include "core/bounded_regex.h"

#include <algorithm>
#include <regex>
#include <system_error>

#include "core/file_io.h"
#include "source/lexer/source_set.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace {

bool UsesWord(const std::string& body, const std::string& word) {
  for (size_t p = body.find(word); p != std::string::npos; p = body.find(word, p + 1)) {
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    bool before = p > 0 && ident(body[p - 1]);
    bool after = p + word.size() < body.size() && ident(body[p + word.size()]);
    if (!before && !after) return true;
  }
  return false;
}

// The body without comments (a // comment runs to the end of the joined line).
std::string StripComments(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) break;
    if (s.compare(i, 2, "/*") == 0) {
      size_t e = s.find("*/", i + 2);
      if (e == std::string::npos) break;
      i = e + 1;
      out += ' ';
      continue;
    }
    out += s[i];
  }
  return out;
}

}  // namespace

std::optional<RewriteOnlyDefine> FindRewriteOnlyDefine(std::string_view text, std::string_view file) {
  static const std::regex kDefine(R"(^\s*#\s*define\s+TRACE_POINT\s*\(([^)]*)\)(.*)$)");
  size_t start = 0;
  int line = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string l(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    ++line;
    int first_line = line;
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    if (l.find("TRACE_POINT") == std::string::npos || l.find("define") == std::string::npos) continue;
    // Join backslash continuations (spaces after the backslash still continue, as in the lexer).
    auto continued = [](std::string& x) {
      size_t end = x.find_last_not_of(" \t\r");
      if (end == std::string::npos || x[end] != '\\') return false;
      x.erase(end);
      return true;
    };
    while (start < text.size() && continued(l)) {
      size_t next = text.find('\n', start);
      l += std::string(text.substr(start, next == std::string_view::npos ? std::string_view::npos : next - start));
      ++line;
      start = next == std::string_view::npos ? text.size() : next + 1;
    }
    std::smatch m;
    if (!BoundedMatch(l, m, kDefine)) continue;
    std::string params = m.str(1), body = StripComments(m.str(2));
    bool uses = false;
    static const std::regex kParam(R"([A-Za-z_][A-Za-z0-9_]*|\.\.\.)");
    for (auto p = std::sregex_iterator(params.begin(), params.end(), kParam); p != std::sregex_iterator(); ++p)
      uses = uses || UsesWord(body, p->str() == "..." ? "__VA_ARGS__" : p->str());
    if (uses) continue;
    size_t a = l.find_first_not_of(" \t"), b = l.find_last_not_of(" \t\r");
    return RewriteOnlyDefine{std::string(file), first_line, l.substr(a, b - a + 1)};
  }
  return std::nullopt;
}

Result<std::optional<RewriteOnlyDefine>> FindRewriteOnlyDefineUnder(const fs::path& dir) {
  OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> files, ListSourceFiles(dir));  // sorted: first by path wins
  fs::path root = ResolveAgainstCwd(dir).lexically_normal();
  for (const fs::path& path : files) {
    fs::path rel = path.lexically_relative(root);
    // Copies a build makes of the sources (build/, build_out/) are not where the define is edited.
    if (std::any_of(rel.begin(), rel.end(), [](const fs::path& c) { return c == "build" || c == "build_out"; }))
      continue;
    std::error_code ec;
    if (fs::file_size(path, ec) > (4u << 20)) continue;
    Result<std::string> text = ReadFileToString(path);
    if (!text.ok() || text->find("TRACE_POINT") == std::string::npos) continue;
    if (auto d = FindRewriteOnlyDefine(*text, rel.generic_string())) return d;
  }
  return std::optional<RewriteOnlyDefine>();
}

bool DefinesMoeTracing(const LexedFile& lex) {
  for (const Directive& d : lex.directives)
    if (d.kind == DirectiveKind::kDefine && d.active && d.argument.rfind("MoeTracing", 0) == 0) return true;
  const auto& t = lex.tokens;
  for (size_t i = 1; i < t.size(); ++i) {
    if (!t[i].Is("MoeTracing") || !t[i].active || t[i].in_directive) continue;
    const Token& p = t[i - 1];
    if (p.Is("void") || p.Is("inline") || p.Is("__aicore__") || p.Is("__device__") || p.Is("static") ||
        p.Is("auto") || p.Is(">") || p.Is("__forceinline__")) {
      return true;
    }
  }
  return false;
}

}  // namespace optrace::source
