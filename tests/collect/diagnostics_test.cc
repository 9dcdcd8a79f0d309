#include "collect/diagnostics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace optrace::collect {
namespace {
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Diagnostics, MoreCountsExamplesNotWhatTheProblemCounts) {
  // Two slots overflowed, losing 186 events between them: two examples, none left unshown.
  Diagnostics d;
  d.Add(Problem::kSlotOverflow, "rank 0 AIV 3: 100 events dropped", 100);
  d.Add(Problem::kSlotOverflow, "rank 1 AIV 3: 86 events dropped", 86);
  std::string text = FormatDiagnostics(d);
  EXPECT_THAT(text, HasSubstr("186"));
  EXPECT_THAT(text, Not(HasSubstr("more")));
}

TEST(Diagnostics, ExamplesPastTheKeptOnesAreCountedAsMore) {
  Diagnostics d;
  for (int i = 0; i < 8; ++i) d.Add(Problem::kSlotOverflow, "slot " + std::to_string(i), 10);
  EXPECT_THAT(FormatDiagnostics(d), HasSubstr("... 3 more"));
}

}  // namespace
}  // namespace optrace::collect
