// The single header's version line, its placement and its include spelling.
#include "source/plan/single_header.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "core/file_io.h"

namespace optrace::source {
namespace fs = std::filesystem;

std::string_view SingleHeaderText() { return SingleHeaderSources().front().second; }

std::optional<SingleHeaderInfo> ReadSingleHeaderInfo(std::string_view text) {
  // First line: "// optrace_trace.h: optrace 0.1.0, buffer format v1. Generated; do not edit."
  static constexpr std::string_view kHead = "// optrace_trace.h: optrace ";
  if (!text.starts_with(kHead)) return std::nullopt;
  std::string_view rest = text.substr(kHead.size(), text.find('\n') - kHead.size());
  size_t comma = rest.find(", buffer format v");
  if (comma == std::string_view::npos || comma == 0) return std::nullopt;
  SingleHeaderInfo info;
  info.version = std::string(rest.substr(0, comma));
  info.format = std::atoi(std::string(rest.substr(comma + 17)).c_str());
  if (info.format <= 0) return std::nullopt;
  return info;
}

const SingleHeaderInfo& EmbeddedSingleHeaderInfo() {
  static const SingleHeaderInfo kInfo = ReadSingleHeaderInfo(SingleHeaderText()).value_or(SingleHeaderInfo{});
  return kInfo;
}

int CompareVersions(std::string_view a, std::string_view b) {
  while (!a.empty() || !b.empty()) {
    auto take = [](std::string_view& s) {
      long v = 0;
      size_t i = 0;
      for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + (s[i] - '0');
      while (i < s.size() && s[i] != '.') ++i;  // a suffix ("1-rc") is ignored
      s = i < s.size() ? s.substr(i + 1) : std::string_view{};
      return v;
    };
    long x = take(a), y = take(b);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string RelativeInclude(const fs::path& from_rel, const fs::path& header_dir_rel) {
  fs::path rel = header_dir_rel.lexically_normal().lexically_relative(from_rel.parent_path().lexically_normal());
  std::string dir = rel.generic_string();
  if (dir.empty() || dir == ".") return std::string(kSingleHeaderName);
  return dir + "/" + std::string(kSingleHeaderName);
}

}  // namespace optrace::source
