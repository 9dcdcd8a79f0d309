// A whole file as read-only bytes without copying it: mapped (mmap) when it is a regular file,
// read into memory otherwise (a pipe). Dumps of gigabytes are decoded from the mapping, so only
// the pages a decoder touches are read (never-written slots cost one word each).
//
//   OPTRACE_ASSIGN_OR_RETURN(MappedFile f, MappedFile::Open("dumps/rank0.bin"));
//   Result<Dump> d = Decode(f.bytes());
//   OPTRACE_RETURN_IF_ERROR(f.CheckWhole());   // the file shrank while it was read: d is not it
//
// A file truncated while mapped (cp or scp over it, the next run's torch.save) would kill the
// process with SIGBUS on the first page past its new end, and every other rank with it. optrace's
// SIGBUS handler maps zero pages over the rest of such a mapping and marks it: the decoder reads
// zeros, and CheckWhole() turns the mark into this file's error. A SIGBUS anywhere else keeps
// its usual effect.
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

  // Ok while every byte read so far was the file's; an error naming the file (and what to do)
  // once a read went past its end because the file shrank after it was mapped.
  Status CheckWhole() const;

 private:
  void Release();
  void* map_ = nullptr;
  size_t size_ = 0;
  int region_ = -1;  // the slot watched by the SIGBUS handler; -1: not mapped
  std::string path_;
  std::string copy_;  // non-regular files
};

}  // namespace optrace
