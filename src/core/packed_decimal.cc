#include "core/packed_decimal.h"

#include <cmath>

#include "core/csv_reader.h"

namespace optrace {
namespace {

using packed_decimal_detail::kMantissaLimit;
using packed_decimal_detail::kOverflowTag;

uint32_t Overflow(double v, std::vector<double>& overflow) {
  if (overflow.size() >= kMantissaLimit - 1) return kPackedMissing;  // 268M odd values: give up on the rest
  overflow.push_back(v);
  return (kOverflowTag << 28) | static_cast<uint32_t>(overflow.size() - 1);
}

}  // namespace

uint32_t PackDecimalValue(double v, std::vector<double>& overflow) {
  if (std::isnan(v)) return kPackedMissing;
  if (v >= 0 && v < double(kMantissaLimit)) {
    double scaled = v;
    for (uint32_t k = 0; k < kOverflowTag; ++k, scaled *= 10) {
      if (scaled >= double(kMantissaLimit)) break;
      double m = std::nearbyint(scaled);
      if (double(m) * kNegPow10[k] == v) return (k << 28) | static_cast<uint32_t>(m);
    }
  }
  return Overflow(v, overflow);
}

uint32_t PackDecimalText(std::string_view f, std::vector<double>& overflow) {
  const char* p = f.data();
  const char* end = p + f.size();
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) --end;
  const char* text = p;
  bool neg = false;
  if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
  uint64_t m = 0;
  int digits = 0, frac = 0;
  bool dot = false, plain = true;
  for (; p < end; ++p) {
    char c = *p;
    if (c >= '0' && c <= '9') {
      m = m * 10 + uint64_t(c - '0');
      ++digits;
      frac += dot;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      plain = false;
      break;
    }
  }
  if (plain && digits == 0) return kPackedMissing;
  if (!plain || digits > 15) {  // exponents, N/A, long digit strings
    std::optional<double> v = ParseCsvNumber(std::string_view(text, size_t(end - text)));
    return v ? Overflow(*v, overflow) : kPackedMissing;
  }
  if (!neg && m < kMantissaLimit && frac < int(kOverflowTag)) return (uint32_t(frac) << 28) | uint32_t(m);
  double v = double(m) * kNegPow10[frac];
  return Overflow(neg ? -v : v, overflow);
}

}  // namespace optrace
