// How a source reaches optrace's device API: `#include "optrace/trace.h"` (an installed tree,
// found through -I <prefix>/include) or `#include "optrace_trace.h"` (the single header that
// `optrace instrument` / `optrace headers` place in the operator's own tree), with any folder
// before either name.
//
//   if (IsTraceHeaderInclude(d.include_path)) ...   // "../optrace_trace.h", "optrace/trace.h"
#pragma once

#include <string_view>

namespace optrace::source {

// The file name of the single header placed in operator trees. Source listings skip files of this
// name: the header is optrace's, not the operator's, and scan / lint / plan never read it.
inline constexpr std::string_view kSingleHeaderName = "optrace_trace.h";

inline bool IsTraceHeaderInclude(std::string_view spelled) {
  auto names = [&](std::string_view name) {
    return spelled == name || (spelled.size() > name.size() && spelled.ends_with(name) &&
                               spelled[spelled.size() - name.size() - 1] == '/');
  };
  return names("optrace/trace.h") || names(kSingleHeaderName);
}

}  // namespace optrace::source
