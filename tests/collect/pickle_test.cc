// The pickle machine on hostile input (issue 29): nesting is bounded, so a pickle 300,000 lists
// deep is refused with a message instead of overflowing the stack when its objects are freed.
#include "collect/pickle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace optrace::collect {
namespace {
using ::testing::HasSubstr;

// `depth` nested lists: push them all, then APPEND each into the one below it.
std::string NestedLists(size_t depth) {
  std::string p = "\x80\x02";
  p.append(depth, ']');
  p.append(depth - 1, 'a');
  return p + ".";
}

TEST(PickleTest, ListsNestedPastTheBoundAreRefusedNotAStackOverflow) {
  Result<PyRef> r = RunPickle(NestedLists(300000), "deep.pt");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("nests containers more than 256 levels deep"));
  EXPECT_THAT(r.status().message(), HasSubstr("deep.pt"));
}

TEST(PickleTest, NestingWithinTheBoundIsRead) {
  Result<PyRef> r = RunPickle(NestedLists(200), "ok.pt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->depth, 200u);
}

TEST(PickleTest, TuplesNestedThroughMarksAreBoundedToo) {
  std::string p = "\x80\x02";
  for (int i = 0; i < 100000; ++i) p += '(';
  for (int i = 0; i < 100000; ++i) p += 't';
  p += '.';
  Result<PyRef> r = RunPickle(p, "t.pt");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("levels deep"));
}

TEST(PickleTest, TupleTakingItemsFromBelowAMarkIsAnUnderflowNotAnAbort) {
  // Found by fuzz_pickle: TUPLE2 reached under the MARK, the mark was left past the top and TUPLE
  // built a vector of negative size (std::length_error, abort).
  Result<PyRef> r = RunPickle(std::string("\x80\x02]](\x86t.", 8), "mark.pt");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("stack underflow"));
  EXPECT_THAT(r.status().message(), HasSubstr("mark.pt"));
}

TEST(PickleTest, TupleAboveTheMarkIsRead) {
  Result<PyRef> r = RunPickle(std::string("\x80\x02(]]\x86t.", 8), "ok.pt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->kind, PyObj::Kind::kTuple);
}

}  // namespace
}  // namespace optrace::collect
