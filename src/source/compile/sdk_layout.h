// Where the AscendC headers of an SDK live, for compiling kernels in CANN's CPU-debug mode:
//
//   Result<SdkLayout> sdk = LocateSdk("/usr/local/Ascend/ascend-toolkit/latest");
//   for (const auto& dir : sdk->include_dirs) args.push_back("-I" + dir.string());
//
// Recognised layouts (the include folders are those of CANN's own CPU-debug CMake targets):
//   CANN 8.x toolkit   <root>/{compiler,tools,<arch>-linux}/tikcpp/tikcfw{,/impl,/interface} and
//                      ascendc/include/highlevel_api; tikicpulib at <root>/tools/tikicpulib/lib/include
//   CANN 9.x / asc-devkit  <root>/[<arch>-linux/]asc/{include,impl}/... or a checkout of
//                      asc-devkit (<root>/include/kernel_operator.h, <root>/impl); tikicpulib as above
//   optrace emulator   <root>/kernel_operator.h of emu/include (a stand-in for tests and CI)
// CPU-debug mode needs tikicpulib's headers (stub_def.h: the CPU types and qualifiers); an
// asc-devkit checkout has none, which SdkLayout::cpu_stubs says (the check then cannot run
// unless they come from an include folder of the user's).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace optrace::source {

enum class SdkKind { kCann8, kAscDevkit, kEmulator };

struct SdkLayout {
  SdkKind kind = SdkKind::kCann8;
  std::filesystem::path root;
  std::vector<std::filesystem::path> include_dirs;  // in search order
  bool cpu_stubs = false;  // tikicpulib's stub_def.h is on include_dirs (always true for the emulator)
  std::string description;  // "CANN 8.x toolkit (tikcpp/tikcfw) at /usr/local/Ascend/..."
};

// The SDK under `root`; NotFound naming the folders tried when no kernel_operator.h is there.
Result<SdkLayout> LocateSdk(const std::filesystem::path& root);

// $ASCEND_HOME_PATH, else $ASCEND_TOOLKIT_HOME, else /usr/local/Ascend/ascend-toolkit/latest
// when it exists; nullopt when none is set or present.
std::optional<std::filesystem::path> DefaultSdkRoot();

}  // namespace optrace::source
