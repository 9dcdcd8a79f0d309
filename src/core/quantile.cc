#include "core/quantile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

namespace optrace {

namespace {

template <typename At>
double QuantileAt(size_t n, At at, double q) {
  if (n == 0) return 0;
  if (q <= 0) return at(0);
  if (q >= 1) return at(n - 1);
  double h = static_cast<double>(n - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= n) return at(n - 1);
  double frac = h - static_cast<double>(lo);
  return at(lo) + frac * (at(lo + 1) - at(lo));
}

}  // namespace

double Quantile(const std::vector<double>& sorted, double q) {
  return QuantileAt(sorted.size(), [&](size_t i) { return sorted[i]; }, q);
}

namespace {

// Sorts 64-bit words that hold order-preserving unsigned keys: `to_key` maps a stored word to its
// key (the first pass applies it in place) and `from_key` maps it back (the last pass). An LSD
// radix sort, 11 bits a pass; a pass whose digit is the same for every value (the high bits of a
// sample of durations) is skipped. The words are read and written with memcpy: the storage may
// hold doubles. `scratch` holds n words, uninitialised (a zeroed pair of arrays was a memset and a
// page fault per 4 KiB for every large group).
template <typename ToKey, typename FromKey>
void RadixSortWords(unsigned char* const home, unsigned char* const scratch, size_t n, ToKey to_key,
                    FromKey from_key) {
  constexpr int kBits = 11, kPasses = 6, kBuckets = 1 << kBits;
  auto load = [](const unsigned char* at, size_t i) {
    uint64_t u;
    std::memcpy(&u, at + i * 8, 8);
    return u;
  };
  auto store = [](unsigned char* at, size_t i, uint64_t u) { std::memcpy(at + i * 8, &u, 8); };
  unsigned char* keys = home;
  unsigned char* tmp = scratch;
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
  std::unique_ptr<unsigned char[]> scratch(new unsigned char[values.size() * 8]);
  // Doubles as unsigned keys in the same order: flip the sign bit of positives, every bit of
  // negatives.
  RadixSortWords(
      reinterpret_cast<unsigned char*>(values.data()), scratch.get(), values.size(),
      [](uint64_t u) { return (u >> 63) ? ~u : (u | kSignBit); },
      [](uint64_t u) { return (u >> 63) ? (u & ~kSignBit) : ~u; });
}

void SortValues(std::span<int64_t> values, std::span<int64_t> scratch) {
  if (values.size() < 4096 || scratch.size() < values.size()) {
    std::sort(values.begin(), values.end());
    return;
  }
  // Two's complement as unsigned keys in the same order: flip the sign bit.
  RadixSortWords(
      reinterpret_cast<unsigned char*>(values.data()), reinterpret_cast<unsigned char*>(scratch.data()),
      values.size(), [](uint64_t u) { return u ^ kSignBit; }, [](uint64_t u) { return u ^ kSignBit; });
}

void SortValues(std::vector<int64_t>& values) {
  if (values.size() < 4096) {
    std::sort(values.begin(), values.end());
    return;
  }
  std::unique_ptr<int64_t[]> scratch(new int64_t[values.size()]);
  SortValues(std::span<int64_t>(values), std::span<int64_t>(scratch.get(), values.size()));
}

SummaryStats Summarize(std::vector<double>& values) {
  SortValues(values);
  return SummarizeSorted(values);
}

namespace {

// SummarizeSorted over the n values at(0) .. at(n - 1), ascending: one definition for samples
// held as doubles and as integer nanoseconds.
template <typename At>
SummaryStats SummarizeSortedAt(size_t n, At at) {
  SummaryStats s;
  if (n == 0) return s;
  s.count = n;
  for (size_t i = 0; i < n; ++i) s.total += at(i);
  s.mean = s.total / static_cast<double>(s.count);
  s.min = at(0);
  s.max = at(n - 1);
  s.p50 = QuantileAt(n, at, 0.50);
  s.p90 = QuantileAt(n, at, 0.90);
  s.p95 = QuantileAt(n, at, 0.95);
  s.p99 = QuantileAt(n, at, 0.99);
  double acc = 0;
  for (size_t i = 0; i < n; ++i) acc += (at(i) - s.mean) * (at(i) - s.mean);
  s.stddev = std::sqrt(acc / static_cast<double>(s.count));
  return s;
}

}  // namespace

SummaryStats SummarizeSorted(const std::vector<double>& values) {
  return SummarizeSortedAt(values.size(), [&](size_t i) { return values[i]; });
}

SummaryStats SummarizeSortedNsAsUs(std::span<const int64_t> sorted_ns) {
  return SummarizeSortedAt(sorted_ns.size(), [&](size_t i) { return double(sorted_ns[i]) / 1000.0; });
}

}  // namespace optrace
