// Macro definitions and uses into the code index's expander: function-like and variadic
// macros, # and ##, self reference, arguments expanded before substitution. Expansion has a
// token budget (issue 29.6); the fuzzer looks for inputs that get past it or crash inside it.
// data[0] % 2: 0 = one file, 1 = definitions in a header, uses in the kernel that includes it.
#include <cstdint>
#include <string>

#include "fuzz_harness.h"
#include "fuzz_target.h"
#include "source/index/code_index.h"
#include "source/lexer/source_set.h"

OPTRACE_FUZZ_TARGET(fuzz_macro) {
  using namespace optrace;
  fuzz::Selected in = fuzz::Select(data, size, 2);
  source::SourceSet set("/optrace_fuzz_macro");
  if (in.selector == 0) {
    set.AddText("op_kernel/k.cpp", in.payload);
  } else {
    set.AddText("op_kernel/defs.h", in.payload);
    set.AddText("op_kernel/k.cpp", "#include \"defs.h\"\nextern \"C\" __global__ __aicore__ void k(GM_ADDR x)\n{\n"
                                   "    USE(x);\n    KERNEL_BODY\n}\n");
  }
  // The product's budget is 12M tokens per tree; 300k keeps each run fast under ASan at -O0 and
  // still lets the fuzzer reach the cap (the limit is the same code path).
  constexpr size_t kBudget = 300'000;
  source::index::CodeIndex index(set.Files(), kBudget);
  size_t tokens = 0;
  for (const source::SourceFile* f : index.files()) tokens += index.Stream(f)->size();
  // Beyond the per-tree budget the stream only holds the files' own tokens.
  if (tokens > kBudget + 8 * size + 1024) __builtin_trap();
  return 0;
}
