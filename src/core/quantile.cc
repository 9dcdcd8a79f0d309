#include "core/quantile.h"

#include <algorithm>
#include <cmath>

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

SummaryStats Summarize(std::vector<double>& values) {
  SummaryStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
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
