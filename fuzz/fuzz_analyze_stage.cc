// analyze --from-stage on a stage file: the fuzz input with a valid checksum appended, so the
// decoder under the checksum is what gets fuzzed. data[0] % 3 picks the stage file.
#include <cstring>

#include "fuzz_harness.h"

namespace {
uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace optrace::fuzz;
  Selected in = Select(data, size, 3);
  Scratch& s = Scratch::Fresh();
  static const char* kStage[] = {"discover", "normalize", "segment"};
  static const char* kNext[] = {"normalize", "segment", "classify"};
  uint64_t sum = Fnv1a64(in.payload);
  std::string file = in.payload;
  file.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  s.Write(std::string("out/stages/") + kStage[in.selector] + ".bin", file);
  Run({"analyze", "-o", s.Path("out"), "--only-stage", kNext[in.selector]});
  return 0;
}
