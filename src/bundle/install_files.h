// Writes a table of embedded files under a folder, the way an installer should: a file already
// there with the same bytes is left alone, one that differs is replaced only when asked (it may
// hold the user's edits), shell scripts are made executable.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bundle/embedded.h"
#include "core/status.h"

namespace optrace::bundle {

struct InstallReport {
  std::vector<std::string> written;    // new files
  std::vector<std::string> replaced;   // differed, replaced (only with replace_changed)
  std::vector<std::string> unchanged;  // already held the same bytes
};

// Writes each (relative path, text) of `files` under `dir`. Without `replace_changed`, a file that
// exists with other bytes stops the install before anything is written (the error names it).
Result<InstallReport> InstallFiles(const FileTable& files, const std::filesystem::path& dir, bool replace_changed);

}  // namespace optrace::bundle
