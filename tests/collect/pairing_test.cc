#include "collect/pairing.h"

#include <gtest/gtest.h>

namespace optrace::collect {
namespace {

ResolvedEvent B(uint32_t label, int64_t t, uint32_t payload = 0) { return {label, false, label * 2, payload, t}; }
ResolvedEvent E(uint32_t label, int64_t t, uint32_t payload = 0) { return {label, true, label * 2 + 1, payload, t}; }

struct Paired {
  std::vector<Interval> intervals;
  std::vector<Instant> instants;
  PairStats stats;
};

Paired Pair(std::vector<ResolvedEvent> evs, PairMode mode) {
  Paired p;
  p.stats = PairCore(CoreRef{0, CoreKind::kAiv, 3, 0}, evs, mode, p.intervals, p.instants);
  return p;
}

TEST(Pairing, NestClosesInnermostOpenBeginOfSameLabel) {
  Paired p = Pair({B(1, 0), B(1, 10), E(1, 20), E(1, 30)}, PairMode::kNest);
  ASSERT_EQ(p.intervals.size(), 2u);
  EXPECT_EQ(p.intervals[0].begin_ticks, 10);
  EXPECT_EQ(p.intervals[0].end_ticks, 20);
  EXPECT_EQ(p.intervals[1].begin_ticks, 0);
  EXPECT_EQ(p.intervals[1].end_ticks, 30);
  EXPECT_EQ(p.intervals[0].core_index, 3u);
  EXPECT_TRUE(p.instants.empty());
}

TEST(Pairing, NestCrossedEndClosesItsLabelAndCountsIt) {
  // B a, B b, E a, E b: a closes over the still-open b; b then closes normally.
  Paired p = Pair({B(1, 0), B(2, 5), E(1, 10), E(2, 15)}, PairMode::kNest);
  ASSERT_EQ(p.intervals.size(), 2u);
  EXPECT_EQ(p.stats.crossed, 1u);
  EXPECT_EQ(p.intervals[0].label, 1u);
  EXPECT_EQ(p.intervals[1].label, 2u);
  EXPECT_EQ(p.intervals[1].end_ticks, 15);
}

TEST(Pairing, EndBeforeItsBeginIsKeptAsTwoInstantsNotANegativeInterval) {
  for (PairMode mode : {PairMode::kNest, PairMode::kSeq}) {
    Paired p = Pair({B(1, 100), E(1, 60), B(2, 200), E(2, 260)}, mode);
    ASSERT_EQ(p.intervals.size(), 1u);
    EXPECT_EQ(p.intervals[0].label, 2u);
    EXPECT_EQ(p.stats.reversed, 1u);
    ASSERT_EQ(p.instants.size(), 2u);
    EXPECT_TRUE(p.instants[0].is_begin);
    EXPECT_EQ(p.instants[0].ticks, 100);
    EXPECT_FALSE(p.instants[1].is_begin);
    EXPECT_EQ(p.instants[1].ticks, 60);
  }
}

TEST(Pairing, OrphanBeginBecomesFlaggedInstant) {
  Paired p = Pair({B(1, 0), B(2, 5), E(2, 10)}, PairMode::kNest);
  ASSERT_EQ(p.intervals.size(), 1u);
  ASSERT_EQ(p.instants.size(), 1u);
  EXPECT_TRUE(p.instants[0].is_begin);
  EXPECT_EQ(p.instants[0].label, 1u);
  EXPECT_EQ(p.instants[0].ticks, 0);
}

TEST(Pairing, OrphanEndBecomesFlaggedInstant) {
  Paired p = Pair({E(4, 7)}, PairMode::kSeq);
  ASSERT_EQ(p.instants.size(), 1u);
  EXPECT_FALSE(p.instants[0].is_begin);
  EXPECT_EQ(p.instants[0].point_id, 9u);
}

TEST(Pairing, SeqPairsBeginWithNextEndOfSameSequenceNumber) {
  const uint32_t s1 = 1 << 8, s2 = 2 << 8 | 3;  // seq 1 tag 0, seq 2 tag 3
  Paired p = Pair({B(1, 0, s1), B(1, 5, s2), E(1, 10, s2), E(1, 20, s1)}, PairMode::kSeq);
  ASSERT_EQ(p.intervals.size(), 2u);
  EXPECT_EQ(p.intervals[0].begin_ticks, 5);
  EXPECT_EQ(p.intervals[0].end_ticks, 10);
  EXPECT_EQ(p.intervals[1].begin_ticks, 0);
  EXPECT_EQ(p.intervals[1].end_ticks, 20);
}

TEST(Pairing, SeqIgnoresTheTagByte) {
  Paired p = Pair({B(1, 0, 1 << 8 | 7), E(1, 10, 1 << 8 | 2)}, PairMode::kSeq);
  EXPECT_EQ(p.intervals.size(), 1u);
}

TEST(Pairing, FifoClosesOldestOpenBegin) {
  Paired p = Pair({B(1, 0), B(1, 5), E(1, 10), E(1, 20)}, PairMode::kFifo);
  ASSERT_EQ(p.intervals.size(), 2u);
  EXPECT_EQ(p.intervals[0].begin_ticks, 0);
  EXPECT_EQ(p.intervals[0].end_ticks, 10);
  EXPECT_EQ(p.intervals[1].begin_ticks, 5);
}

Interval Iv(int64_t b, int64_t e) {
  Interval iv;
  iv.begin_ticks = b;
  iv.end_ticks = e;
  return iv;
}

TEST(Nesting, DepthCountsFromTheLeavesAndSelfSubtractsDirectChildren) {
  // root [0,100] > mid [10,60] > leaf [20,30]; leaf2 [70,80] directly under root.
  std::vector<Interval> v = {Iv(20, 30), Iv(10, 60), Iv(70, 80), Iv(0, 100)};
  ComputeNesting(v);
  ASSERT_EQ(v[0].begin_ticks, 0);
  EXPECT_EQ(v[0].depth, 3u);
  EXPECT_EQ(v[0].self_ticks, 100 - 50 - 10);
  EXPECT_EQ(v[1].begin_ticks, 10);
  EXPECT_EQ(v[1].depth, 2u);
  EXPECT_EQ(v[1].self_ticks, 40);
  EXPECT_EQ(v[2].depth, 1u);
  EXPECT_EQ(v[3].depth, 1u);
}

TEST(Nesting, OverlappingSiblingsNeverMakeSelfTimeNegative) {
  // Two children overlap each other inside the parent: union [10,90] is 80 ticks.
  std::vector<Interval> v = {Iv(0, 100), Iv(10, 60), Iv(40, 90)};
  ComputeNesting(v);
  EXPECT_EQ(v[0].self_ticks, 20);
}

TEST(Nesting, ApplyDepthKeepsIntervalsUpToTheGivenHeight) {
  std::vector<Interval> v = {Iv(0, 100), Iv(10, 60), Iv(20, 30)};
  ComputeNesting(v);
  std::vector<Interval> two = v;
  ApplyDepth(two, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].begin_ticks, 10);
  ApplyDepth(v, 0);
  EXPECT_EQ(v.size(), 3u);
}

}  // namespace
}  // namespace optrace::collect
