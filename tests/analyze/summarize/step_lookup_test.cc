#include "analyze/summarize/step_lookup.h"

#include <gtest/gtest.h>

#include <random>

namespace optrace::analyze {
namespace {

int64_t ScanEveryStep(const std::vector<Step>& steps, int rank, int64_t t) {  // the scan it replaced
  for (const Step& s : steps)
    if (s.rank == rank && s.start_ns <= t && t < s.end_ns) return s.step_id;
  return -1;
}

Step MakeStep(int rank, int64_t id, int64_t start, int64_t end) {
  Step s;
  s.rank = rank;
  s.step_id = id;
  s.start_ns = start;
  s.end_ns = end;
  return s;
}

TEST(StepLookup, FindsTheStepHoldingATimeAndNoneInTheGaps) {
  const std::vector<Step> steps = {MakeStep(0, 7, 100, 200), MakeStep(0, 8, 250, 400), MakeStep(1, 7, 0, 1000)};
  const StepLookup lookup(steps);
  EXPECT_EQ(lookup.StepAt(0, 100), 7);
  EXPECT_EQ(lookup.StepAt(0, 199), 7);
  EXPECT_EQ(lookup.StepAt(0, 200), -1);  // the end is outside
  EXPECT_EQ(lookup.StepAt(0, 300), 8);
  EXPECT_EQ(lookup.StepAt(0, 50), -1);
  EXPECT_EQ(lookup.StepAt(1, 50), 7);
  EXPECT_EQ(lookup.StepAt(2, 50), -1);  // a rank without steps
}

TEST(StepLookup, OverlappingStepsGiveTheFirstInOrderAsTheScanDid) {
  std::mt19937_64 rng(53);
  for (int round = 0; round < 50; ++round) {
    std::vector<Step> steps;
    for (int i = 0; i < 40; ++i) {
      const int64_t start = int64_t(rng() % 1000);
      steps.push_back(MakeStep(int(rng() % 3), i, start, start + 1 + int64_t(rng() % (round % 2 ? 50 : 400))));
    }
    const StepLookup lookup(steps);
    for (int rank = 0; rank < 4; ++rank)
      for (int64_t t = -5; t < 1500; t += 7) ASSERT_EQ(lookup.StepAt(rank, t), ScanEveryStep(steps, rank, t)) << t;
  }
}

}  // namespace
}  // namespace optrace::analyze
