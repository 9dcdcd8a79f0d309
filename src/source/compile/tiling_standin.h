// The tiling header a custom-operator build generates, stood in for the compile check.
//
// A msopgen-style operator declares its tiling data on the host side
//   BEGIN_TILING_DATA_DEF(AddCustomTilingData)
//     TILING_DATA_FIELD_DEF(uint32_t, totalLength);
//   END_TILING_DATA_DEF;
//   REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
// and its kernel reads it with GET_TILING_DATA(tiling_data, tiling). The build (opc) generates the
// kernel-side struct and the macro; a CPU-debug compile of the kernel alone has neither, so every
// use of tiling_data was an error before and after instrument and the kernel could never count as
// compiling. The stand-in declares the same fields in a struct of the same name and the macros
// over it (the values are never read: the check is -fsyntax-only), and is passed with -include to
// the kernel units only. Nothing is made when the tree defines GET_TILING_DATA itself or declares
// no tiling data.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace optrace::source {

struct TilingStandIn {
  std::string header;  // the text to -include; "" when none is needed
  std::vector<std::string> structs;  // the tiling structs it declares, in order
  std::string default_struct;  // the one GET_TILING_DATA declares
  std::vector<std::string> from;  // the files (relative to the tree) the declarations came from
};

// Reads every source of the tree under `op_root` (ListSourceFiles).
Result<TilingStandIn> MakeTilingStandIn(const std::filesystem::path& op_root);

// The same from texts already read: (path relative to the tree, text) pairs.
TilingStandIn MakeTilingStandInFromTexts(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace optrace::source
