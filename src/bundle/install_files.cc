#include "bundle/install_files.h"

#include "core/file_io.h"

namespace optrace::bundle {
namespace fs = std::filesystem;

Result<InstallReport> InstallFiles(const FileTable& files, const fs::path& dir, bool replace_changed) {
  InstallReport report;
  std::vector<const std::pair<std::string, std::string>*> to_write;
  // Decide for every file first, so a refusal leaves the folder as it was.
  for (const auto& entry : files) {
    const fs::path path = dir / entry.first;
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      report.written.push_back(entry.first);
      to_write.push_back(&entry);
      continue;
    }
    Result<std::string> old = ReadFileToString(path);
    if (!old.ok()) return old.status();
    if (*old == entry.second) {
      report.unchanged.push_back(entry.first);
      continue;
    }
    if (!replace_changed) {
      return BadInputError("{}: exists and differs from the copy this optrace carries (edited, or from another "
                           "version); nothing was written. Rerun with --force to replace it, or pick another folder",
                           path.string());
    }
    report.replaced.push_back(entry.first);
    to_write.push_back(&entry);
  }
  for (const auto* entry : to_write) {
    const fs::path path = dir / entry->first;
    OPTRACE_RETURN_IF_ERROR(EnsureDirectory(path.parent_path()));
    OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(path, entry->second));
    if (path.extension() == ".sh") {
      std::error_code ec;
      fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                      fs::perm_options::add, ec);
      if (ec) return IoError("{}: cannot make it executable: {}", path.string(), ec.message());
    }
  }
  return report;
}

}  // namespace optrace::bundle
