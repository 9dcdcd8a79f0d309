// std::regex searches that cannot overflow the stack: libstdc++'s matcher recurses per input
// character (about 2 KiB of stack per character in an -O0 sanitizer build), so a
// 30,000-character line (a hook block, a Python sample, an operator name) crashes it. Subjects
// longer than kRegexSubjectLimit are searched in their first kRegexSubjectLimit bytes only; the
// lines optrace looks for by regex (a build step, a save_profiling_data call, an operator name)
// are far shorter.
//
//   if (BoundedSearch(line, kBuild)) ...
//   std::smatch m; if (BoundedSearch(line, m, kDefault)) use(m.str(1));
#pragma once

#include <regex>
#include <string>
#include <string_view>

namespace optrace {

inline constexpr size_t kRegexSubjectLimit = 1024;
// Longest pattern a rules file may hold (the matcher's recursion also grows with the pattern).
inline constexpr size_t kRegexPatternLimit = 512;

inline bool BoundedSearch(std::string_view s, const std::regex& re) {
  if (s.size() > kRegexSubjectLimit) s = s.substr(0, kRegexSubjectLimit);
  return std::regex_search(s.begin(), s.end(), re);
}

// With match results: `m` refers into `s`, which must outlive it.
inline bool BoundedSearch(const std::string& s, std::smatch& m, const std::regex& re) {
  if (s.size() > kRegexSubjectLimit) {
    return std::regex_search(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(kRegexSubjectLimit), m, re);
  }
  return std::regex_search(s, m, re);
}

inline bool BoundedMatch(const std::string& s, std::smatch& m, const std::regex& re) {
  if (s.size() > kRegexSubjectLimit) return false;
  return std::regex_match(s, m, re);
}

}  // namespace optrace
