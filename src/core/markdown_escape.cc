#include "core/markdown_escape.h"

namespace optrace {

std::string EscapeMarkdownHtml(std::string_view md) {
  std::string out;
  out.reserve(md.size() + md.size() / 32);
  size_t i = 0;
  auto run_at = [&](size_t p) {
    size_t q = p;
    while (q < md.size() && md[q] == '`') ++q;
    return q - p;
  };
  auto punct = [](char c) {
    return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
  };
  while (i < md.size()) {
    char c = md[i];
    if (c == '\\' && i + 1 < md.size() && punct(md[i + 1])) {
      // An escaped character is literal: "\<" shows "<" and opens no tag; "\\" is one backslash,
      // so the character after it is read afresh.
      out += c;
      out += md[i + 1];
      i += 2;
      continue;
    }
    if (c == '`') {
      size_t n = run_at(i);
      size_t close = std::string_view::npos;
      for (size_t p = i + n; p < md.size() && md[p] != '\n' && md[p] != '|';) {
        if (md[p] != '`') {
          ++p;
          continue;
        }
        size_t m = run_at(p);
        if (m == n) {
          close = p;
          break;
        }
        p += m;
      }
      if (close != std::string_view::npos) {
        out.append(md.substr(i, close + n - i));
        i = close + n;
        continue;
      }
      out.append(md.substr(i, n));  // no closing run: literal backticks
      i += n;
      continue;
    }
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
    ++i;
  }
  return out;
}

}  // namespace optrace
