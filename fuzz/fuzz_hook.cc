// A team's build script with (or without) the optrace hook block: verify, install, remove.
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_hook) {
  using namespace optrace::fuzz;
  Scratch& s = Scratch::Fresh();
  s.Write("build.sh", Bytes(data, size));
  Run({"hook", "verify", "--script", s.Path("build.sh"), "--format", "json"});
  Run({"hook", "install", "--script", s.Path("build.sh"), "--dry-run"});
  Run({"hook", "remove", "--script", s.Path("build.sh"), "--dry-run"});
  return 0;
}
