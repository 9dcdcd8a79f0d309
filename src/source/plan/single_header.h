// optrace_trace.h, the device API in one file (made at build time by
// cmake/amalgamate_device_header.py from include/optrace and embedded in the binary), and where
// `instrument` places it in an operator tree.
//
//   std::string_view text = SingleHeaderText();              // what optrace_trace.h holds
//   std::optional<SingleHeaderInfo> v = ReadSingleHeaderInfo(tree_copy);  // a placed copy's version
//   std::string inc = RelativeInclude("op_kernel/sub/x.h", "op_kernel");  // "../optrace_trace.h"
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "source/lexer/trace_header.h"

namespace optrace::source {

// Embedded by the build: ("optrace_trace.h", text).
const std::vector<std::pair<std::string, std::string>>& SingleHeaderSources();
std::string_view SingleHeaderText();

struct SingleHeaderInfo {
  std::string version;  // optrace's version that generated it, "0.1.0"
  int format = 0;       // buffer format version its writers produce
};
// The version line of an optrace_trace.h, nullopt when the text is not one optrace generated
// (the file then is the user's and is never replaced or removed).
std::optional<SingleHeaderInfo> ReadSingleHeaderInfo(std::string_view text);
// This binary's header.
const SingleHeaderInfo& EmbeddedSingleHeaderInfo();

// -1, 0, 1 as version a is older than, equal to or newer than b ("0.1.0" < "0.10.0").
int CompareVersions(std::string_view a, std::string_view b);

// The spelling of an #include, in `from_rel` (a path relative to the operator folder), of the
// single header placed in `header_dir_rel`: "optrace_trace.h", "../optrace_trace.h", ...
std::string RelativeInclude(const std::filesystem::path& from_rel, const std::filesystem::path& header_dir_rel);

}  // namespace optrace::source
