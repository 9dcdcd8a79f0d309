#include "source/index/words.h"

#include <cctype>

namespace optrace::source::index {

std::vector<std::string> SplitWords(std::string_view raw) {
  std::string_view name = raw;
  // A `k` constant prefix (kSendCore) and member underscores are not words.
  if (name.size() > 1 && name[0] == 'k' && std::isupper(static_cast<unsigned char>(name[1]))) name.remove_prefix(1);
  std::vector<std::string> words;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) words.push_back(cur);
    cur.clear();
  };
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (!std::isalnum(c)) {
      flush();
      continue;
    }
    if (!cur.empty()) {
      unsigned char p = static_cast<unsigned char>(name[i - 1]);
      bool next_lower = i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      bool boundary = (std::isupper(c) && (std::islower(p) || std::isdigit(p))) ||
                      (std::isupper(c) && std::isupper(p) && next_lower) || (std::isalpha(c) && std::isdigit(p));
      if (boundary) flush();
    }
    cur += static_cast<char>(std::tolower(c));
  }
  flush();
  return words;
}

std::string KebabCase(std::string_view name) {
  std::string out;
  for (const std::string& w : SplitWords(name)) out += (out.empty() ? "" : "-") + w;
  return out;
}

}  // namespace optrace::source::index
