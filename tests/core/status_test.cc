#include "core/status.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

Result<int> Half(int x) {
  if (x % 2) return BadInputError("{} is odd", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  OPTRACE_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

TEST(StatusTest, ErrorCarriesCodeAndFormattedMessage) {
  Status s = BadInputError("{}: count {} > capacity {}", "rank3.bin", 1900, 1023);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kBadInput);
  EXPECT_EQ(s.message(), "rank3.bin: count 1900 > capacity 1023");
}

TEST(StatusTest, WithContextPrefixesOnlyErrors) {
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
  EXPECT_EQ(IoError("boom").WithContext("dumps/").message(), "dumps/: boom");
}

TEST(StatusTest, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
}

}  // namespace
}  // namespace optrace
