#include "core/process_memory.h"

#include <cstdio>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace optrace {

std::optional<ProcessMemory> ReadProcessMemory() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return std::nullopt;
  ProcessMemory m;
  int found = 0;
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    long kb = 0;
    if (std::sscanf(line, "VmRSS: %ld kB", &kb) == 1) {
      m.rss_mb = kb * 1024.0 / 1e6;
      ++found;
    } else if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) {
      m.peak_rss_mb = kb * 1024.0 / 1e6;
      ++found;
    }
  }
  std::fclose(f);
  if (found != 2) return std::nullopt;
  return m;
}

bool ResetPeakRss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  bool ok = std::fputs("5", f) >= 0;
  ok = std::fclose(f) == 0 && ok;
  return ok;
}

void ReleaseFreedMemory() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

}  // namespace optrace
