#include "analyze/model/events.h"

#include <gtest/gtest.h>

namespace optrace::analyze {
namespace {

TEST(EventWaitTest, WaitsBelowTwoToThe31NsAreKeptInTheEvent) {
  RankTable t;
  Event e;
  e.wait = PackWait(0, t.long_waits);
  EXPECT_EQ(t.WaitNs(e), 0);
  e.wait = PackWait(int64_t{kLongWait} - 1, t.long_waits);
  EXPECT_EQ(t.WaitNs(e), int64_t{kLongWait} - 1);
  EXPECT_TRUE(t.long_waits.empty());
}

TEST(EventWaitTest, LongerWaitsGoBesideTheTable) {
  RankTable t;
  Event a, b;
  a.wait = PackWait(int64_t{kLongWait}, t.long_waits);
  b.wait = PackWait(int64_t{86400} * 1000000000, t.long_waits);  // a day
  EXPECT_EQ(t.WaitNs(a), int64_t{kLongWait});
  EXPECT_EQ(t.WaitNs(b), int64_t{86400} * 1000000000);
  EXPECT_EQ(t.long_waits.size(), 2u);
}

TEST(EventWaitTest, NegativeOrMissingWaitsReadAsMinusOne) {
  RankTable t;
  Event e;
  EXPECT_EQ(t.WaitNs(e), -1);  // a fresh event has none
  e.wait = PackWait(-5, t.long_waits);
  EXPECT_EQ(t.WaitNs(e), -1);
}

TEST(EventWaitTest, RepackMovesALongWaitToAnotherTable) {
  RankTable from, to;
  to.long_waits = {7, 8, 9};
  Event e;
  e.wait = PackWait(int64_t{5} * 1000000000, from.long_waits);
  e.wait = RepackWait(e.wait, from.long_waits, to.long_waits);
  EXPECT_EQ(to.WaitNs(e), int64_t{5} * 1000000000);
  Event short_wait;
  short_wait.wait = PackWait(1234, from.long_waits);
  EXPECT_EQ(RepackWait(short_wait.wait, from.long_waits, to.long_waits), 1234u);
}

}  // namespace
}  // namespace optrace::analyze
