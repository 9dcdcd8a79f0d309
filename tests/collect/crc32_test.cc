#include "collect/crc32.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace optrace::collect {
namespace {

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

TEST(Crc32, MatchesTheKnownCheckValue) {
  EXPECT_EQ(Crc32(0, "123456789"), 0xcbf43926u);  // the CRC-32/ISO-HDLC check value
  EXPECT_EQ(Crc32(0, ""), 0u);
}

TEST(Crc32, EqualsZlibForEveryLengthAndAlignment) {
  // Lengths around every block edge of the folded path (16, 64), at every offset mod 16.
  const std::string bytes = RandomBytes(1200, 1);
  for (size_t off = 0; off < 16; ++off) {
    for (size_t n = 0; off + n <= 1100; n += (n < 300 ? 1 : 37)) {
      const std::string_view v = std::string_view(bytes).substr(off, n);
      ASSERT_EQ(Crc32(0, v), Crc32Portable(0, v)) << "offset " << off << " length " << n;
      ASSERT_EQ(Crc32(0xdeadbeef, v), Crc32Portable(0xdeadbeef, v)) << "offset " << off << " length " << n;
    }
  }
}

TEST(Crc32, ChainsLikeOneCall) {
  const std::string bytes = RandomBytes(1 << 20, 2);
  const std::string_view v(bytes);
  EXPECT_EQ(Crc32(Crc32(0, v.substr(0, 1000)), v.substr(1000)), Crc32(0, v));
  EXPECT_EQ(Crc32(0, v), Crc32Portable(0, v));
}

}  // namespace
}  // namespace optrace::collect
