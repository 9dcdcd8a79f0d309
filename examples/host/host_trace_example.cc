// Host backend example: four worker threads trace their phases into one profiling buffer,
// which is written as rank0.bin for `optrace collect`.
//
//   optrace_host_example [OUT_DIR]     (default: current directory)
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "optrace/trace.h"

namespace {

constexpr uint32_t kThreads = 4;

double Work(uint32_t thread, uint32_t steps) {
  double acc = 0.0;
  for (uint32_t i = 0; i < steps; ++i) acc += std::sin(thread + i * 1e-3);
  return acc;
}

void Worker(int64_t* profiling, uint32_t thread, double* out) {
  OPTRACE_KERNEL_BEGIN(profiling, thread);
  MoeTracing(TRACE_POINT("processing", "B"));
  MoeTracing(TRACE_POINT("host load", "B"));
  double acc = Work(thread, 20000);
  MoeTracing(TRACE_POINT("host load", "E"));
  for (uint32_t step = 0; step < 3; ++step) {
    MoeTracing(TRACE_POINT("host compute step", "B"), step);
    acc += Work(thread + step, 50000);
    MoeTracing(TRACE_POINT("host compute step", "E"), step);
  }
  MoeTracing(TRACE_POINT("processing", "E"));
  OPTRACE_KERNEL_END(profiling);
  *out = acc;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  std::vector<int64_t> profiling(static_cast<size_t>(kThreads) * PROF_SIZE_PER_CORE, 0);
  std::vector<double> results(kThreads);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) threads.emplace_back(Worker, profiling.data(), t, &results[t]);
  for (std::thread& t : threads) t.join();

  const std::string path = dir + "/rank0.bin";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(profiling.data()),
            static_cast<std::streamsize>(profiling.size() * sizeof(int64_t)));
  if (!out) {
    std::fprintf(stderr, "optrace_host_example: cannot write %s; check that the directory exists\n", path.c_str());
    return 2;
  }
  std::printf("wrote %s (%u thread slots of %d words)\n", path.c_str(), kThreads, PROF_SIZE_PER_CORE);
  return 0;
}
