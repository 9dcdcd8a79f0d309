// plan_moe_instrumented_run OUT_DIR: runs the moe example built from the sources that
// `optrace instrument` produced at build time (tests/source/plan/CMakeLists.txt) and writes each
// rank's profiling output to OUT_DIR/rank<N>.bin, as a PyTorch user's sample would.
#include <cstdio>
#include <fstream>
#include <string>

#include "moe_runner.h"

namespace optrace::examples {
// The runner's sources table serves `optrace demo` only; this program does not embed them.
const std::vector<std::pair<std::string, std::string>>& MoeExampleSources() {
  static const std::vector<std::pair<std::string, std::string>> kNone;
  return kNone;
}
}  // namespace optrace::examples

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  auto run = optrace::examples::RunMoeExample({});
  if (!run.ok()) {
    std::fprintf(stderr, "moe run failed: %s\n", run.status().message().c_str());
    return 1;
  }
  for (size_t r = 0; r < run->rank_buffers.size(); ++r) {
    const auto& words = run->rank_buffers[r];
    std::ofstream out(std::string(argv[1]) + "/rank" + std::to_string(r) + ".bin", std::ios::binary);
    out.write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(words.size() * 8));
    if (!out) {
      std::fprintf(stderr, "cannot write rank %zu\n", r);
      return 1;
    }
  }
  return 0;
}
