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
  OPTRACE_ASSIGN_OR_RETURN(int fd, OpenRegularFile(path));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return IoError("{}: cannot stat: {}", path.string(), std::strerror(e));
  }
  MappedFile f;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                     MAP_PRIVATE | (access == Access::kSequential ? MAP_POPULATE : 0), fd, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, static_cast<size_t>(st.st_size), access == Access::kSparse ? MADV_RANDOM : MADV_SEQUENTIAL);
      ::close(fd);
      f.map_ = p;
      f.size_ = static_cast<size_t>(st.st_size);
      return f;
    }
  }
  // Not mappable (an empty file, a failed mmap): read it the way every other input is read.
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
