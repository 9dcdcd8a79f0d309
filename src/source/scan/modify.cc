#include "source/scan/modify.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "optrace/point_id.h"

namespace optrace::source {
namespace {

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) nl = s.size() - 1;
    lines.push_back(s.substr(start, nl - start + 1));
    start = nl + 1;
  }
  return lines;
}

}  // namespace

std::string RewriteTracePoints(const SourceFile& file) {
  const std::string& text = *file.text;
  std::string out;
  out.reserve(text.size() + 64);
  size_t copied = 0;
  for (const TraceSite& s : file.traces.sites) {
    if (s.rewritten || s.via_wrapper || (s.event_type != 'B' && s.event_type != 'E')) continue;
    std::string_view original(text.data() + s.offset, s.end_offset - s.offset);
    if (original.find("*/") != std::string_view::npos || s.offset < copied) continue;
    uint32_t id = PointId(LabelId(s.label.data(), static_cast<uint32_t>(s.label.size())), s.event_type == 'E');
    out.append(text, copied, s.offset - copied);
    out += fmt::format("{:#010x} /* {} */", id, original);
    copied = s.end_offset;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

std::string UnifiedDiff(std::string_view path, std::string_view before, std::string_view after) {
  if (before == after) return "";
  auto a = SplitLines(before);
  auto b = SplitLines(after);
  // Longest common subsequence on lines; sources are small and edits sparse, so trim the common
  // prefix and suffix first and run the quadratic table only on the middle.
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  struct Op {
    char kind;  // ' ' keep, '-' delete, '+' insert
    size_t ai, bi;
  };
  std::vector<Op> ops;
  for (size_t k = 0; k < pre; ++k) ops.push_back({' ', k, k});
  if (n == m || n * m > (size_t{1} << 22)) {
    // --modify keeps the line structure: compare line by line (or give up on alignment).
    size_t common = n == m ? n : 0;
    for (size_t k = 0; k < common; ++k) {
      if (a[pre + k] == b[pre + k]) {
        ops.push_back({' ', pre + k, pre + k});
      } else {
        ops.push_back({'-', pre + k, pre + k});
        ops.push_back({'+', pre + k + 1, pre + k});
      }
    }
    for (size_t k = common; k < n; ++k) ops.push_back({'-', pre + k, pre});
    for (size_t k = common; k < m; ++k) ops.push_back({'+', pre + n, pre + k});
  } else {
    // Longest common subsequence of the middle part.
    std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = a[pre + i] == b[pre + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        ops.push_back({' ', pre + i++, pre + j++});
      } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
        ops.push_back({'+', pre + i, pre + j++});
      } else {
        ops.push_back({'-', pre + i++, pre + j});
      }
    }
  }
  for (size_t k = 0; k < suf; ++k) ops.push_back({' ', pre + n + k, pre + m + k});
  bool absolute = !path.empty() && path[0] == '/';
  std::string out = absolute ? fmt::format("--- {}\n+++ {}\n", path, path)
                             : fmt::format("--- a/{}\n+++ b/{}\n", path, path);
  constexpr size_t kContext = 3;
  size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].kind == ' ') {
      ++k;
      continue;
    }
    size_t start = k >= kContext ? k - kContext : 0;
    size_t end = k;
    // Extend the hunk while changes are within 2 * context of each other.
    size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].kind != ' ') last_change = end;
      if (end - last_change > 2 * kContext) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + kContext + 1);
    size_t a_count = 0, b_count = 0;
    for (size_t x = start; x < end; ++x) {
      if (ops[x].kind != '+') ++a_count;
      if (ops[x].kind != '-') ++b_count;
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", ops[start].ai + (a_count ? 1 : 0), a_count,
                       ops[start].bi + (b_count ? 1 : 0), b_count);
    for (size_t x = start; x < end; ++x) {
      std::string_view line = ops[x].kind == '+' ? b[ops[x].bi] : a[ops[x].ai];
      out += ops[x].kind;
      out += line;
      if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
    }
    k = end;
  }
  return out;
}

}  // namespace optrace::source
