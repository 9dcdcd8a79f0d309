#include "join/device_clock.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/file_io.h"

namespace optrace::join {

int64_t DeviceClock::UnixNs(int64_t cnt) const {
  // long double: counter deltas of hours at 100 MHz times 1e9 keep their nanoseconds.
  const long double delta_ns = static_cast<long double>(cnt - start_cnt) * 1e9L / counter_hz;
  return start_monotonic_ns + static_cast<int64_t>(std::llroundl(delta_ns)) + realtime_offset_ns;
}

Result<DeviceClock> ReadDeviceClock(const std::filesystem::path& profiler_info) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(profiler_info));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return BadInputError("{}: not a JSON object; the device clock is read from profiler_info_<rank>.json",
                         profiler_info.string());
  auto number = [&](const char* section, const char* key) -> std::optional<long double> {
    if (!j.contains(section) || !j[section].is_object() || !j[section].contains(key)) return std::nullopt;
    const nlohmann::json& v = j[section][key];
    if (v.is_number()) return v.get<long double>();
    if (v.is_string()) {
      try {
        return std::stold(v.get<std::string>());
      } catch (...) {
        return std::nullopt;
      }
    }
    return std::nullopt;
  };
  DeviceClock c;
  c.source = profiler_info.string();
  const char* fields[][2] = {{"start_info", "freq"},
                             {"start_info", "start_cnt"},
                             {"start_info", "start_monotonic"},
                             {"end_info", "collectionTimeEnd"},
                             {"end_info", "MonotonicTimeEnd"}};
  long double v[5];
  for (int i = 0; i < 5; ++i) {
    std::optional<long double> x = number(fields[i][0], fields[i][1]);
    if (!x)
      return BadInputError("{}: no {}.{}: this capture does not record the device's system counter, so the dumps' "
                           "GetSystemCycle ticks cannot be put on its clock (torch_npu records it with "
                           "syscnt_enable; capture again with a recent torch_npu)",
                           profiler_info.string(), fields[i][0], fields[i][1]);
    v[i] = *x;
  }
  if (!(v[0] > 0) || !std::isfinite(static_cast<double>(v[0])))
    return BadInputError("{}: start_info.freq is {}: not a counter frequency in MHz", profiler_info.string(),
                         static_cast<double>(v[0]));
  c.counter_hz = static_cast<double>(v[0]) * 1e6;
  c.start_cnt = static_cast<int64_t>(v[1]);
  c.start_monotonic_ns = static_cast<int64_t>(v[2]);
  c.collection_end_ns = static_cast<int64_t>(v[3]);
  c.realtime_offset_ns = static_cast<int64_t>(v[3]) - static_cast<int64_t>(v[4]);
  return c;
}

}  // namespace optrace::join
