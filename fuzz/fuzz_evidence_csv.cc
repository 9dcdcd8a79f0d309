// The CSV reader and the dispatch-evidence inputs: data[0] % 4: 0 = latency CSV, 1 = an msprof
// op metric CSV (PipeUtilization.csv beside a valid OpBasicInfo.csv), 2 = stall CSV,
// 3 = a pipe roles file.
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_evidence_csv) {
  using namespace optrace::fuzz;
  Selected in = Select(data, size, 4);
  Scratch& s = Scratch::Fresh();
  switch (in.selector) {
    case 0:
      s.Write("latency.csv", in.payload);
      Run({"latency", s.Path("latency.csv"), "--format", "json"});
      break;
    case 1:
      s.CopyFromSource("tests/data/evidence/opprof/minimal/OpBasicInfo.csv", "run/OpBasicInfo.csv");
      s.Write("run/PipeUtilization.csv", in.payload);
      Run({"pipe", s.Path("run"), "--format", "json"});
      break;
    case 2:
      s.Write("stall.csv", in.payload);
      Run({"stall", s.Path("stall.csv"), "--format", "json"});
      break;
    default:
      s.CopyFromSource("tests/data/evidence/opprof/minimal", "run");
      s.Write("roles.txt", in.payload);
      Run({"pipe", s.Path("run"), "--roles", s.Path("roles.txt")});
      break;
  }
  return 0;
}
