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

// The file `optrace scan --stamp-fingerprint` writes beside each optrace_trace.h at build time
// (the point set's fingerprint, which optrace_trace.h stores in every slot). Listings keep it
// apart for the same reason, and `instrument --revert` removes it with the single header.
inline constexpr std::string_view kPointSetHeaderName = "optrace_point_set.h";
inline constexpr std::string_view kPointSetStampFirstLine =
    "// optrace_point_set.h: written by `optrace scan --stamp-fingerprint`.";

// Whether `text` is a stamp optrace wrote (revert removes only those).
inline bool IsPointSetStamp(std::string_view text) { return text.starts_with(kPointSetStampFirstLine); }

inline bool IsTraceHeaderInclude(std::string_view spelled) {
  auto names = [&](std::string_view name) {
    return spelled == name || (spelled.size() > name.size() && spelled.ends_with(name) &&
                               spelled[spelled.size() - name.size() - 1] == '/');
  };
  return names("optrace/trace.h") || names(kSingleHeaderName);
}

}  // namespace optrace::source
