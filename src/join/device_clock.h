// The relation between the device's system counter, which the kernel's GetSystemCycle() reads
// into every dump, and the export's clock (Unix ns), from the capture's own profiler_info_<rank>.json:
//
//   start_info {freq: MHz of the counter, start_cnt, start_monotonic}   counter and CLOCK_MONOTONIC_RAW
//                                                                       read together at the start
//   end_info   {collectionTimeEnd: Unix ns, MonotonicTimeEnd}           the realtime offset at the end
//
//   unix_ns(cnt) = start_monotonic + (cnt - start_cnt) * 1e9 / (freq * 1e6)
//                  + (collectionTimeEnd - MonotonicTimeEnd)
//
// which is how torch_npu's parser puts the device's task times on the export's clock (kernel rows
// fall inside [start, end] on every capture of ../shared/data/ascend). Assumed, not checked on
// hardware: that GetSystemCycle() reads that same counter (docs/join.md).
//
//   OPTRACE_ASSIGN_OR_RETURN(DeviceClock clock, ReadDeviceClock(rank_dir / "profiler_info_0.json"));
//   int64_t ns = clock.UnixNs(interval.begin_ticks);
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/status.h"

namespace optrace::join {

struct DeviceClock {
  double counter_hz = 0;           // start_info.freq (MHz) * 1e6
  int64_t start_cnt = 0;           // start_info.start_cnt
  int64_t start_monotonic_ns = 0;  // start_info.start_monotonic
  int64_t realtime_offset_ns = 0;  // end_info.collectionTimeEnd - end_info.MonotonicTimeEnd
  int64_t collection_end_ns = 0;   // end_info.collectionTimeEnd (Unix ns)
  std::string source;              // the file it was read from

  // The Unix ns of counter value `cnt`.
  int64_t UnixNs(int64_t cnt) const;
  // Unix ns of the capture's start (start_cnt).
  int64_t StartUnixNs() const { return start_monotonic_ns + realtime_offset_ns; }
};

// Reads start_info / end_info; an error naming the file and the missing field when the capture
// does not record them (older torch_npu, syscnt_enable false).
Result<DeviceClock> ReadDeviceClock(const std::filesystem::path& profiler_info);

}  // namespace optrace::join
