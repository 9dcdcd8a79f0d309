// `optrace scan --modify`: rewrite each TRACE_POINT("label", "B") into its integer id with the
// original in a comment, `0x3a5e01c4 /* TRACE_POINT("label", "B") */`, for toolchains that want
// literal ids. Line and column of every point stay the same, so the map is identical; a second
// run finds only rewritten points and changes nothing.
//
//   std::string out = RewriteTracePoints(*file);           // file from a ScanResult
//   if (out != *file->text) fmt::print("{}", UnifiedDiff(file->rel, *file->text, out));
#pragma once

#include <string>
#include <string_view>

#include "source/lexer/source_set.h"

namespace optrace::source {

// The file's text with every literal TRACE_POINT(...) replaced (sites through wrapper macros,
// malformed ones, and labels containing "*/" are left as they are).
std::string RewriteTracePoints(const SourceFile& file);

// A unified diff (3 lines of context) between two texts with the same number of lines or not;
// empty when equal. Paths are shown as a/<path> and b/<path>.
std::string UnifiedDiff(std::string_view path, std::string_view before, std::string_view after);

}  // namespace optrace::source
