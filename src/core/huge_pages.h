// AdviseHugePages: asks the kernel to back a large, not yet touched allocation with 2 MiB pages.
//
//   std::vector<Event> events;
//   events.reserve(rows);
//   AdviseHugePages(events.data(), events.capacity() * sizeof(Event));   // before the first write
//
// Filling a 100 MB table 4 KiB page by page costs one page fault per page (a fifth of analyze's
// time on a 300 MB export); with transparent huge pages in "madvise" mode (Debian's default) the
// same table takes 512x fewer. Only the 2 MiB-aligned inside of the range is advised; small
// ranges, other systems and kernels without THP are left as they are (the call is a hint).
#pragma once

#include <cstddef>

namespace optrace {

void AdviseHugePages(const void* data, size_t bytes);

}  // namespace optrace
