#include "core/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>

namespace optrace {
namespace {

TEST(ParallelFor, RunsEveryIndexOnce) {
  std::vector<std::atomic<int>> seen(1000);
  ParallelFor(seen.size(), 4, [&](size_t i) { seen[i]++; });
  for (const auto& s : seen) EXPECT_EQ(s.load(), 1);
}

// Issue 53.8: an exception in a worker thread (std::bad_alloc on a huge join) went to
// std::terminate: exit 134, no message. It now reaches the caller, who reports it.
// (Whether the other workers stop early depends on thread timing: not asserted.)
TEST(ParallelFor, AWorkersExceptionReachesTheCaller) {
  EXPECT_THROW(ParallelFor(100000, 4,
                           [&](size_t i) {
                             if (i == 10) throw std::bad_alloc();
                           }),
               std::bad_alloc);
}

}  // namespace
}  // namespace optrace
