#include "collect/crc32.h"

#include <zlib.h>

#include <algorithm>
#include <cstddef>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OPTRACE_CRC32_CLMUL 1
#include <immintrin.h>
#elif defined(__aarch64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#define OPTRACE_CRC32_ARM 1
#include <arm_acle.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>

#include <cstring>
#endif

namespace optrace::collect {
namespace {

#if defined(OPTRACE_CRC32_CLMUL)

// Folding constants for the reflected CRC-32 polynomial: x^(4*128+32) and x^(4*128-32) mod P
// (64-byte folds), x^(128+32) and x^(128-32) mod P (16-byte folds), x^64 mod P, and P with
// its Barrett constant floor(x^64 / P), all bit-reflected, as the paper derives them.
alignas(16) constexpr uint64_t kFold64[2] = {0x0154442bd4, 0x01c6e41596};
alignas(16) constexpr uint64_t kFold16[2] = {0x01751997d0, 0x00ccaa009e};
alignas(16) constexpr uint64_t kFold8[2] = {0x0163cd6124, 0};
alignas(16) constexpr uint64_t kBarrett[2] = {0x01db710641, 0x01f7011641};

// One 128-bit fold: x * k (both halves, carry-less) + next.
__attribute__((target("pclmul,sse4.1"))) inline __m128i Fold(__m128i x, __m128i k, __m128i next) {
  const __m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
  const __m128i hi = _mm_clmulepi64_si128(x, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

// The register value (the CRC before zlib's final inversion) after `n` bytes, n >= 64 and a
// multiple of 16.
__attribute__((target("pclmul,sse4.1"))) uint32_t FoldBlocks(uint32_t reg, const unsigned char* p, size_t n) {
  auto load = [](const unsigned char* at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at)); };
  __m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(reg)));
  __m128i x2 = load(p + 16), x3 = load(p + 32), x4 = load(p + 48);
  p += 64;
  n -= 64;
  __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(kFold64));
  for (; n >= 64; p += 64, n -= 64) {  // four independent lanes keep the multiplier busy
    x1 = Fold(x1, k, load(p));
    x2 = Fold(x2, k, load(p + 16));
    x3 = Fold(x3, k, load(p + 32));
    x4 = Fold(x4, k, load(p + 48));
  }
  k = _mm_load_si128(reinterpret_cast<const __m128i*>(kFold16));
  x1 = Fold(x1, k, x2);
  x1 = Fold(x1, k, x3);
  x1 = Fold(x1, k, x4);
  for (; n >= 16; p += 16, n -= 16) x1 = Fold(x1, k, load(p));
  // 128 -> 64 bits.
  const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(x1, k, 0x10));
  k = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kFold8));
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 4), _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k, 0x00));
  // Barrett reduction to 32 bits.
  k = _mm_load_si128(reinterpret_cast<const __m128i*>(kBarrett));
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), k, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(x1, t), 1));
}

bool HasClmul() {
  static const bool has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return has;
}

#endif

#if defined(OPTRACE_CRC32_ARM)

// ARMv8's CRC32 instructions compute zlib's polynomial (CRC32C is the other family) on the
// register value, 8 bytes an instruction. Optional in ARMv8.0 (every Kunpeng has it): used only
// when the kernel reports it.
__attribute__((target("+crc"))) uint32_t ArmCrcRegister(uint32_t reg, const unsigned char* p, size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    reg = __crc32d(reg, w);
  }
  for (; n > 0; ++p, --n) reg = __crc32b(reg, *p);
  return reg;
}

bool HasArmCrc() {
  static const bool has = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
  return has;
}

#endif

}  // namespace

uint32_t Crc32Portable(uint32_t crc, std::string_view bytes) {
  uLong c = crc;
  for (size_t off = 0; off < bytes.size();) {
    const uInt n = static_cast<uInt>(std::min<size_t>(bytes.size() - off, size_t{1} << 30));
    c = ::crc32(c, reinterpret_cast<const Bytef*>(bytes.data() + off), n);
    off += n;
  }
  return static_cast<uint32_t>(c);
}

uint32_t Crc32(uint32_t crc, std::string_view bytes) {
#if defined(OPTRACE_CRC32_CLMUL)
  if (bytes.size() >= 64 && HasClmul()) {
    const size_t folded = bytes.size() & ~size_t{15};
    const uint32_t reg = FoldBlocks(~crc, reinterpret_cast<const unsigned char*>(bytes.data()), folded);
    return Crc32Portable(~reg, bytes.substr(folded));
  }
#elif defined(OPTRACE_CRC32_ARM)
  if (HasArmCrc()) return ~ArmCrcRegister(~crc, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
#endif
  return Crc32Portable(crc, bytes);
}

}  // namespace optrace::collect
