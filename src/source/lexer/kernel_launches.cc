#include "source/lexer/kernel_launches.h"

#include "source/lexer/trace_calls.h"

namespace optrace::source {
namespace {

bool Code(const Token& t) { return t.active && !t.in_directive; }

// `k<<<` or `k<T, 2><<<`: the index of the first '<' of the chevrons after the name at i, or 0.
size_t ChevronsAfter(const std::vector<Token>& t, size_t i) {
  size_t j = i + 1;
  if (j < t.size() && t[j].Is("<") && !(j + 1 < t.size() && t[j + 1].Is("<"))) {
    size_t close = MatchingClose(t, j);  // a template argument list
    if (close >= t.size()) return 0;
    j = close + 1;
  }
  // The lexer gives `<<<` as "<<" "<" (or "<" "<<"): accept either split.
  if (j + 1 < t.size() && ((t[j].Is("<<") && t[j + 1].Is("<")) || (t[j].Is("<") && t[j + 1].Is("<<")))) return j;
  return 0;
}

}  // namespace

const char* KernelLaunch::KindName(Kind k) {
  switch (k) {
    case Kind::kChevrons: return "<<<>>>";
    case Kind::kAclrtLaunchKernel: return "ACLRT_LAUNCH_KERNEL";
    case Kind::kExecKernelCmd: return "EXEC_KERNEL_CMD";
  }
  return "";
}

std::vector<std::pair<size_t, size_t>> SplitCallArgs(const std::vector<Token>& t, size_t open, size_t close) {
  std::vector<std::pair<size_t, size_t>> args;
  if (close >= t.size() || close <= open + 1) return args;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open + 1; i < close; ++i) {
    if (t[i].Is("(") || t[i].Is("[") || t[i].Is("{")) ++depth;
    if (t[i].Is(")") || t[i].Is("]") || t[i].Is("}")) --depth;
    if (t[i].Is("<") && i > open + 1 && t[i - 1].kind == TokenKind::kIdentifier) {
      size_t tc = MatchingClose(t, i);
      if (tc < close) i = tc;
      continue;
    }
    if (depth == 0 && t[i].Is(",")) {
      args.emplace_back(start, i);
      start = i + 1;
    }
  }
  args.emplace_back(start, close);
  return args;
}

std::vector<KernelLaunch> FindKernelLaunches(const std::vector<Token>& t,
                                             const std::function<bool(std::string_view)>& is_kernel) {
  std::vector<KernelLaunch> out;
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (!Code(t[i]) || t[i].kind != TokenKind::kIdentifier) continue;
    KernelLaunch l;
    l.first = i;
    size_t drop = 0;  // config arguments before the kernel's own
    if (t[i].Is("ACLRT_LAUNCH_KERNEL") && t[i + 1].Is("(") && is_kernel(t[i + 2].text)) {
      size_t c = MatchingClose(t, i + 1);
      if (c + 1 >= t.size() || !t[c + 1].Is("(")) continue;
      l.kind = KernelLaunch::Kind::kAclrtLaunchKernel;
      l.kernel = t[i + 2].text;
      l.open = c + 1;
      drop = 2;  // blockDim, stream
    } else if (t[i].Is("EXEC_KERNEL_CMD") && t[i + 1].Is("(") && is_kernel(t[i + 2].text)) {
      l.kind = KernelLaunch::Kind::kExecKernelCmd;
      l.kernel = t[i + 2].text;
      l.open = i + 1;
      drop = 2;  // name, blockDim
    } else if (size_t chevrons = ChevronsAfter(t, i); chevrons && is_kernel(t[i].text)) {
      l.kind = KernelLaunch::Kind::kChevrons;
      l.kernel = t[i].text;
      l.open = t.size();
      for (size_t k = chevrons + 2; k + 1 < t.size(); ++k) {
        if (t[k].Is(";") || t[k].Is("{") || t[k].Is("}")) break;
        if (t[k].Is("(") && t[k - 1].Is(">") && (t[k - 2].Is(">>") || (t[k - 2].Is(">") && t[k - 3].Is(">")))) {
          l.open = k;
          break;
        }
        if (t[k].Is("(")) k = MatchingClose(t, k);  // inside the launch config
      }
      if (l.open >= t.size()) continue;
    } else {
      continue;
    }
    l.close = MatchingClose(t, l.open);
    if (l.close >= t.size()) continue;
    l.args = SplitCallArgs(t, l.open, l.close);
    if (drop) {
      if (l.args.size() < drop) continue;
      l.args.erase(l.args.begin(), l.args.begin() + static_cast<long>(drop));
    }
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace optrace::source
