// The point map (JSON) and the roles file (text) collect reads beside a valid dump.
// data[0] % 2: 0 = point_map.json, 1 = roles file.
#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_point_map_roles) {
  using namespace optrace::fuzz;
  Selected in = Select(data, size, 2);
  Scratch& s = Scratch::Fresh();
  s.CopyFromSource("tests/data/collect/legacy/rank000.pt", "dumps/rank000.pt");
  if (in.selector == 0) {
    s.Write("map.json", in.payload);
    Run({"collect", s.Path("dumps"), "--map", s.Path("map.json"), "-o", s.Path("t.json"), "--format", "json"});
  } else {
    s.CopyFromSource("tests/data/collect/legacy/point_map.json", "map.json");
    s.Write("roles.txt", in.payload);
    Run({"collect", s.Path("dumps"), "--map", s.Path("map.json"), "--roles", s.Path("roles.txt"), "-o",
         s.Path("t.json")});
  }
  return 0;
}
