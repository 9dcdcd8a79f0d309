// Resident memory of this process, for per-stage reporting (`analyze --progress`).
//
//   ResetPeakRss();                                  // start a new peak window
//   ... run a stage ...
//   if (auto m = ReadProcessMemory()) fmt::print("{} MB now, {} MB peak\n", m->rss_mb, m->peak_rss_mb);
//
// Linux only (/proc/self/status VmRSS/VmHWM; /proc/self/clear_refs "5" resets VmHWM). Elsewhere
// both return nothing and the caller reports no memory.
#pragma once

#include <optional>

namespace optrace {

struct ProcessMemory {
  double rss_mb = 0;       // resident now (MB = 10^6 bytes)
  double peak_rss_mb = 0;  // highest resident size since the process started or ResetPeakRss()
};

std::optional<ProcessMemory> ReadProcessMemory();

// Starts a new peak window; false when the kernel does not allow it (the peak then stays the
// process-wide one).
bool ResetPeakRss();

// Hands memory the allocator keeps after a free (the heap's unused tops and holes) back to the
// system: a stage's temporaries then do not stay resident under the next stage's peak. glibc
// only (malloc_trim); elsewhere nothing.
void ReleaseFreedMemory();

}  // namespace optrace
