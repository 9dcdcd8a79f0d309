// Legacy torch dumps (rank<NNN>.pt: zip + pickle + int64 storage) through collect and inspect.
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_collect_legacy) {
  using namespace optrace::fuzz;
  Scratch& s = Scratch::Fresh();
  s.Write("dumps/rank000.pt", Bytes(data, size));
  s.CopyFromSource("tests/data/collect/legacy/point_map.json", "map.json");
  Run({"collect", s.Path("dumps"), "--map", s.Path("map.json"), "-o", s.Path("t.json"), "--format", "json"});
  Run({"inspect", s.Path("dumps")});
  return 0;
}
