// An exclusive lock on an output directory for the life of one command: a second optrace
// writing into the same directory at the same time (two `analyze -o OUT` runs would interleave
// their files and both exit 0) gets an error that names the directory instead.
//
//   OPTRACE_ASSIGN_OR_RETURN(DirectoryLock lock, DirectoryLock::Acquire(out_dir, "analyze"));
//
// flock(2) on OUT/.optrace.lock: released by the kernel when the process ends, even on a crash.
#pragma once

#include <filesystem>
#include <string_view>

#include "core/status.h"

namespace optrace {

class DirectoryLock {
 public:
  static Result<DirectoryLock> Acquire(const std::filesystem::path& dir, std::string_view command);
  DirectoryLock() = default;
  DirectoryLock(DirectoryLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  DirectoryLock& operator=(DirectoryLock&& o) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock();

 private:
  int fd_ = -1;
};

}  // namespace optrace
