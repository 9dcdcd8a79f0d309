// Token soup as an operator's kernel source: the lexer, the code index, lint (JSON and SARIF)
// and plan. data[0] % 2: 0 = the kernel entry, 1 = a header the entry includes.
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_source) {
  using namespace optrace::fuzz;
  Selected in = Select(data, size, 2);
  Scratch& s = Scratch::Fresh();
  if (in.selector == 0) {
    s.Write("op/op_kernel/k.cpp", in.payload);
  } else {
    s.Write("op/op_kernel/k.cpp", "#include \"k.h\"\nextern \"C\" __global__ __aicore__ void k(GM_ADDR x)\n{\n"
                                  "    Kernel op;\n    op.Process(x);\n}\n");
    s.Write("op/op_kernel/k.h", in.payload);
  }
  Run({"lint", "--op", s.Path("op"), "--format", "json"});
  Run({"lint", "--op", s.Path("op"), "--format", "sarif", "--gates"});
  Run({"plan", "--op", s.Path("op"), "--format", "json"});
  return 0;
}
