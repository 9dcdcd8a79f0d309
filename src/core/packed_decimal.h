// PackedDecimal: a plain decimal number as an export wrote it ("12.345"), in 4 bytes.
//
//   std::vector<double> overflow;                       // the rare value that does not fit
//   uint32_t bits = PackDecimalText("12.345", overflow);   // or kPackedMissing for "N/A"
//   double v = UnpackDecimal(bits, overflow);           // 12345 * 1e-3: the double a parse gives
//
// Why: profiler exports hold tens of millions of pipeline times with a few significant digits.
// A double costs 8 bytes each; a float rounds 38332.239 to 38332.2383 (sums drift in the third
// decimal). The digits m (< 2^28) and the number k of them after the point (0..13) fit 32 bits,
// and m * 10^-k computed in double is exactly the value the text parser produced before. Anything
// else (negative, an exponent, more digits) keeps its double in a side vector the bits index.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace optrace {

inline constexpr uint32_t kPackedMissing = 0xffffffffu;

// 10^-k for k = 0..15 (multiplying by these is how the value is formed: no divide).
inline constexpr double kNegPow10[16] = {1e0, 1e-1, 1e-2, 1e-3, 1e-4,  1e-5,  1e-6,  1e-7,
                                         1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15};

namespace packed_decimal_detail {
inline constexpr uint32_t kOverflowTag = 14u;  // top nibble 14: low 28 bits index the overflow vector
inline constexpr uint32_t kMantissaLimit = 1u << 28;
}  // namespace packed_decimal_detail

// The value of a field: NaN when missing.
inline double UnpackDecimal(uint32_t bits, const std::vector<double>& overflow) {
  uint32_t k = bits >> 28;
  uint32_t low = bits & (packed_decimal_detail::kMantissaLimit - 1);
  if (k < packed_decimal_detail::kOverflowTag) return double(low) * kNegPow10[k];
  if (k == packed_decimal_detail::kOverflowTag) return overflow[low];
  return __builtin_nan("");
}

inline bool IsPackedOverflow(uint32_t bits) { return (bits >> 28) == packed_decimal_detail::kOverflowTag; }
// Whether `bits` is a packed zero: m = 0 with any number k of decimals, every one +0.0.
inline bool IsPackedZero(uint32_t bits) {
  return (bits >> 28) < packed_decimal_detail::kOverflowTag && (bits & (packed_decimal_detail::kMantissaLimit - 1)) == 0;
}
inline uint32_t PackedOverflowIndex(uint32_t bits) { return bits & (packed_decimal_detail::kMantissaLimit - 1); }

// Packs a value that is already a double (a db column): exact when some m * 10^-k equals it,
// else stored in `overflow`. NaN packs as missing.
uint32_t PackDecimalValue(double v, std::vector<double>& overflow);

// Packs a CSV field: spaces, tabs and CR around it are ignored; "", N/A and other non-numbers are
// missing. Plain decimals of up to 15 digits give m * 10^-k (in double) and other numbers their
// correctly rounded value, as ParseCsvNumber would.
uint32_t PackDecimalText(std::string_view field, std::vector<double>& overflow);

// Copies a packed value from one overflow vector's world into another's.
inline uint32_t RepackDecimal(uint32_t bits, const std::vector<double>& from, std::vector<double>& to) {
  if (!IsPackedOverflow(bits)) return bits;
  return PackDecimalValue(from[PackedOverflowIndex(bits)], to);
}

}  // namespace optrace
