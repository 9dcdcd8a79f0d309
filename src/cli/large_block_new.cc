// The optrace executable's global operator new: blocks of 2 MiB and more start on a 2 MiB
// boundary and the whole 2 MiB pages inside them are advised for transparent huge pages.
//
// analyze builds tables of tens to hundreds of MB (events, pipeline fields, layers, blocks, the
// report's rows) and main() sends every block of 1 MiB or more back to the OS when freed (peak
// memory is a budget). Each such table is then filled from fresh pages: on a 300 MB export that
// was ~37,000 page faults, a quarter of the CPU time on a virtual machine. On 2 MiB pages the same
// tables take a few hundred. The block's tail past its last whole 2 MiB page stays on 4 KiB pages:
// advised too (the block rounded up to whole pages, as it first was), the first touch of the tail
// made a whole 2 MiB page resident, up to 2 MiB more per table (16 ranks of 5 MiB: layers and
// blocks of 2.3 MB each held 4 MB each, 3.5 MB of a 50 MB peak). Smaller blocks are glibc's
// malloc as before; every block is released with free(), which is what the library's operator
// delete does, so the pair stays consistent.
// Sanitizer builds keep their own operator new (it checks new/delete pairing).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "core/huge_pages.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define OPTRACE_SANITIZED_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OPTRACE_SANITIZED_NEW 1
#endif

#if !defined(OPTRACE_SANITIZED_NEW) && defined(__linux__)

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

void* TryAllocate(size_t n) noexcept {
  if (n < kHugePage) return std::malloc(n == 0 ? 1 : n);
  void* p = std::aligned_alloc(kHugePage, n);
  if (p) optrace::AdviseHugePages(p, n);  // the whole 2 MiB pages inside the block only
  return p;
}

void* Allocate(size_t n) {
  while (true) {  // [new.delete.single]: call the new-handler until it gives up
    if (void* p = TryAllocate(n)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* AllocateNoThrow(size_t n) noexcept {
  try {
    return Allocate(n);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

void* operator new(size_t n) { return Allocate(n); }
void* operator new[](size_t n) { return Allocate(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return AllocateNoThrow(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return AllocateNoThrow(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

#endif
