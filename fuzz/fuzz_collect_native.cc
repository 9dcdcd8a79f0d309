// Native dumps (rank<N>.bin) through collect (Chrome JSON and Perfetto, stats) and inspect.
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_collect_native) {
  using namespace optrace::fuzz;
  Scratch& s = Scratch::Fresh();
  s.Write("dumps/rank0.bin", Bytes(data, size));
  Run({"collect", s.Path("dumps"), "-o", s.Path("t.json"), "--stats", s.Path("s.json"), "--format", "json"});
  Run({"collect", s.Path("dumps"), "-o", s.Path("t.pftrace"), "--extra-mode", "seq", "--names", "legacy"});
  Run({"inspect", s.Path("dumps"), "--format", "json"});
  return 0;
}
