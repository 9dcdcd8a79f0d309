// Collector throughput: decode native slots, and decode + resolve + pair (nest / seq), on
// generated buffers held in memory (no file I/O). Items = events.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>

#include "collect/native_reader.h"
#include "collect/pairing.h"
#include "optrace/format.h"
#include "optrace/point_id.h"

namespace optrace::collect {
namespace {

constexpr uint32_t kSlotWords = 2048;
constexpr int kSlots = 72;

// kSlots slots, each full of nested B/E events over 12 labels.
std::string MakeDump() {
  using namespace format;
  std::vector<uint64_t> w(size_t{kSlots} * kSlotWords, 0);
  std::mt19937 rng(1);
  const uint32_t cap = CapacityForSlotWords(kSlotWords);
  for (int s = 0; s < kSlots; ++s) {
    uint64_t* p = w.data() + size_t(s) * kSlotWords;
    p[kWordMagicVersion] = PackMagicVersion();
    p[kWordCore] = PackCore(s < 24 ? CoreKind::kAic : CoreKind::kAiv, s < 24 ? s : s - 24, 0);
    p[kWordClockHz] = 50'000'000;
    p[kWordCapacity] = PackCapacity(cap, kSlotWords);
    uint32_t n = 0;
    uint64_t t = 1000;
    std::vector<uint32_t> open;
    while (n + open.size() + 1 < cap) {
      if (open.size() < 4 && (open.empty() || rng() % 2)) {
        uint32_t label = LabelId("l", 1) + static_cast<uint32_t>(rng() % 12);
        open.push_back(label);
        p[kHeaderWords + 2 * n] = PackEvent(PointId(label & 0x7fffffffu, false), n);
      } else {
        p[kHeaderWords + 2 * n] = PackEvent(PointId(open.back() & 0x7fffffffu, true), n);
        open.pop_back();
      }
      p[kHeaderWords + 2 * n + 1] = t += 1 + rng() % 50;
      ++n;
    }
    p[kWordEventCount] = n;
  }
  std::string bytes(w.size() * 8, '\0');
  std::memcpy(bytes.data(), w.data(), bytes.size());
  return bytes;
}

void BM_DecodeNative(benchmark::State& state) {
  const std::string bytes = MakeDump();
  int64_t events = 0;
  for (auto _ : state) {
    Result<Dump> d = DecodeNativeDump(bytes, "bench.bin", 0);
    for (const CoreSeries& c : d->cores) events += static_cast<int64_t>(c.events.size());
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(events);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
}
BENCHMARK(BM_DecodeNative);

void BM_DecodeAndPair(benchmark::State& state) {
  const PairMode mode = static_cast<PairMode>(state.range(0));
  const std::string bytes = MakeDump();
  int64_t events = 0;
  std::vector<ResolvedEvent> resolved;
  for (auto _ : state) {
    Result<Dump> d = DecodeNativeDump(bytes, "bench.bin", 0);
    std::vector<Interval> intervals;
    std::vector<Instant> instants;
    for (const CoreSeries& c : d->cores) {
      resolved.clear();
      for (const Event& e : c.events) {
        resolved.push_back({LabelIdOfPoint(e.point_id), IsEndPoint(e.point_id), e.point_id, e.payload, e.ticks});
      }
      const size_t first = intervals.size();
      PairCore(CoreRef{0, c.kind, c.core_index, 0}, resolved, mode, intervals, instants);
      ComputeNesting(std::span<Interval>(intervals).subspan(first));
      events += static_cast<int64_t>(c.events.size());
    }
    benchmark::DoNotOptimize(intervals);
  }
  state.SetItemsProcessed(events);
}
BENCHMARK(BM_DecodeAndPair)->Arg(static_cast<int>(PairMode::kNest))->Arg(static_cast<int>(PairMode::kSeq));

}  // namespace
}  // namespace optrace::collect

BENCHMARK_MAIN();
