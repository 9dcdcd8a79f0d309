// SDK layouts: a short list of the places CANN lines put kernel_operator.h, checked in order.
#include "source/compile/sdk_layout.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace optrace::source {
namespace fs = std::filesystem;
namespace {

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}
bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Appends the folders of `dirs` that exist, once each.
void AddExisting(std::vector<fs::path>* out, const fs::path& base, std::initializer_list<const char*> dirs) {
  for (const char* d : dirs) {
    fs::path p = (*d == 0) ? base : base / d;
    if (!IsDir(p)) continue;
    bool seen = false;
    for (const fs::path& q : *out) seen = seen || q == p;
    if (!seen) out->push_back(p);
  }
}

bool HasStubDef(const std::vector<fs::path>& dirs) {
  for (const fs::path& d : dirs)
    if (IsFile(d / "stub_def.h")) return true;
  return false;
}

// tikicpulib (CPU-debug types, qualifiers and intrinsic stubs) and the toolkit's include/ (acl/acl.h,
// ...): an install links include/ to <arch>-linux/include, an unpacked toolkit has only the latter.
void AddCpuDebugSupport(std::vector<fs::path>* out, const fs::path& root) {
  AddExisting(out, root, {"tools/tikicpulib/lib/include", "toolkit/tools/tikicpulib/lib/include", "include"});
  if (!IsDir(root / "include")) AddExisting(out, root, {"x86_64-linux/include", "aarch64-linux/include"});
}

bool IsEmulatorHeader(const fs::path& header) {
  std::ifstream in(header);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find("OPTRACE_EMU_KERNEL_OPERATOR_H_") != std::string::npos;
}

// asc-devkit's include tree at `asc` (asc/include/kernel_operator.h), as its CPU-debug
// CMake rule (CMakeASCInformation.cmake) lists it.
void AddAscTree(std::vector<fs::path>* out, const fs::path& asc) {
  AddExisting(out, asc, {"", "include", "include/basic_api", "include/adv_api", "include/adv_api/matmul",
                         "include/aicpu_api", "include/c_api", "include/interface", "include/micro_api",
                         "include/simt_api", "include/tiling", "include/utils", "impl", "impl/adv_api",
                         "impl/basic_api", "impl/c_api", "impl/micro_api", "impl/simt_api", "impl/utils"});
}

}  // namespace

Result<SdkLayout> LocateSdk(const fs::path& root_in) {
  std::error_code ec;
  fs::path root = fs::weakly_canonical(root_in, ec);
  if (ec) root = root_in;
  if (!IsDir(root)) return NotFoundError("{}: SDK folder not found; pass a CANN toolkit (ASCEND_HOME_PATH) with --sdk", root_in.string());
  SdkLayout sdk;
  sdk.root = root;

  if (IsFile(root / "kernel_operator.h") && IsEmulatorHeader(root / "kernel_operator.h")) {
    sdk.kind = SdkKind::kEmulator;
    sdk.include_dirs = {root};
    sdk.cpu_stubs = true;
    sdk.description = "optrace AscendC emulator (device view) at " + root.string();
    return sdk;
  }
  // CANN 8.x: tikcpp/tikcfw under compiler/, tools/ or <arch>-linux/.
  for (const char* base : {"compiler", "tools", "x86_64-linux", "aarch64-linux", ""}) {
    fs::path tik = (*base ? root / base : root) / "tikcpp" / "tikcfw";
    if (!IsFile(tik / "kernel_operator.h")) continue;
    sdk.kind = SdkKind::kCann8;
    AddExisting(&sdk.include_dirs, tik, {"", "impl", "interface", "lib", "lib/matmul"});
    for (const char* hl : {"compiler/ascendc/include/highlevel_api", "x86_64-linux/ascendc/include/highlevel_api",
                           "aarch64-linux/ascendc/include/highlevel_api", "ascendc/include/highlevel_api"})
      AddExisting(&sdk.include_dirs, root, {hl});
    AddCpuDebugSupport(&sdk.include_dirs, root);
    sdk.cpu_stubs = HasStubDef(sdk.include_dirs);
    sdk.description = "CANN 8.x toolkit (tikcpp/tikcfw) at " + root.string();
    return sdk;
  }
  // CANN 9.x installs (asc/ under the root or <arch>-linux/) and asc-devkit checkouts.
  for (const char* base : {"asc", "x86_64-linux/asc", "aarch64-linux/asc", ""}) {
    fs::path asc = *base ? root / base : root;
    if (!IsFile(asc / "include" / "kernel_operator.h") || !IsDir(asc / "impl")) continue;
    sdk.kind = SdkKind::kAscDevkit;
    AddAscTree(&sdk.include_dirs, asc);
    AddCpuDebugSupport(&sdk.include_dirs, root);
    sdk.cpu_stubs = HasStubDef(sdk.include_dirs);
    sdk.description = std::string(*base ? "CANN 9.x (asc) at " : "asc-devkit tree at ") + root.string();
    return sdk;
  }
  return NotFoundError(
      "{}: no kernel_operator.h in compiler/tikcpp/tikcfw (CANN 8.x), asc/include (CANN 9.x) or include/ "
      "(asc-devkit); pass the toolkit folder (ASCEND_HOME_PATH, e.g. /usr/local/Ascend/ascend-toolkit/latest)",
      root.string());
}

std::optional<fs::path> DefaultSdkRoot() {
  for (const char* var : {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != 0) return fs::path(v);
  }
  fs::path standard = "/usr/local/Ascend/ascend-toolkit/latest";
  if (IsDir(standard)) return standard;
  return std::nullopt;
}

}  // namespace optrace::source
