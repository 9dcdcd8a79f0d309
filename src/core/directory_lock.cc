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
      // The holder wrote its command and pid into the file (below).
      Result<std::string> holder = ReadFileToString(path);
      std::string who = holder.ok() && !holder->empty() ? *holder : "another optrace command";
      while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
      return UsageError("{}: {} is writing this directory now; wait for it or give {} another output directory",
                        dir.string(), who, command);
    }
    return IoError("{}: cannot lock: {}", path.string(), std::strerror(e));
  }
  // Who holds it, for the message of a command refused (a best effort: the lock is the flock).
  const std::string holder = "optrace " + std::string(command) + " (pid " + std::to_string(::getpid()) + ")\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] ssize_t n = ::pwrite(fd, holder.data(), holder.size(), 0);
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
