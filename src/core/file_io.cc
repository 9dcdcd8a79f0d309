#include "core/file_io.h"

#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace optrace {
namespace fs = std::filesystem;

Result<std::string> ReadFileToString(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFoundError("{}: no such file; check the path", path.string());
    return IoError("{}: cannot open: {}", path.string(), std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return BadInputError("{}: is a directory, expected a file", path.string());
  }
  std::string out;
  if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return IoError("{}: read failed: {}", path.string(), std::strerror(e));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Status WriteFileAtomic(const fs::path& path, std::string_view contents) {
  fs::path dir = path.parent_path();
  if (!dir.empty()) OPTRACE_RETURN_IF_ERROR(EnsureDirectory(dir));
  std::string tmpl = path.string() + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return IoError("{}: cannot create a temp file beside it: {}", path.string(), std::strerror(errno));
  mode_t mode = 0644;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  size_t off = 0;
  while (off < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + off, contents.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      return IoError("{}: write failed: {}", path.string(), std::strerror(e));
    }
    off += static_cast<size_t>(n);
  }
  ::fchmod(fd, mode);
  if (::close(fd) != 0 || ::rename(tmpl.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmpl.c_str());
    return IoError("{}: cannot replace: {}", path.string(), std::strerror(e));
  }
  return Status::Ok();
}

Status EnsureDirectory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IoError("{}: cannot create directory: {}", dir.string(), ec.message());
  if (!fs::is_directory(dir)) return IoError("{}: exists and is not a directory", dir.string());
  return Status::Ok();
}

fs::path ResolveAgainstCwd(const fs::path& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) return path;
  return abs.lexically_normal();
}

Status WriteStreamAtomic(const std::filesystem::path& path, const std::function<Status(std::ostream&)>& write) {
  const std::filesystem::path target = ResolveAgainstCwd(path);
  if (target.has_parent_path()) OPTRACE_RETURN_IF_ERROR(EnsureDirectory(target.parent_path()));
  std::filesystem::path tmp = target;
  tmp += fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  Status st;
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    if (!os) return IoError("{}: cannot create the file; check the directory is writable", tmp.string());
    st = write(os);
    os.flush();
    if (st.ok() && !os) st = IoError("{}: write failed (disk full?)", tmp.string());
  }
  std::error_code ec;
  if (!st.ok()) {
    std::filesystem::remove(tmp, ec);
    return st.WithContext(path.string());
  }
  if (std::filesystem::exists(target, ec)) std::filesystem::permissions(tmp, std::filesystem::status(target, ec).permissions(), ec);
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return IoError("{}: cannot replace the file: {}", target.string(), ec.message());
  }
  return Status::Ok();
}


}  // namespace optrace
