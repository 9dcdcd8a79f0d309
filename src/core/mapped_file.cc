#include "core/mapped_file.h"

#include "core/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>

namespace optrace {
namespace {

// The mappings the SIGBUS handler may mend. Fixed-size and lock-free: the handler only reads
// atomics. A mapping that finds no free slot is read into memory instead.
struct Region {
  std::atomic<uintptr_t> begin{0};  // 0: free
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> shrank{false};
};
constexpr int kRegions = 256;
Region g_regions[kRegions];
struct sigaction g_previous {};

void RestorePreviousAndReturn(int sig, siginfo_t* info, void* context) {
  // Not one of ours: let the fault do what it did before optrace was here.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    return g_previous.sa_handler(sig);
  }
  ::signal(sig, SIG_DFL);  // the faulting access runs again and ends the process as it would have
}

void OnSigbus(int sig, siginfo_t* info, void* context) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr);
  for (Region& r : g_regions) {
    const uintptr_t begin = r.begin.load(std::memory_order_acquire);
    const uintptr_t end = r.end.load(std::memory_order_acquire);
    if (begin == 0 || at < begin || at >= end) continue;
    // Zero pages from the faulting page to the end of the mapping: the read resumes and the
    // decoder sees zeros; MappedFile::CheckWhole reports the file.
    const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const uintptr_t from = at & ~(page - 1);
    void* p = ::mmap(reinterpret_cast<void*>(from), end - from, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS,
                     -1, 0);
    if (p == MAP_FAILED) break;
    r.shrank.store(true, std::memory_order_release);
    return;
  }
  RestorePreviousAndReturn(sig, info, context);
}

void InstallHandlerOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = OnSigbus;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_previous);
  });
}

int Watch(void* p, size_t size) {
  InstallHandlerOnce();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  for (int i = 0; i < kRegions; ++i) {
    uintptr_t free_slot = 0;
    if (!g_regions[i].begin.compare_exchange_strong(free_slot, UINTPTR_MAX)) continue;  // reserved
    g_regions[i].shrank.store(false);
    g_regions[i].end.store(begin + size, std::memory_order_release);
    g_regions[i].begin.store(begin, std::memory_order_release);
    return i;
  }
  return -1;
}

void Unwatch(int i) {
  if (i < 0) return;
  g_regions[i].end.store(0, std::memory_order_release);
  g_regions[i].begin.store(0, std::memory_order_release);
}

}  // namespace

Result<MappedFile> MappedFile::Open(const std::filesystem::path& path, Access access) {
  OPTRACE_ASSIGN_OR_RETURN(int fd, OpenRegularFile(path));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return IoError("{}: cannot stat: {}", path.string(), std::strerror(e));
  }
  MappedFile f;
  f.path_ = path.string();
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const size_t size = static_cast<size_t>(st.st_size);
    // MAP_POPULATE reads ahead inside mmap; pages the file has lost by then are left unmapped
    // (the kernel ignores populate failures), and their fault comes to the handler below.
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (access == Access::kSequential ? MAP_POPULATE : 0), fd, 0);
    if (p != MAP_FAILED) {
      const int region = Watch(p, size);
      if (region >= 0) {
        ::madvise(p, size, access == Access::kSparse ? MADV_RANDOM : MADV_SEQUENTIAL);
        ::close(fd);
        f.map_ = p;
        f.size_ = size;
        f.region_ = region;
        return f;
      }
      ::munmap(p, size);
    }
  }
  // Not mappable (an empty file, a failed mmap, every watch slot taken): read it the way every
  // other input is read.
  ::close(fd);
  OPTRACE_ASSIGN_OR_RETURN(f.copy_, ReadFileToString(path));
  return f;
}

Status MappedFile::CheckWhole() const {
  if (region_ >= 0 && g_regions[region_].shrank.load(std::memory_order_acquire)) {
    return IoError("{}: the file shrank while it was read (it had {} bytes): something wrote it meanwhile; read it "
                   "again once the writer is done",
                   path_, size_);
  }
  return Status::Ok();
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : map_(std::exchange(o.map_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      region_(std::exchange(o.region_, -1)),
      path_(std::move(o.path_)),
      copy_(std::move(o.copy_)) {}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    Release();
    map_ = std::exchange(o.map_, nullptr);
    size_ = std::exchange(o.size_, 0);
    region_ = std::exchange(o.region_, -1);
    path_ = std::move(o.path_);
    copy_ = std::move(o.copy_);
  }
  return *this;
}

MappedFile::~MappedFile() { Release(); }

void MappedFile::Release() {
  Unwatch(region_);  // before the unmap: the address range may be another mapping's next
  if (map_) ::munmap(map_, size_);
  map_ = nullptr;
  size_ = 0;
  region_ = -1;
}

}  // namespace optrace
