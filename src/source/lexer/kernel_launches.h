// Kernel launches written in host code, found in tokens: the one reading that instrument's
// profiling chain (which edits them) and lint's binding rules (which check them) share.
//
//   k<<<blocks, l2ctrl, stream>>>(args)          k<float, 2><<<...>>>(args) too
//   ACLRT_LAUNCH_KERNEL(k)(blocks, stream, args)  the launch config is dropped from `args`
//   EXEC_KERNEL_CMD(k, blocks, args)
//
// Only active code outside #define bodies counts: a launch in a comment, a string or a disabled
// #if branch is not one.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "source/lexer/lexer.h"

namespace optrace::source {

struct KernelLaunch {
  enum class Kind { kChevrons, kAclrtLaunchKernel, kExecKernelCmd };
  Kind kind = Kind::kChevrons;
  std::string_view kernel;  // the launched kernel's name
  size_t first = 0;         // the launch's first token (the kernel name or the macro)
  size_t open = 0;          // '(' of the list holding the kernel's arguments
  size_t close = 0;         // its ')'
  // The kernel's own arguments as [begin, end) token ranges, launch config dropped. Empty for `()`.
  std::vector<std::pair<size_t, size_t>> args;
  static const char* KindName(Kind k);
};

// Every launch of a kernel `is_kernel` accepts, in token order.
std::vector<KernelLaunch> FindKernelLaunches(const std::vector<Token>& tokens,
                                             const std::function<bool(std::string_view)>& is_kernel);

// The arguments between `open` and its matching `close`, split at top-level commas (commas inside
// (), [], {} and template argument lists `f<a, b>` do not split). `()` gives none.
std::vector<std::pair<size_t, size_t>> SplitCallArgs(const std::vector<Token>& tokens, size_t open, size_t close);

}  // namespace optrace::source
