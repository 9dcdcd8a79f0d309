// Cost of one MoeTracing call on the host backend (steady_clock timestamps), per path:
// stored, stored with index / extraId, dropped (slot full), and no slot bound. The clock
// read alone is the floor. Run: build/<preset>/bench/moe_tracing_bench
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "optrace/trace.h"

namespace {

constexpr int kBatch = 1000;  // calls per iteration; the slot is reset between batches

class BoundSlot {
 public:
  BoundSlot() : buffer_(PROF_SIZE_PER_CORE, 0) { optrace::ThreadBegin(buffer_.data(), 0); }
  ~BoundSlot() { optrace::ThreadEnd(); }
  void Reset() { buffer_[optrace::format::kWordEventCount] = 0; }
  void Fill() { buffer_[optrace::format::kWordEventCount] = optrace::kSlotCapacity; }

 private:
  std::vector<int64_t> buffer_;
};

void PerCall(benchmark::State& state) {
  state.counters["ns_per_call"] = benchmark::Counter(static_cast<double>(state.iterations()) * kBatch * 1e-9,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_ClockOnly(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) benchmark::DoNotOptimize(optrace::backend::Host::Now());
  }
  PerCall(state);
}
BENCHMARK(BM_ClockOnly);

void BM_MoeTracing(benchmark::State& state) {
  BoundSlot slot;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) MoeTracing(TRACE_POINT("dispatch send", "B"));
    slot.Reset();
  }
  PerCall(state);
}
BENCHMARK(BM_MoeTracing);

void BM_MoeTracingIndex(benchmark::State& state) {
  BoundSlot slot;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) MoeTracing(TRACE_POINT("expert group", "B"), static_cast<uint32_t>(i));
    slot.Reset();
  }
  PerCall(state);
}
BENCHMARK(BM_MoeTracingIndex);

void BM_MoeTracingExtraIndex(benchmark::State& state) {
  BoundSlot slot;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) MoeTracing(TRACE_POINT("stage", "B"), 1u, static_cast<uint32_t>(i));
    slot.Reset();
  }
  PerCall(state);
}
BENCHMARK(BM_MoeTracingExtraIndex);

void BM_MoeTracingSlotFull(benchmark::State& state) {
  BoundSlot slot;
  slot.Fill();
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) MoeTracing(TRACE_POINT("dispatch send", "B"));
  }
  PerCall(state);
}
BENCHMARK(BM_MoeTracingSlotFull);

void BM_MoeTracingNoSlot(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) MoeTracing(TRACE_POINT("dispatch send", "B"));
  }
  PerCall(state);
}
BENCHMARK(BM_MoeTracingNoSlot);

}  // namespace

BENCHMARK_MAIN();
