// CUDA backend example: a grid-stride kernel whose blocks trace their phases, one slot per
// block; the host checks the slots and writes rank0.bin for `optrace collect`.
//
//   optrace_cuda_example [OUT_DIR]   exit 0: ran and checked; 77: no CUDA device (skip); 1: failure
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "optrace/trace.h"

namespace {

constexpr int kBlocks = 8;
constexpr int kThreadsPerBlock = 128;
constexpr int kElements = 1 << 16;
constexpr int kRounds = 3;

__global__ void VectorPhases(const float* x, float* y, int n, int64_t* profiling) {
  OPTRACE_KERNEL_BEGIN(profiling);
  MoeTracing(TRACE_POINT("processing", "B"));
  MoeTracing(TRACE_POINT("cuda load", "B"));
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = x[i];
  __syncthreads();
  MoeTracing(TRACE_POINT("cuda load", "E"));
  for (int round = 0; round < kRounds; ++round) {
    MoeTracing(TRACE_POINT("cuda compute round", "B"), round);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = y[i] * 1.5f + 1.0f;
    __syncthreads();
    MoeTracing(TRACE_POINT("cuda compute round", "E"), round);
  }
  MoeTracing(TRACE_POINT("processing", "E"));
  OPTRACE_KERNEL_END(profiling);
}

bool Check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "optrace_cuda_example: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("optrace_cuda_example: no CUDA device; skipping\n");
    return 77;
  }
  const std::string dir = argc > 1 ? argv[1] : ".";
  const size_t words = static_cast<size_t>(kBlocks) * PROF_SIZE_PER_CORE;
  std::vector<float> host_x(kElements, 1.0f);
  float *x = nullptr, *y = nullptr;
  int64_t* profiling = nullptr;
  if (!Check(cudaMalloc(&x, kElements * sizeof(float)), "cudaMalloc x") ||
      !Check(cudaMalloc(&y, kElements * sizeof(float)), "cudaMalloc y") ||
      !Check(cudaMalloc(&profiling, words * sizeof(int64_t)), "cudaMalloc profiling") ||
      !Check(cudaMemset(profiling, 0, words * sizeof(int64_t)), "cudaMemset") ||
      !Check(cudaMemcpy(x, host_x.data(), kElements * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy x")) {
    return 1;
  }
  VectorPhases<<<kBlocks, kThreadsPerBlock>>>(x, y, kElements, profiling);
  std::vector<int64_t> host_profiling(words);
  if (!Check(cudaDeviceSynchronize(), "kernel") ||
      !Check(cudaMemcpy(host_profiling.data(), profiling, words * sizeof(int64_t), cudaMemcpyDeviceToHost),
             "cudaMemcpy profiling")) {
    return 1;
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(profiling);

  // Every block wrote its header and 2 + 2 * kRounds + 2 events.
  for (int b = 0; b < kBlocks; ++b) {
    const int64_t* slot = &host_profiling[static_cast<size_t>(b) * PROF_SIZE_PER_CORE];
    const auto w0 = static_cast<uint64_t>(slot[optrace::format::kWordMagicVersion]);
    const int64_t events = slot[optrace::format::kWordEventCount];
    if (optrace::format::MagicOf(w0) != optrace::format::kMagic || events != 4 + 2 * kRounds) {
      std::fprintf(stderr, "optrace_cuda_example: slot %d: magic %#x, %lld events (want %d)\n", b,
                   optrace::format::MagicOf(w0), static_cast<long long>(events), 4 + 2 * kRounds);
      return 1;
    }
  }
  const std::string path = dir + "/rank0.bin";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(host_profiling.data()),
            static_cast<std::streamsize>(words * sizeof(int64_t)));
  if (!out) {
    std::fprintf(stderr, "optrace_cuda_example: cannot write %s\n", path.c_str());
    return 1;
  }
  std::printf("wrote %s (%d block slots)\n", path.c_str(), kBlocks);
  return 0;
}
