#include "core/json_number.h"

#include <gtest/gtest.h>

#include <climits>

namespace optrace {
namespace {

using nlohmann::json;

TEST(JsonInteger, AnIntegerInRangeIsItsValue) {
  EXPECT_EQ(JsonInteger(json::parse("42"), 0, 100), 42);
  EXPECT_EQ(JsonInteger(json::parse("-3"), -5, 5), -3);
}

TEST(JsonInteger, AWholeFloatInRangeIsItsValue) { EXPECT_EQ(JsonInteger(json::parse("7.0"), 0, 100), 7); }

TEST(JsonInteger, AFloatFarOutOfRangeIsRejectedNotCast) {
  // 1e300 -> int was undefined behaviour (found by fuzz_plan_rules on a diagnosis rules file).
  EXPECT_EQ(JsonInteger(json::parse("1e300"), 0, INT_MAX), std::nullopt);
  EXPECT_EQ(JsonInteger(json::parse("-1e300"), INT_MIN, INT_MAX), std::nullopt);
  EXPECT_EQ(JsonInteger(json::parse("1e19"), 0, INT64_MAX), std::nullopt);
  EXPECT_EQ(JsonInteger(json::parse("9223372036854775808.0"), 0, INT64_MAX), std::nullopt);  // 2^63
}

TEST(JsonInteger, AnIntegerPastIntIsRejectedNotTruncated) {
  // 4294967297 truncates to 1 as an int.
  EXPECT_EQ(JsonInteger(json::parse("4294967297"), 0, INT_MAX), std::nullopt);
  EXPECT_EQ(JsonInteger(json::parse("18446744073709551615"), 0, INT64_MAX), std::nullopt);
}

TEST(JsonInteger, AFractionAStringAndNullAreRejected) {
  EXPECT_EQ(JsonInteger(json::parse("1.5"), 0, 100), std::nullopt);
  EXPECT_EQ(JsonInteger(json::parse("\"3\""), 0, 100), std::nullopt);
  EXPECT_EQ(JsonInteger(json(), 0, 100), std::nullopt);
}

TEST(JsonInteger, TheBoundsAreInclusive) {
  EXPECT_EQ(JsonInteger(json::parse("0"), 0, 10), 0);
  EXPECT_EQ(JsonInteger(json::parse("10"), 0, 10), 10);
  EXPECT_EQ(JsonInteger(json::parse("11"), 0, 10), std::nullopt);
  EXPECT_EQ(JsonInteger(json::parse("-1"), 0, 10), std::nullopt);
}

}  // namespace
}  // namespace optrace
