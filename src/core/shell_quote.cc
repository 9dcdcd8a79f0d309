#include "core/shell_quote.h"

#include <algorithm>

namespace optrace {

std::string ShellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";  // close, an escaped quote, open again
    else out += c;
  }
  return out + "'";
}

std::string ShellWord(std::string_view s) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == '/' || c == '=' || c == ':' || c == ',' || c == '+';
  };
  if (!s.empty() && std::all_of(s.begin(), s.end(), plain)) return std::string(s);
  return ShellQuote(s);
}

}  // namespace optrace
