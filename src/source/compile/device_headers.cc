// The embedded device headers, written out once per content hash.
#include "source/compile/device_headers.h"

#include <fmt/format.h>
#include <unistd.h>

#include "core/file_io.h"

namespace optrace::source {
namespace fs = std::filesystem;

Result<fs::path> DeviceHeaderDir() {
  uint64_t h = 1469598103934665603ull;
  for (const auto& [rel, text] : DeviceHeaders()) {
    for (char c : rel + '\0' + text) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  }
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  fs::path dir = tmp / fmt::format("optrace-device-{:016x}", h);
  if (fs::is_regular_file(dir / "optrace" / "trace.h", ec)) return dir;
  fs::path staging = tmp / fmt::format("optrace-device-{:016x}.{}", h, static_cast<long>(getpid()));
  fs::remove_all(staging, ec);
  for (const auto& [rel, text] : DeviceHeaders()) {
    fs::create_directories((staging / rel).parent_path(), ec);
    if (Status st = WriteFileAtomic(staging / rel, text); !st.ok()) return st;
  }
  fs::rename(staging, dir, ec);
  if (ec) {
    fs::remove_all(staging, ec);  // another process won the race: its copy is the same
    if (!fs::is_regular_file(dir / "optrace" / "trace.h", ec))
      return IoError("{}: cannot write optrace's device headers there", dir.string());
  }
  return dir;
}

}  // namespace optrace::source
