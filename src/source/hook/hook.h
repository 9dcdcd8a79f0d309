// The build-script hook (seed 000, gate G1): a block that regenerates point_map.json on every
// build, inserted into the team's existing compile script between marker comments.
//
//   HookSpec spec{.optrace_path = "/opt/optrace/bin/optrace"};
//   OPTRACE_ASSIGN_OR_RETURN(std::string patched, InstallHook(text, "compile_ascend_proj.sh", spec));
//   OPTRACE_ASSIGN_OR_RETURN(std::string restored, RemoveHook(patched, "compile_ascend_proj.sh"));
//   // restored == text, byte for byte
//
// Default anchor: after the last line that copies operator sources (cp/rsync/copy_ops/...)
// before the first line running build.sh; else right before build.sh. Installing twice changes
// nothing. Pure functions on text: the CLI reads and writes the file (atomically).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/status.h"

namespace optrace::source {

inline constexpr std::string_view kHookStart = "# TRACE_PREPROCESSOR_HOOK_START";
inline constexpr std::string_view kHookEnd = "# TRACE_PREPROCESSOR_HOOK_END";

struct HookSpec {
  std::string after_regex;   // anchor line (ECMAScript regex); empty: the default anchor
  std::string command;       // hook body; empty: scan ${BUILD_DIR:-<script dir>}/op_kernel -> .../point_map.json
  std::string optrace_path;  // the optrace the default command runs (overridable with $OPTRACE)
  bool modify = false;       // the default command also rewrites TRACE_POINT(...) into ids (scan --modify)
};

// The hook block (markers included, each line ending in '\n').
std::string HookBlock(const HookSpec& spec);

// Returns the script with the block inserted (or the existing block replaced in place).
// Errors: no anchor line, unbalanced markers. `script_name` is only used in messages.
Result<std::string> InstallHook(std::string_view text, std::string_view script_name, const HookSpec& spec);

// Returns the script without the block, exactly as it was before install.
Result<std::string> RemoveHook(std::string_view text, std::string_view script_name);

struct HookStatus {
  bool present = false;
  int start_line = 0, end_line = 0;  // 1-based marker lines
  std::string body;                  // lines between the markers
  std::string optrace_path;          // the optrace the block runs ("" if none recognised)
  bool optrace_found = false;        // that file exists and is executable (bare names: on $PATH)
  bool rewrites = false;             // the block rewrites marks into ids (scan --modify, trace_preprocessor)
  std::string problem;               // unbalanced markers etc. ("" when fine)
};

HookStatus VerifyHook(std::string_view text);

}  // namespace optrace::source
