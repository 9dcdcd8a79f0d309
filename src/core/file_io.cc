#include "core/file_io.h"

#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <streambuf>
#include <vector>

namespace optrace {
namespace fs = std::filesystem;

Result<int> OpenRegularFile(const fs::path& path) {
  // O_NONBLOCK: opening a FIFO without a writer must not block; cleared again below.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) return NotFoundError("{}: no such file (or a dangling symlink); check the path", path.string());
    if (e == ELOOP) return BadInputError("{}: a symlink loop; point it at the real file", path.string());
    return IoError("{}: cannot open: {}", path.string(), std::strerror(e));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return IoError("{}: cannot stat: {}", path.string(), std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) return BadInputError("{}: is a directory, expected a file", path.string());
    const char* what = S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) ? "a character device (such as /dev/zero, which never ends)"
                       : S_ISBLK(st.st_mode) ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return BadInputError("{}: is {}; optrace reads regular files only: save the data to a file first", path.string(),
                         what);
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

bool IsRegularFile(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Status ReadFileInto(const fs::path& path, std::string& out) {
  OPTRACE_ASSIGN_OR_RETURN(int fd, OpenRegularFile(path));
  struct stat st {};
  ::fstat(fd, &st);
  // Straight into `out`, sized from the file (one more byte to see the end; a file that grows
  // meanwhile is read to its end all the same). Never more than that: callers keep thousands of
  // sources in memory at once, and a 64 KiB floor made 20,000 one-line headers cost 1.3 GB.
  size_t size = 0;
  out.resize(st.st_size > 0 ? static_cast<size_t>(st.st_size) + 1 : 4096);
  for (;;) {
    if (size == out.size()) out.resize(out.size() * 2);
    ssize_t n = ::read(fd, out.data() + size, out.size() - size);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      out.clear();
      return IoError("{}: read failed: {}", path.string(), std::strerror(e));
    }
    if (n == 0) break;
    size += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(size);
  return Status::Ok();
}

Result<std::string> ReadFileToString(const fs::path& path) {
  std::string out;
  OPTRACE_RETURN_IF_ERROR(ReadFileInto(path, out));
  return out;
}

namespace {

// The file a write to `path` must replace: through a symlink to its target, so the link the
// user made stays a link (renaming over it would turn it into a regular copy).
Result<fs::path> WriteTarget(const fs::path& path) {
  if (path.empty()) return UsageError("an empty output path; name the file to write");
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
  fs::path target = fs::canonical(path, ec);
  if (ec) {
    // A dangling link: write where it points (relative targets resolve against the link's directory).
    fs::path to = fs::read_symlink(path, ec);
    if (ec) return IoError("{}: cannot read the symlink: {}", path.string(), ec.message());
    return to.is_absolute() ? to : (path.parent_path() / to).lexically_normal();
  }
  return target;
}

// What an existing output path is: a regular file (or nothing) is replaced atomically; a FIFO or
// a character device (-o /dev/null, -o /dev/stdout) is written as it is, never replaced by a
// regular file; anything else (a socket, a block device, a directory) is refused.
enum class OutputKind { kReplace, kWriteInPlace };
Result<OutputKind> KindOfOutput(const fs::path& target, const fs::path& requested) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return OutputKind::kReplace;
  if (S_ISREG(st.st_mode)) return OutputKind::kReplace;
  if (S_ISDIR(st.st_mode)) return BadInputError("{}: is a directory; name a file to write", requested.string());
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) return OutputKind::kWriteInPlace;
  return BadInputError("{}: is not a regular file, a FIFO or a character device (a socket?); name a file to write",
                       requested.string());
}

// Opens a FIFO or character device for writing: a FIFO nobody reads is an error, not a hang.
Result<int> OpenInPlace(const fs::path& target, const fs::path& requested) {
  int fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO)
      return IoError("{}: a FIFO with no reader; start the reader first, or name a file", requested.string());
    return IoError("{}: cannot open for writing: {}", requested.string(), std::strerror(errno));
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

// An output stream buffer over a file descriptor (a FIFO or a device written in place): 64 KiB
// buffered, every write completed (EINTR retried); failed() once a write fails.
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd), buf_(64 << 10) { setp(buf_.data(), buf_.data() + buf_.size()); }
  bool failed() const { return failed_; }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    const char* p = pbase();
    while (p < pptr()) {
      ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        return -1;
      }
      p += n;
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return 0;
  }

 private:
  int fd_;
  std::vector<char> buf_;
  bool failed_ = false;
};

