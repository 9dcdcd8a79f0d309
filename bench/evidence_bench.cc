// Throughput of the evidence statistics on generated inputs (results: bench/evidence.md).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>

#include "evidence/latency/latency.h"
#include "evidence/pipe/opprof.h"
#include "evidence/pipe/pipe_summary.h"
#include "evidence/stall/stall.h"

namespace {

using namespace optrace::evidence;

// dispatch_latency.csv layout, iteration-major, deterministic pseudo-random latencies.
std::string LatencyCsv(int ranks, int iterations) {
  std::string s = "rank,iteration,elapsed_ms,elapsed_us,is_warmup,in_average\n";
  uint32_t x = 12345;
  for (int it = 0; it < iterations; ++it) {
    for (int r = 0; r < ranks; ++r) {
      x = x * 1664525u + 1013904223u;
      double us = 100 + (x >> 16) % 1000 / 10.0;
      int warm = it < 10;
      s += fmt::format("{},{},{:.9f},{:.9f},{},{}\n", r, it, us / 1000, us, warm, 1 - warm);
    }
  }
  return s;
}

void BM_LatencyReadAndAnalyze(benchmark::State& state) {
  int ranks = static_cast<int>(state.range(0)), iterations = static_cast<int>(state.range(1));
  std::string csv = LatencyCsv(ranks, iterations);
  for (auto _ : state) {
    auto t = ReadLatencyCsvText(csv, "bench.csv", {});
    LatencyReport r = AnalyzeLatency(*t, {});
    benchmark::DoNotOptimize(r.per_iteration_max.p95);
  }
  state.SetItemsProcessed(state.iterations() * ranks * iterations);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(csv.size()));
}
BENCHMARK(BM_LatencyReadAndAnalyze)->Args({16, 110})->Args({16, 10000})->Args({128, 10000})->Unit(benchmark::kMillisecond);

void BM_StallAnalyze(benchmark::State& state) {
  std::string csv = "core,pc,source,reason,count\n";
  const auto& reasons = KnownStallReasons();
  for (int core = 0; core < 48; ++core) {
    for (int line = 0; line < static_cast<int>(state.range(0)); ++line) {
      for (std::string_view reason : reasons) {
        csv += fmt::format("aiv {},0x{:x},k.cpp:{},{},{}\n", core, line * 16, line, reason, (core + line) % 7 + 1);
      }
    }
  }
  for (auto _ : state) {
    auto t = ReadStallCsvText(csv, "bench.csv");
    StallReport r = AnalyzeStalls(*t);
    benchmark::DoNotOptimize(r.overall.all_samples);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(csv.size()));
}
BENCHMARK(BM_StallAnalyze)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
