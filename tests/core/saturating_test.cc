#include "core/saturating.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(SubSaturating, InRangeIsTheDifference) { EXPECT_EQ(SubSaturating(1000, 250), 750); }

TEST(SubSaturating, PastTheRangeIsClampedNotWrapped) {
  // A db timestamp of INT64_MIN minus a capture base of 1.7e18 ns (fuzz_export_db_sql, UBSan).
  EXPECT_EQ(SubSaturating(kMin, 1736407067950342548), kMin);
  EXPECT_EQ(SubSaturating(kMax, -5), kMax);
  EXPECT_EQ(SubSaturating(0, kMin), kMax);
}

}  // namespace
}  // namespace optrace