Status WriteAll(int fd, std::string_view contents, const fs::path& requested) {
  size_t off = 0;
  while (off < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + off, contents.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("{}: write failed: {}", requested.string(), std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Temp files being written, removed if the process is interrupted (Ctrl-C) mid-write.
constexpr int kMaxPending = 16;
char g_pending[kMaxPending][4096];
volatile sig_atomic_t g_pending_used[kMaxPending];
std::once_flag g_handler_once;

void RemovePendingAndReraise(int sig) {
  for (int i = 0; i < kMaxPending; ++i)
    if (g_pending_used[i]) ::unlink(g_pending[i]);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

class PendingTemp {
 public:
  explicit PendingTemp(const std::string& path) {
    std::call_once(g_handler_once, [] {
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        ::sigaction(sig, nullptr, &old);
        if (old.sa_handler == SIG_DFL) ::signal(sig, RemovePendingAndReraise);
      }
    });
    if (path.size() >= sizeof g_pending[0]) return;
    for (int i = 0; i < kMaxPending; ++i) {
      if (g_pending_used[i]) continue;
      std::memcpy(g_pending[i], path.c_str(), path.size() + 1);
      g_pending_used[i] = 1;
      slot_ = i;
      return;
    }
  }
  ~PendingTemp() {
    if (slot_ >= 0) g_pending_used[slot_] = 0;
  }
  PendingTemp(const PendingTemp&) = delete;
  PendingTemp& operator=(const PendingTemp&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace

bool IsReplaceableOutput(const fs::path& requested) {
  Result<fs::path> through = WriteTarget(requested);
  if (!through.ok()) return false;
  Result<OutputKind> kind = KindOfOutput(ResolveAgainstCwd(*through), requested);
  return kind.ok() && *kind == OutputKind::kReplace;
}

Status WriteFileAtomic(const fs::path& requested, std::string_view contents) {
  OPTRACE_ASSIGN_OR_RETURN(const fs::path path, WriteTarget(requested));
  OPTRACE_ASSIGN_OR_RETURN(OutputKind kind, KindOfOutput(path, requested));
  if (kind == OutputKind::kWriteInPlace) {
    OPTRACE_ASSIGN_OR_RETURN(int fd, OpenInPlace(path, requested));
    Status st = WriteAll(fd, contents, requested);
    ::close(fd);
    return st;
  }
  fs::path dir = path.parent_path();
  if (!dir.empty()) OPTRACE_RETURN_IF_ERROR(EnsureDirectory(dir));
  std::string tmpl = path.string() + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return IoError("{}: cannot create a temp file beside it: {}", path.string(), std::strerror(errno));
  PendingTemp pending(tmpl);
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

Status CheckNotAnInput(std::string_view flag, const fs::path& out, const std::vector<fs::path>& inputs) {
  std::error_code ec;
  if (out.empty() || !fs::exists(out, ec)) return Status::Ok();  // a new file destroys nothing
  const fs::path real_out = fs::weakly_canonical(ResolveAgainstCwd(out), ec);
  for (const fs::path& in : inputs) {
    if (in.empty()) continue;
    if (fs::equivalent(out, in, ec)) {
      return UsageError("{} {} is an input of this command ({}); writing it would destroy that input: name another "
                        "file",
                        flag, out.string(), in.string());
    }
    // An existing file inside an input directory is one of the files the command reads.
    if (fs::is_directory(in, ec) && fs::is_regular_file(out, ec)) {
      const fs::path real_in = fs::weakly_canonical(ResolveAgainstCwd(in), ec);
      fs::path rel = real_out.lexically_relative(real_in);
      if (!rel.empty() && *rel.begin() != "..") {
        return UsageError("{} {} is a file of the input directory {}; writing it would destroy an input: name a file "
                          "outside it",
                          flag, out.string(), in.string());
      }
    }
  }
  return Status::Ok();
}

Status CheckWritable(const fs::path& path) {
  std::error_code ec;
  fs::path target = path;
  const fs::file_status link = fs::symlink_status(path, ec);  // a file not there yet is fine
  if (fs::is_symlink(link)) {
    target = fs::canonical(path, ec);
    if (ec) return IoError("{}: cannot resolve the link: {}", path.string(), ec.message());
  }
  if (fs::exists(target, ec) && ::access(target.c_str(), W_OK) != 0)
    return IoError("{}: not writable ({}); nothing was changed", path.string(), std::strerror(errno));
  fs::path dir = ResolveAgainstCwd(target).parent_path();
  if (::access(dir.c_str(), W_OK) != 0)
    return IoError("{}: its directory is not writable ({}); nothing was changed", path.string(), std::strerror(errno));
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
  OPTRACE_ASSIGN_OR_RETURN(const fs::path through, WriteTarget(path));
  const std::filesystem::path target = ResolveAgainstCwd(through);
  OPTRACE_ASSIGN_OR_RETURN(OutputKind kind, KindOfOutput(target, path));
  if (kind == OutputKind::kWriteInPlace) {
    // A FIFO or device: stream into it as it is (the writer's output is not held in memory).
    // The descriptor that found the reader is the one written: closing it and opening the FIFO
    // again let a reader that read in between see end of file and leave, and the second open
    // then waited for a reader forever.
    OPTRACE_ASSIGN_OR_RETURN(int fd, OpenInPlace(target, path));
    FdBuffer buffer(fd);
    std::ostream os(&buffer);
    Status st = write(os);
    os.flush();
    if (st.ok() && (!os || buffer.failed())) st = IoError("{}: write failed", path.string());
    if (::close(fd) != 0 && st.ok()) st = IoError("{}: write failed: {}", path.string(), std::strerror(errno));
    return st.ok() ? st : st.WithContext(path.string());
  }
  if (target.has_parent_path()) OPTRACE_RETURN_IF_ERROR(EnsureDirectory(target.parent_path()));
  std::filesystem::path tmp = target;
  tmp += fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  PendingTemp pending(tmp.string());
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
