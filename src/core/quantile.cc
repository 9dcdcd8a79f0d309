#include "core/quantile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

namespace optrace {

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  if (q <= 0) return sorted.front();
  if (q >= 1) return sorted.back();
  double h = static_cast<double>(sorted.size() - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  double frac = h - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

namespace {

// Sorts 64-bit words that hold order-preserving unsigned keys: `to_key` maps a stored word to its
// key (the first pass applies it in place) and `from_key` maps it back (the last pass). An LSD
// radix sort, 11 bits a pass; a pass whose digit is the same for every value (the high bits of a
// sample of durations) is skipped. The words are read and written with memcpy: the storage may
// hold doubles. The one scratch array is left uninitialised (a zeroed pair of arrays was a memset
// and a page fault per 4 KiB for every large group).
template <typename ToKey, typename FromKey>
void RadixSortWords(unsigned char* const home, size_t n, ToKey to_key, FromKey from_key) {
  constexpr int kBits = 11, kPasses = 6, kBuckets = 1 << kBits;
  auto load = [](const unsigned char* at, size_t i) {
    uint64_t u;
    std::memcpy(&u, at + i * 8, 8);
    return u;
  };
  auto store = [](unsigned char* at, size_t i, uint64_t u) { std::memcpy(at + i * 8, &u, 8); };
  std::unique_ptr<unsigned char[]> scratch(new unsigned char[n * 8]);
  unsigned char* keys = home;
  unsigned char* tmp = scratch.get();
  std::vector<uint32_t> count(size_t(kPasses) * kBuckets, 0);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t u = to_key(load(keys, i));
    store(keys, i, u);
    for (int p = 0; p < kPasses; ++p) ++count[size_t(p) * kBuckets + ((u >> (p * kBits)) & (kBuckets - 1))];
  }
  for (int p = 0; p < kPasses; ++p) {
    uint32_t* c = &count[size_t(p) * kBuckets];
    if (c[(load(keys, 0) >> (p * kBits)) & (kBuckets - 1)] == n) continue;  // one digit for all: nothing moves
    uint32_t sum = 0;
    for (int b = 0; b < kBuckets; ++b) {
      uint32_t k = c[b];
      c[b] = sum;
      sum += k;
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t u = load(keys, i);
      store(tmp, c[(u >> (p * kBits)) & (kBuckets - 1)]++, u);
    }
    std::swap(keys, tmp);
  }
  for (size_t i = 0; i < n; ++i) store(home, i, from_key(load(keys, i)));
}

constexpr uint64_t kSignBit = uint64_t{1} << 63;

}  // namespace

void SortValues(std::vector<double>& values) {
  static_assert(sizeof(double) == sizeof(uint64_t));
  if (values.size() < 4096) {
    std::sort(values.begin(), values.end());
    return;
  }
  // Doubles as unsigned keys in the same order: flip the sign bit of positives, every bit of
  // negatives.
  RadixSortWords(
      reinterpret_cast<unsigned char*>(values.data()), values.size(),
      [](uint64_t u) { return (u >> 63) ? ~u : (u | kSignBit); },
      [](uint64_t u) { return (u >> 63) ? (u & ~kSignBit) : ~u; });
}

void SortValues(std::vector<int64_t>& values) {
  if (values.size() < 4096) {
    std::sort(values.begin(), values.end());
    return;
  }
  // Two's complement as unsigned keys in the same order: flip the sign bit.
  RadixSortWords(
      reinterpret_cast<unsigned char*>(values.data()), values.size(), [](uint64_t u) { return u ^ kSignBit; },
      [](uint64_t u) { return u ^ kSignBit; });
}

SummaryStats Summarize(std::vector<double>& values) {
  SortValues(values);
  return SummarizeSorted(values);
}

SummaryStats SummarizeSorted(const std::vector<double>& values) {
  SummaryStats s;
  if (values.empty()) return s;
  s.count = values.size();
  for (double v : values) s.total += v;
  s.mean = s.total / static_cast<double>(s.count);
  s.min = values.front();
  s.max = values.back();
  s.p50 = Quantile(values, 0.50);
  s.p90 = Quantile(values, 0.90);
  s.p95 = Quantile(values, 0.95);
  s.p99 = Quantile(values, 0.99);
  double acc = 0;
  for (double v : values) acc += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(acc / static_cast<double>(s.count));
  return s;
}

}  // namespace optrace
