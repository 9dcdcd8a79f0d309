// ParallelFor: runs fn(0) .. fn(n - 1) on up to `threads` threads (the caller's among them),
// each index exactly once, in no particular order; returns when all are done.
//
//   std::vector<Result> out(n);
//   ParallelFor(n, WorkerCount(0), [&](size_t i) { out[i] = Work(i); });
//
// Work is handed out one index at a time (an atomic counter), so uneven items balance. fn must
// not throw. Results go into per-index slots: the order of the output never depends on timing.
#pragma once

#include <cstddef>
#include <functional>

namespace optrace {

// `requested` threads, or every core when 0 (at least 1).
int WorkerCount(int requested);

void ParallelFor(size_t n, int threads, const std::function<void(size_t)>& fn);

}  // namespace optrace
