// One libFuzzer entry per fuzz_<name>.cc, all linked into one binary (optrace_fuzz): the target
// that runs is the name the binary was started as (build/<preset>/fuzz/fuzz_<name> is a link
// to it). Each CLI-driven target linked on its own held all of optrace, 210 MB of an ASan build
// per target.
//
//   OPTRACE_FUZZ_TARGET(fuzz_hook) {   // the file's name without .cc
//     ...use data, size...
//     return 0;
//   }
#pragma once

#include <cstddef>
#include <cstdint>

namespace optrace::fuzz {

using TargetFunction = int (*)(const uint8_t* data, size_t size);

// Adds a target to the binary's table at static initialisation.
struct TargetRegistration {
  TargetRegistration(const char* name, TargetFunction run);
};

}  // namespace optrace::fuzz

#define OPTRACE_FUZZ_TARGET(name)                                                                  \
  static int OptraceFuzzTarget_##name(const uint8_t* data, size_t size);                           \
  static const ::optrace::fuzz::TargetRegistration optrace_fuzz_registration_##name(               \
      #name, OptraceFuzzTarget_##name);                                                             \
  static int OptraceFuzzTarget_##name(const uint8_t* data, size_t size)
