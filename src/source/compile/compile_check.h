// The compile check of gate G3 that a machine can do without an NPU (`optrace lint --compile`,
// `optrace instrument --check-compile`): each kernel entry, once per core type it runs on, is
// syntax-checked by the host compiler in CANN's CPU-debug mode against the SDK's headers.
//
//   CompileCheckOptions o;
//   o.sdk = *LocateSdk(*DefaultSdkRoot());
//   o.op_root = "ops/my_op";
//   OPTRACE_ASSIGN_OR_RETURN(CompileCheckReport r, RunCompileCheck(o, {{entry, kCoreAic | kCoreAiv}}));
//   for (const CompileUnitResult& u : r.units) for (const CompileError& e : u.errors) ...
//
// Defines per core type are those of CANN's CPU-debug targets (ASCENDC_CPU_DEBUG=1,
// __NPU_ARCH__, __DAV_C220_CUBE__ / __DAV_C220_VEC__, ...); against the emulator, its device
// view of each half. The include folders are the operator's and the SDK's only, never optrace's
// include/: an instrumented tree must build with the flags its team's build already has. Only
// errors are kept; those located in the SDK's own headers are counted (they come from an
// incomplete SDK, not from the operator) and those in the placed optrace_trace.h or on lines
// optrace inserted or rewrote are flagged, since optrace made them.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "source/compile/sdk_layout.h"

namespace optrace::source {

// A unit is compiled once per flag: as the AIC and AIV halves of a kernel source in CPU-debug mode,
// or (kCompileHost) as host code: a launcher, aclnn API or adapter that instrument edits, with the
// host compiler, the operator's include folders and the SDK's, and no CPU-debug defines.
inline constexpr unsigned kCompileAic = 1, kCompileAiv = 2, kCompileHost = 4;

struct CompileUnit {
  std::filesystem::path entry;  // absolute kernel entry file (or host source)
  unsigned cores = kCompileAic | kCompileAiv;
};

struct CompileCheckOptions {
  SdkLayout sdk;
  std::string compiler;  // executable; empty: $CXX, else clang++, else g++ on PATH
  std::filesystem::path op_root;  // errors in files under it are the operator's
  std::vector<std::filesystem::path> include_dirs;  // the operator's own -I folders (searched first)
  int npu_arch = 2201;  // __NPU_ARCH__ of the CPU-debug build (2201: Atlas A2 / A3, 910B / 910_93)
  std::chrono::seconds timeout{180};  // per compile
  // Kernel units get the tiling header the operator's build would generate (tiling_standin.h)
  // when the tree declares tiling data and does not define GET_TILING_DATA itself.
  bool tiling_standin = true;
};

struct CompileError {
  std::string file;  // relative to op_root when inside it
  int line = 0;
  int column = 0;
  std::string message;
  std::string source_line;  // the text of that line (trimmed), "" when unreadable
  std::string original_line;  // the line as it was before instrument ("" for an inserted line)
  bool in_operator = false;  // under op_root
  bool optrace_made = false;  // in the optrace_trace.h instrument placed, or on a line it inserted / rewrote
};

struct CompileUnitResult {
  std::string entry;  // relative to op_root
  std::string core;   // "AIC", "AIV" or "host"
  int exit_code = 0;
  bool timed_out = false;
  double seconds = 0;
  std::vector<CompileError> errors;  // in the operator's files and optrace's headers
  size_t sdk_errors = 0;  // errors located in the SDK's (or another outside) header
  std::string first_sdk_error;  // the first of those, for the message
  std::string command;  // the compiler command line, for a user to rerun it
  // The first fatal error ("file:line: 'x.h' file not found"), "" when none: the compiler stopped
  // there, so nothing after it was checked (usually a missing -I folder).
  std::string fatal;
};

struct CompileCheckReport {
  std::string sdk;       // SdkLayout::description
  std::string compiler;  // the executable used
  std::string tiling_standin;  // "<struct> from <files>" when the kernels got the stand-in, else ""
  std::vector<CompileUnitResult> units;
  size_t ErrorCount() const;
  size_t FatalCount() const;  // units that stopped at a fatal error
  // The same counts for one side: host units (core "host") or kernel units (AIC / AIV).
  size_t UnitCount(bool host) const;
  size_t ErrorCount(bool host) const;
  size_t FatalCount(bool host) const;
};

// What a command asks for: the SDK folder (empty: DefaultSdkRoot()), compiler, -I folders.
struct CompileCheckRequest {
  std::filesystem::path sdk;
  std::string cxx;
  std::filesystem::path op_root;
  std::vector<std::filesystem::path> include_dirs;
  int npu_arch = 2201;
};
// Options for RunCompileCheck, or why the check cannot run here (`unchecked`: no SDK set, an
// SDK without CPU-debug headers, no compiler), which is not an error. An SDK or compiler named
// in the request that cannot be used is an error Status.
struct PreparedCompileCheck {
  std::optional<CompileCheckOptions> options;
  std::string unchecked;
};
Result<PreparedCompileCheck> PrepareCompileCheck(const CompileCheckRequest& request);

// The executable RunCompileCheck would use for `requested` (see CompileCheckOptions::compiler).
Result<std::string> FindHostCompiler(const std::string& requested);

Result<CompileCheckReport> RunCompileCheck(const CompileCheckOptions& options, const std::vector<CompileUnit>& units);

// Parses gcc / clang diagnostics ("file:line:col: error: message"): the error lines only.
struct ParsedDiagnostic {
  std::string file;
  int line = 0, column = 0;
  std::string message;
  bool fatal = false;
};
std::vector<ParsedDiagnostic> ParseCompilerErrors(std::string_view output);

// Errors of `after` that `before` does not have: compared by unit, file, message and the line's
// text before instrument (line numbers move when instrument inserts lines), each once.
std::vector<CompileError> NewCompileErrors(const CompileCheckReport& before, const CompileCheckReport& after);

}  // namespace optrace::source
