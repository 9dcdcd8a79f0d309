// A whole file as read-only bytes without copying it: mapped (mmap) when it is a regular file,
// read into memory otherwise (a pipe). Dumps of gigabytes are decoded from the mapping, so only
// the pages a decoder touches are read (never-written slots cost one word each).
//
//   OPTRACE_ASSIGN_OR_RETURN(MappedFile f, MappedFile::Open("dumps/rank0.bin"));
//   Decode(f.bytes());
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/status.h"

namespace optrace {

class MappedFile {
 public:
  // How the bytes will be read: front to back (read ahead), or a few words here and there (a
  // native dump's slot headers: no read-ahead, so untouched slots are never paged in).
  enum class Access { kSequential, kSparse };
  // Errors name the path: missing, a directory, unreadable, a symlink loop.
  static Result<MappedFile> Open(const std::filesystem::path& path, Access access = Access::kSequential);

  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return map_ ? std::string_view(static_cast<const char*>(map_), size_) : copy_; }

 private:
  void Release();
  void* map_ = nullptr;
  size_t size_ = 0;
  std::string copy_;  // non-regular files
};

}  // namespace optrace
