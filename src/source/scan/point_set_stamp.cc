#include "source/scan/point_set_stamp.h"

#include <fmt/format.h>

#include <set>

#include "core/file_io.h"
#include "source/lexer/source_set.h"
#include "source/lexer/trace_header.h"

namespace optrace::source {
namespace fs = std::filesystem;

std::string PointSetStampText(const PointMap& map) {
  return fmt::format(
      "{} Generated; do not edit.\n"
      "// The fingerprint of the point set in point_map.json ({} ids): optrace_trace.h stores it in word 7 of\n"
      "// every slot, and `optrace collect` compares it with the map it is given.\n"
      "#ifndef OPTRACE_POINT_SET_FINGERPRINT\n"
      "#define OPTRACE_POINT_SET_FINGERPRINT 0x{:016x}ull\n"
      "#endif\n",
      kPointSetStampFirstLine, map.points.size(), PointSetFingerprint(map));
}

Result<int> StampPointSet(const std::vector<fs::path>& roots, const PointMap& map) {
  std::set<fs::path> folders;
  for (const fs::path& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
      if (root.filename() == kSingleHeaderName) folders.insert(root.parent_path());
      continue;
    }
    OPTRACE_ASSIGN_OR_RETURN(SourceListing listing, ListOperatorFiles(root));
    for (const fs::path& h : listing.single_headers) folders.insert(h.parent_path());
  }
  const std::string text = PointSetStampText(map);
  int stamped = 0;
  for (const fs::path& dir : folders) {
    fs::path stamp = dir / kPointSetHeaderName;
    std::error_code ec;
    if (fs::exists(stamp, ec)) {
      OPTRACE_ASSIGN_OR_RETURN(std::string old, ReadFileToString(stamp));
      if (!IsPointSetStamp(old))
        return BadInputError("{}: a file of this name that optrace did not write is in the way; rename it, or "
                             "drop --stamp-fingerprint",
                             stamp.string());
      if (old == text) {
        ++stamped;
        continue;
      }
    }
    OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(stamp, text));
    ++stamped;
  }
  return stamped;
}

}  // namespace optrace::source
