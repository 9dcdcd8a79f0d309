#include "core/mapped_file.h"

#include "core/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace optrace {

Result<MappedFile> MappedFile::Open(const std::filesystem::path& path, Access access) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
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
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return BadInputError("{}: is a directory, expected a file", path.string());
  }
  MappedFile f;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, static_cast<size_t>(st.st_size), access == Access::kSparse ? MADV_RANDOM : MADV_SEQUENTIAL);
      ::close(fd);
      f.map_ = p;
      f.size_ = static_cast<size_t>(st.st_size);
      return f;
    }
  }
  // Not mappable (a pipe, an empty file): read it the way every other input is read.
  ::close(fd);
  OPTRACE_ASSIGN_OR_RETURN(f.copy_, ReadFileToString(path));
  return f;
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : map_(std::exchange(o.map_, nullptr)), size_(std::exchange(o.size_, 0)), copy_(std::move(o.copy_)) {}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    Release();
    map_ = std::exchange(o.map_, nullptr);
    size_ = std::exchange(o.size_, 0);
    copy_ = std::move(o.copy_);
  }
  return *this;
}

MappedFile::~MappedFile() { Release(); }

void MappedFile::Release() {
  if (map_) ::munmap(map_, size_);
  map_ = nullptr;
  size_ = 0;
}

}  // namespace optrace
