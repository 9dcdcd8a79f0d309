// A torch.save pickle (data.pkl) straight into the pickle machine: nesting depth, memo and
// stack opcodes, persistent ids. Whatever it builds is described and freed (a deep object
// freed recursively is what overflowed the stack, issue 29.4).
#include <cstdint>
#include <string_view>

#include "collect/pickle.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_pickle) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto r = optrace::collect::RunPickle(bytes, "fuzz/archive/data.pkl");
  if (r.ok() && *r) (void)optrace::collect::DescribePy(**r);
  return 0;
}
