#include "core/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

namespace optrace {
namespace {
namespace fs = std::filesystem;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("optrace_file_io_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FileIoTest, AtomicWriteCreatesParentsAndRoundTrips) {
  fs::path p = dir_ / "a" / "b.txt";
  ASSERT_TRUE(WriteFileAtomic(p, "hello").ok());
  EXPECT_EQ(*ReadFileToString(p), "hello");
}

TEST_F(FileIoTest, AtomicWriteKeepsPermissions) {
  fs::path p = dir_ / "script.sh";
  ASSERT_TRUE(WriteFileAtomic(p, "#!/bin/sh\n").ok());
  ::chmod(p.c_str(), 0755);
  ASSERT_TRUE(WriteFileAtomic(p, "#!/bin/sh\necho\n").ok());
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

TEST_F(FileIoTest, ReadingIntoAReusedBufferGivesEachFileExactly) {
  std::string big(200000, 'x');
  for (size_t i = 0; i < big.size(); i += 997) big[i] = static_cast<char>('a' + i % 26);
  ASSERT_TRUE(WriteFileAtomic(dir_ / "big.bin", big).ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ / "small.bin", "tiny").ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ / "empty.bin", "").ok());
  std::string buf;
  ASSERT_TRUE(ReadFileInto(dir_ / "big.bin", buf).ok());
  EXPECT_EQ(buf, big);
  ASSERT_TRUE(ReadFileInto(dir_ / "small.bin", buf).ok());
  EXPECT_EQ(buf, "tiny");
  ASSERT_TRUE(ReadFileInto(dir_ / "empty.bin", buf).ok());
  EXPECT_EQ(buf, "");
  ASSERT_TRUE(ReadFileInto(dir_ / "big.bin", buf).ok());
  EXPECT_EQ(buf, big);
  Status missing = ReadFileInto(dir_ / "nope.bin", buf);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("nope.bin"), std::string::npos) << missing.message();
}

TEST_F(FileIoTest, MissingFileNamesThePath) {
  Result<std::string> r = ReadFileToString(dir_ / "nope.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("nope.bin"), std::string::npos);
}

// Issue 53.17: every read kept at least 64 KiB of capacity; scan holds every source at once, so
// 20,000 one-line headers took 1.33 GB. The string now holds the file and one byte.
TEST_F(FileIoTest, ASmallFileCostsItsOwnSizeNotAFixedBlock) {
  fs::create_directories(dir_);
  const fs::path p = dir_ / "one_line.h";
  std::ofstream(p) << "#pragma once\n";
  Result<std::string> text = ReadFileToString(p);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "#pragma once\n");
  EXPECT_LT(text->capacity(), 64u);
}

}  // namespace
}  // namespace optrace
