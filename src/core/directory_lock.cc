#include "core/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/file_io.h"

namespace optrace {

Result<DirectoryLock> DirectoryLock::Acquire(const std::filesystem::path& dir, std::string_view command) {
  OPTRACE_RETURN_IF_ERROR(EnsureDirectory(dir));
  const std::filesystem::path path = dir / ".optrace.lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return IoError("{}: cannot create the lock file: {}", path.string(), std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK) {
      return UsageError("{}: another optrace {} is writing this directory now; wait for it or give another -o",
                        dir.string(), command);
    }
    return IoError("{}: cannot lock: {}", path.string(), std::strerror(e));
  }
  DirectoryLock lock;
  lock.fd_ = fd;
  return lock;
}

DirectoryLock& DirectoryLock::operator=(DirectoryLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace optrace
