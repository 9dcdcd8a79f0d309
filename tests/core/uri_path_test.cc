#include "core/uri_path.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(UriPath, KeepsUnreservedCharactersAndSlashes) {
  EXPECT_EQ(UriPath("/runs/op-1/x_y.z~"), "/runs/op-1/x_y.z~");
}

TEST(UriPath, EncodesEverythingElseAsUpperHex) {
  EXPECT_EQ(UriPath("a b#c?d%e"), "a%20b%23c%3Fd%25e");
  EXPECT_EQ(UriPath("\xe7\xae\x97"), "%E7%AE%97");  // a non-ASCII name, byte by byte
}

}  // namespace
}  // namespace optrace
