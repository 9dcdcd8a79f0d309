// The build-script hook (seed 000, gate G1): a block that regenerates point_map.json on every
// build, inserted into the team's existing compile script or CMake file between marker comments.
// It finds optrace through $OPTRACE, else PATH, and stops the build with a message (exit 127 /
// FATAL_ERROR) when there is none.
//
//   HookSpec spec;                          // shell; spec.kind = HookKind::kCMake for CMakeLists.txt
//   OPTRACE_ASSIGN_OR_RETURN(std::string patched, InstallHook(text, "compile_ascend_proj.sh", spec));
//   OPTRACE_ASSIGN_OR_RETURN(std::string restored, RemoveHook(patched, "compile_ascend_proj.sh"));
//   // restored == text, byte for byte
//
// Default anchor (shell): after the last line that copies operator sources (cp/rsync/copy_ops/...)
// before the first line running build.sh; else right before build.sh. CMake: after project(),
// else after cmake_minimum_required(), else at the top; the block scans at configure time (before
// anything compiles) and again on every build (a target in ALL). Installing twice changes
// nothing. Pure functions on text: the CLI reads and writes the file (atomically).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/status.h"

namespace optrace::source {

inline constexpr std::string_view kHookStart = "# TRACE_PREPROCESSOR_HOOK_START";
inline constexpr std::string_view kHookEnd = "# TRACE_PREPROCESSOR_HOOK_END";

// The build the hook goes into: a shell script (compile_ascend_proj.sh, build.sh) or a CMake
// file (CMakeLists.txt, *.cmake: msopgen projects, ascendc_library, ops-nn operator folders).
enum class HookKind { kShell, kCMake };
// From the file name: CMakeLists.txt and *.cmake are CMake, the rest shell.
HookKind HookKindOf(const std::filesystem::path& script);

struct HookSpec {
  HookKind kind = HookKind::kShell;
  std::string after_regex;   // anchor line (ECMAScript regex); empty: the default anchor
  std::string command;       // hook body; empty: scan <sources> -> point_map.json (see HookBlock)
  // The optrace the default command runs when $OPTRACE is unset: a name looked up on PATH
  // ("optrace", the default) or a path the user chose. The block never holds the installing
  // machine's path: it is committed and runs on other machines and in CI.
  std::string optrace_path;
  bool modify = false;       // the default command also rewrites TRACE_POINT(...) into ids (scan --modify)
  // CMake: the folder scanned, relative to the file's folder ("op_kernel"; "" for the folder itself).
  std::string cmake_sources = "op_kernel";
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
  bool absolute_path = false;        // the block names an absolute optrace path (breaks on other machines)
  bool rewrites = false;             // the block rewrites marks into ids (scan --modify, trace_preprocessor)
  std::string problem;               // unbalanced markers etc. ("" when fine)
};

HookStatus VerifyHook(std::string_view text);

}  // namespace optrace::source
