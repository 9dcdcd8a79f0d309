#include "core/mapped_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace optrace {
namespace {

namespace fs = std::filesystem;

fs::path TempFile(const std::string& name, size_t bytes) {
  const fs::path dir = fs::temp_directory_path() / ("optrace_mapped_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << std::string(bytes, 'x');
  return p;
}

TEST(MappedFile, ReadsTheWholeFileAndIsWhole) {
  const fs::path p = TempFile("whole.bin", 3 * 4096 + 5);
  Result<MappedFile> f = MappedFile::Open(p);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->bytes(), std::string(3 * 4096 + 5, 'x'));
  EXPECT_TRUE(f->CheckWhole().ok());
}

// Issue 53.4: a dump truncated while it was read (cp or scp over it, the next run's torch.save)
// killed the process with SIGBUS. The lost pages now read as zeros and the file is an error.
TEST(MappedFile, AFileThatShrankWhileMappedReadsZerosAndIsAnErrorNamingIt) {
  for (MappedFile::Access access : {MappedFile::Access::kSequential, MappedFile::Access::kSparse}) {
    const fs::path p = TempFile("shrinks.bin", 16 * 4096);
    Result<MappedFile> f = MappedFile::Open(p, access);
    ASSERT_TRUE(f.ok()) << f.status().message();
    ASSERT_EQ(::truncate(p.c_str(), 4096), 0);
    const std::string_view bytes = f->bytes();
    EXPECT_EQ(bytes.size(), 16u * 4096);
    EXPECT_EQ(bytes[100], 'x');         // still the file's
    EXPECT_EQ(bytes[8 * 4096 + 7], 0);  // past its new end: zeros, not SIGBUS
    Status whole = f->CheckWhole();
    ASSERT_FALSE(whole.ok());
    EXPECT_NE(whole.message().find(p.string()), std::string::npos) << whole.message();
    EXPECT_NE(whole.message().find("shrank while it was read"), std::string::npos) << whole.message();
  }
}

TEST(MappedFile, AFileRewrittenShorterIsAnErrorOnlyForTheMappingThatReadPastTheEnd) {
  const fs::path a = TempFile("a.bin", 8 * 4096);
  const fs::path b = TempFile("b.bin", 8 * 4096);
  Result<MappedFile> fa = MappedFile::Open(a, MappedFile::Access::kSparse);
  Result<MappedFile> fb = MappedFile::Open(b, MappedFile::Access::kSparse);
  ASSERT_TRUE(fa.ok() && fb.ok());
  std::ofstream(a, std::ios::binary | std::ios::trunc) << "short";  // torch.save's "wb"
  volatile char sink = fa->bytes()[6 * 4096];
  (void)sink;
  EXPECT_FALSE(fa->CheckWhole().ok());
  EXPECT_EQ(fb->bytes()[6 * 4096], 'x');
  EXPECT_TRUE(fb->CheckWhole().ok());
}

TEST(MappedFile, MoreMappingsThanWatchSlotsAreReadIntoMemoryAndStillWhole) {
  std::vector<MappedFile> open;
  for (int i = 0; i < 300; ++i) {
    Result<MappedFile> f = MappedFile::Open(TempFile("many" + std::to_string(i) + ".bin", 4096 + i));
    ASSERT_TRUE(f.ok()) << f.status().message();
    EXPECT_EQ(f->bytes().size(), 4096u + i);
    open.push_back(std::move(*f));
  }
  for (const MappedFile& f : open) EXPECT_TRUE(f.CheckWhole().ok());
}

// The handler mends optrace's own mappings only: any other SIGBUS still ends the process.
TEST(MappedFileDeathTest, ASigbusOutsideOptracesMappingsStillEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path p = TempFile("foreign.bin", 4 * 4096);
  EXPECT_DEATH(
      {
        Result<MappedFile> ours = MappedFile::Open(p);  // installs the handler
        const int fd = ::open(p.c_str(), O_RDONLY);
        void* m = ::mmap(nullptr, 4 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
        ::ftruncate(::open(p.c_str(), O_WRONLY), 0);
        volatile char c = static_cast<const char*>(m)[3 * 4096];
        (void)c;
        std::exit(0);
      },
      "");
}

}  // namespace
}  // namespace optrace
