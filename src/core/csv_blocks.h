// CSV structure 64 bytes at a time: where the quotes, newlines and commas are, as bit masks.
//
//   BlockMasks m = ClassifyBlock(p);          // bit k set where p[k] is '"' / '\n' / ','
//   uint64_t inside = PrefixXor(m.quote);     // bit k set where byte k is inside quotes
//   uint64_t ends = m.newline & ~inside;      // newlines that end a record
//
// CsvReader finds records and cuts unquoted fields with these (simdjson's and simdcsv's idea: one
// pass of wide compares, then bit arithmetic instead of a branch per byte). ClassifyBlock uses
// SSE2 on x86-64 and NEON on aarch64 (both baseline on those CPUs), ClassifyBlockPortable
// elsewhere; tests hold the two equal (scripts/test-aarch64.sh runs them under qemu).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define OPTRACE_CSV_NEON 1
#endif

namespace optrace {

static_assert(std::endian::native == std::endian::little, "the lowest set bit must be the first byte");

struct BlockMasks {
  uint64_t quote = 0, newline = 0, comma = 0;
};

inline uint64_t LoadWord(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Byte-at-a-time work done a 64-bit word at a time (portable SWAR; no ISA assumptions): the high
// bit of each byte of the result is set where `word` holds byte `c`, exactly (no carries between
// bytes).
inline uint64_t ByteMask(uint64_t word, char c) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kLow7 = 0x7f7f7f7f7f7f7f7full;
  uint64_t x = word ^ (kOnes * static_cast<uint8_t>(c));
  return ~(((x & kLow7) + kLow7) | x | kLow7);
}

// Eight SWAR words; the high bit of each matching byte gathered into one bit per byte by a
// multiply (the products of distinct bytes land on distinct bits: no carries).
inline BlockMasks ClassifyBlockPortable(const char* p) {
  auto gather = [](uint64_t high_bits) { return ((high_bits >> 7) * 0x0102040810204080ull) >> 56; };
  BlockMasks m;
  for (int k = 0; k < 8; ++k) {
    const uint64_t w = LoadWord(p + 8 * k);
    m.quote |= gather(ByteMask(w, '"')) << (8 * k);
    m.newline |= gather(ByteMask(w, '\n')) << (8 * k);
    m.comma |= gather(ByteMask(w, ',')) << (8 * k);
  }
  return m;
}

inline BlockMasks ClassifyBlock(const char* p) {
#if defined(__SSE2__)
  const __m128i q = _mm_set1_epi8('"'), n = _mm_set1_epi8('\n'), c = _mm_set1_epi8(',');
  BlockMasks m;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const int shift = 16 * k;
    m.quote |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)))) << shift;
    m.newline |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, n)))) << shift;
    m.comma |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, c)))) << shift;
  }
  return m;
#elif defined(OPTRACE_CSV_NEON)
  // NEON has no movemask: keep bit (k mod 8) of each matching byte k, then three rounds of pairwise
  // byte adds fold the four 16-byte compares into the 8 bytes of one 64-bit mask, byte k's bit at k.
  const uint8x16_t weights = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const uint8x16_t v0 = vld1q_u8(reinterpret_cast<const uint8_t*>(p)),
                   v1 = vld1q_u8(reinterpret_cast<const uint8_t*>(p + 16)),
                   v2 = vld1q_u8(reinterpret_cast<const uint8_t*>(p + 32)),
                   v3 = vld1q_u8(reinterpret_cast<const uint8_t*>(p + 48));
  auto mask = [&](uint8_t c) {
    const uint8x16_t k = vdupq_n_u8(c);
    const uint8x16_t m0 = vandq_u8(vceqq_u8(v0, k), weights), m1 = vandq_u8(vceqq_u8(v1, k), weights),
                     m2 = vandq_u8(vceqq_u8(v2, k), weights), m3 = vandq_u8(vceqq_u8(v3, k), weights);
    uint8x16_t sum = vpaddq_u8(vpaddq_u8(m0, m1), vpaddq_u8(m2, m3));
    sum = vpaddq_u8(sum, sum);
    return vgetq_lane_u64(vreinterpretq_u64_u8(sum), 0);
  };
  BlockMasks m;
  m.quote = mask('"');
  m.newline = mask('\n');
  m.comma = mask(',');
  return m;
#else
  return ClassifyBlockPortable(p);
#endif
}

// Bit k set where an odd number of the bits 0..k of `x` are set (the quotes up to and including
// byte k): six shift-XORs; a 64-bit mask needs no carry-less multiply.
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

}  // namespace optrace
