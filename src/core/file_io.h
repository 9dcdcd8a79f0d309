// Whole-file reads and atomic writes, with errors that name the file.
//
//   OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString("map.json"));
//   OPTRACE_RETURN_IF_ERROR(WriteFileAtomic("out/trace.json", text));
//
// WriteFileAtomic writes a temp file beside the target and renames it over the target,
// keeping the target's permission bits when it already exists (SPEC section 9).
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace {

// Opens an input for reading, read-only: a regular file only. A FIFO (which would block on open
// and may never end), a device (/dev/zero never ends), a socket or a directory is refused with
// a message saying so; a symlink is followed to what it names.
Result<int> OpenRegularFile(const std::filesystem::path& path);
// Whether `path` (through links) is a regular file; directory walkers skip and name the rest.
bool IsRegularFile(const std::filesystem::path& path);

Result<std::string> ReadFileToString(const std::filesystem::path& path);
// ReadFileToString into `out`, whose memory is reused: read whole files one after another
// without a fresh allocation (and its page faults) for each.
Status ReadFileInto(const std::filesystem::path& path, std::string& out);
Status WriteFileAtomic(const std::filesystem::path& path, std::string_view contents);
// Like WriteFileAtomic, for contents too large to hold in one string: `write` streams into a
// temp file beside `path` (resolved against the cwd), which then replaces it, keeping the old
// file's permissions. On failure nothing is left behind.
//   OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic("out/trace.json", [&](std::ostream& os) { ... }));
Status WriteStreamAtomic(const std::filesystem::path& path, const std::function<Status(std::ostream&)>& write);
// True when the two writers above would write `path` through a temporary file renamed over it (a
// regular file, or none yet), so that what they wrote can still be dropped; false for a FIFO or a
// device (written as it is) and for a path they would refuse.
bool IsReplaceableOutput(const std::filesystem::path& path);
// An output that is one of the command's inputs (the same file through any link, or an existing
// file inside an input directory) would be overwritten: a usage error naming both and the flag.
// Every command checks each output path against all its input paths before writing.
//   OPTRACE_RETURN_IF_ERROR(CheckNotAnInput("-o", out, {dump, map}));
Status CheckNotAnInput(std::string_view flag, const std::filesystem::path& out,
                       const std::vector<std::filesystem::path>& inputs);
// Whether the file at `path` (or a new file there) can be written: checked for every file of a
// multi-file rewrite before any is written, so a read-only file does not leave the tree half done.
Status CheckWritable(const std::filesystem::path& path);
// Creates the directory (and parents); error names the path.
Status EnsureDirectory(const std::filesystem::path& dir);
// Absolute path against the current working directory (never the program's location).
std::filesystem::path ResolveAgainstCwd(const std::filesystem::path& path);

}  // namespace optrace
