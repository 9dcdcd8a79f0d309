#include "core/uri_path.h"

#include <fmt/format.h>

#include <cctype>

namespace optrace {

std::string UriPath(std::string_view path) {
  std::string out;
  for (char ch : path) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += ch;
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace optrace
