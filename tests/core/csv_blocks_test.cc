#include "core/csv_blocks.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace optrace {
namespace {

BlockMasks ByteByByte(const char* p) {
  BlockMasks m;
  for (int k = 0; k < 64; ++k) {
    m.quote |= uint64_t{p[k] == '"'} << k;
    m.newline |= uint64_t{p[k] == '\n'} << k;
    m.comma |= uint64_t{p[k] == ','} << k;
  }
  return m;
}

TEST(CsvBlocks, BothClassifiersMarkEveryQuoteNewlineAndComma) {
  // Bytes around the searched ones (and above 0x7f) are where a SWAR compare would go wrong.
  const std::string alphabet = std::string("\",\n\r!#+-.\x80\xff\x22\x2c\x0a\x0b", 16) + "a1";
  std::mt19937 rng(3);
  for (int round = 0; round < 2000; ++round) {
    char block[64];
    for (char& c : block) c = alphabet[rng() % alphabet.size()];
    const BlockMasks want = ByteByByte(block);
    for (const BlockMasks& got : {ClassifyBlock(block), ClassifyBlockPortable(block)}) {
      ASSERT_EQ(got.quote, want.quote) << "round " << round;
      ASSERT_EQ(got.newline, want.newline) << "round " << round;
      ASSERT_EQ(got.comma, want.comma) << "round " << round;
    }
  }
}

TEST(CsvBlocks, PrefixXorMarksTheBytesInsideQuotes) {
  // "ab,"c  -> the quote opens at 0 and closes at 4: bytes 0..3 are inside.
  EXPECT_EQ(PrefixXor(0b10001), 0b01111u);
  EXPECT_EQ(PrefixXor(0), 0u);
  EXPECT_EQ(PrefixXor(1), ~uint64_t{0});  // an open quote runs to the end of the block
}

}  // namespace
}  // namespace optrace
