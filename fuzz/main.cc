// libFuzzer's two entry points for the one fuzz binary: LLVMFuzzerInitialize picks the target
// named by how the binary was started (argv[0]'s file name, e.g. fuzz_hook); every input then
// goes to that target.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace optrace::fuzz {
namespace {

struct Target {
  const char* name;
  TargetFunction run;
};

std::vector<Target>& Targets() {
  static std::vector<Target> targets;
  return targets;
}

TargetFunction g_selected = nullptr;

}  // namespace

TargetRegistration::TargetRegistration(const char* name, TargetFunction run) { Targets().push_back({name, run}); }

}  // namespace optrace::fuzz

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  using optrace::fuzz::Targets;
  std::string started_as = (*argc > 0 && (*argv)[0]) ? (*argv)[0] : "";
  if (size_t slash = started_as.rfind('/'); slash != std::string::npos) started_as.erase(0, slash + 1);
  for (const auto& t : Targets()) {
    if (started_as == t.name) {
      optrace::fuzz::g_selected = t.run;
      return 0;
    }
  }
  std::fprintf(stderr, "optrace_fuzz: started as '%s', which is no fuzz target; run one of the links named:\n",
               started_as.c_str());
  for (const auto& t : Targets()) std::fprintf(stderr, "  %s\n", t.name);
  std::exit(2);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return optrace::fuzz::g_selected(data, size);
}
