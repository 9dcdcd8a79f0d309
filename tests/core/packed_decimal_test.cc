#include "core/packed_decimal.h"

#include <gtest/gtest.h>

#include <cmath>

namespace optrace {
namespace {

TEST(PackedDecimalTest, PlainDecimalsPackToTheParsersDouble) {
  std::vector<double> overflow;
  for (const char* text : {"12.345", "0", "0.0", "38332.239", "9.406", "268435455", "1.5"}) {
    uint32_t bits = PackDecimalText(text, overflow);
    EXPECT_FALSE(IsPackedOverflow(bits)) << text;
    EXPECT_NE(bits, kPackedMissing) << text;
  }
  EXPECT_TRUE(overflow.empty());
  EXPECT_EQ(UnpackDecimal(PackDecimalText("12.345", overflow), overflow), 12345 * 1e-3);
  EXPECT_EQ(UnpackDecimal(PackDecimalText(" 38332.239\t", overflow), overflow), 38332239 * 1e-3);
}

TEST(PackedDecimalTest, SumsKeepTheThirdDecimal) {
  // As floats these two summed to 76648.191406 (printed 76648.191): the packed form must not.
  std::vector<double> overflow;
  double sum = UnpackDecimal(PackDecimalText("38332.239", overflow), overflow) +
               UnpackDecimal(PackDecimalText("38315.953", overflow), overflow);
  EXPECT_NEAR(sum, 76648.192, 1e-9);
}

TEST(PackedDecimalTest, MissingValuesUnpackAsNaN) {
  std::vector<double> overflow;
  for (const char* text : {"", "  ", "N/A", "NA", "-", ".", "abc"}) {
    uint32_t bits = PackDecimalText(text, overflow);
    EXPECT_EQ(bits, kPackedMissing) << text;
    EXPECT_TRUE(std::isnan(UnpackDecimal(bits, overflow))) << text;
  }
  EXPECT_TRUE(overflow.empty());
}

TEST(PackedDecimalTest, ValuesThatDoNotPackKeepTheirDouble) {
  std::vector<double> overflow;
  uint32_t neg = PackDecimalText("-12.5", overflow);
  uint32_t exp = PackDecimalText("1.5e3", overflow);
  uint32_t big = PackDecimalText("123456789012.5", overflow);  // more digits than 28 bits hold
  uint32_t fine = PackDecimalText("0.12345678901234", overflow);  // 14 digits after the point
  EXPECT_TRUE(IsPackedOverflow(neg));
  EXPECT_EQ(UnpackDecimal(neg, overflow), -12.5);
  EXPECT_EQ(UnpackDecimal(exp, overflow), 1500.0);
  EXPECT_EQ(UnpackDecimal(big, overflow), 1234567890125 * 1e-1);
  EXPECT_EQ(UnpackDecimal(fine, overflow), 12345678901234 * 1e-14);
  EXPECT_EQ(overflow.size(), 4u);
}

TEST(PackedDecimalTest, DoublesPackExactlyOrOverflow) {
  std::vector<double> overflow;
  for (double v : {48114.9 / 1000.0, 0.0, 1.0, 0.1955, 123.456, 1e-9, 3.0e12, 1.0 / 3.0}) {
    uint32_t bits = PackDecimalValue(v, overflow);
    EXPECT_EQ(UnpackDecimal(bits, overflow), v) << v;
  }
  EXPECT_EQ(PackDecimalValue(std::nan(""), overflow), kPackedMissing);
}

TEST(PackedDecimalTest, RepackMovesOverflowValuesToTheOtherVector) {
  std::vector<double> from, to = {7.0};
  uint32_t bits = PackDecimalText("-3.25", from);
  uint32_t moved = RepackDecimal(bits, from, to);
  EXPECT_EQ(UnpackDecimal(moved, to), -3.25);
  EXPECT_EQ(to.size(), 2u);
  uint32_t plain = PackDecimalText("2.5", from);
  EXPECT_EQ(RepackDecimal(plain, from, to), plain);
}

}  // namespace
}  // namespace optrace
