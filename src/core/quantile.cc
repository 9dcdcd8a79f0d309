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

void SortValues(std::vector<double>& values) {
  const size_t n = values.size();
  if (n < 4096) {
    std::sort(values.begin(), values.end());
    return;
  }
  // Doubles as unsigned keys in the same order: flip the sign bit of positives, every bit of
  // negatives. Then an LSD radix sort, 11 bits a pass; a pass whose digit is the same for every
  // value (most of the exponent bits of a sample of durations) is skipped.
  // The keys live in the values' own storage; the one scratch array is left uninitialised (a
  // zeroed pair of arrays was a memset and a page fault per 4 KiB for every large group). Keys
  // are read and written with memcpy: the storage holds doubles.
  constexpr int kBits = 11, kPasses = 6, kBuckets = 1 << kBits;
  static_assert(sizeof(double) == sizeof(uint64_t));
  auto load = [](const unsigned char* at, size_t i) {
    uint64_t u;
    std::memcpy(&u, at + i * 8, 8);
    return u;
  };
  auto store = [](unsigned char* at, size_t i, uint64_t u) { std::memcpy(at + i * 8, &u, 8); };
  unsigned char* const home = reinterpret_cast<unsigned char*>(values.data());
  std::unique_ptr<unsigned char[]> scratch(new unsigned char[n * 8]);
  unsigned char* keys = home;
  unsigned char* tmp = scratch.get();
  std::vector<uint32_t> count(size_t(kPasses) * kBuckets, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t u = load(keys, i);
    u = (u >> 63) ? ~u : (u | (uint64_t{1} << 63));
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
  for (size_t i = 0; i < n; ++i) {
    uint64_t u = load(keys, i);
    u = (u >> 63) ? (u & ~(uint64_t{1} << 63)) : ~u;
    store(home, i, u);
  }
}

SummaryStats Summarize(std::vector<double>& values) {
  SummaryStats s;
  if (values.empty()) return s;
  SortValues(values);
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
