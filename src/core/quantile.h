// Order statistics used by every report: one definition, documented once.
//
//   std::vector<double> v = {...};
//   SummaryStats s = Summarize(v);   // count, total, mean, min, max, p50, p90, p95, p99
//   double p95 = Quantile(sorted, 0.95);
//
// Quantile definition: linear interpolation between closest ranks on the sorted sample
// (Hyndman & Fan type 7, numpy's default): h = (n - 1) * q, result = x[floor(h)] +
// (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]). A sample of one value returns that value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace optrace {

// `sorted` must be sorted ascending and non-empty; q in [0, 1].
double Quantile(const std::vector<double>& sorted, double q);

struct SummaryStats {
  size_t count = 0;
  double total = 0, mean = 0, min = 0, max = 0;
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0;
  double stddev = 0;  // population standard deviation
};

// Sorts ascending, as std::sort would (large samples by a radix sort: the summaries sort millions
// of durations). NaN has no place in a sample.
void SortValues(std::vector<double>& values);
// The same for integers (durations in ns: a radix sort of their few significant bits, where their
// doubles in us would take every pass).
void SortValues(std::vector<int64_t>& values);
// The same in place, with room for the sort's copy given: `scratch` at least as long as `values`
// (a shorter one sorts by std::sort). Lets a caller sort many slices of one block without an
// allocation per slice.
void SortValues(std::span<int64_t> values, std::span<int64_t> scratch);

// Sorts `values` in place. An empty sample gives a zero SummaryStats with count 0.
SummaryStats Summarize(std::vector<double>& values);
// The same for a sample already sorted ascending.
SummaryStats SummarizeSorted(const std::vector<double>& sorted);
// SummarizeSorted of durations held as sorted integer nanoseconds, in microseconds: each value is
// read as double(ns) / 1000, so the result is the one SummarizeSorted gives on those doubles.
SummaryStats SummarizeSortedNsAsUs(std::span<const int64_t> sorted_ns);

}  // namespace optrace
