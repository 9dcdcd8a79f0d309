// ReadLegacyDumpFile reads a dump a block of rows at a time: the same Dump as decoding the whole
// file, the buffer never holding the file, and a corrupt byte anywhere in a storage (in the rows
// or in the storage around a tensor view) still failing the zip CRC-32 with the whole-file message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "collect/legacy_reader.h"
#include "collect/zip_reader.h"
#include "dump_builder.h"

namespace optrace::collect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kLegacyDir = testing::LegacyBenchDir();

class LegacyFileRead : public ::testing::Test {
 protected:
  // Real-shaped dumps from the benchmark generator: rows of 3264 words (two rows a 64 KiB block),
  // of 9000 words (a row is more than a block), and the first as views into padded storages.
  static void SetUpTestSuite() {
    if (std::string(OPTRACE_PYTHON3).empty()) return;
    dir_ = testing::SuiteDir("legacy_file");
    const std::string py = std::string(OPTRACE_PYTHON3) + " ";
    const std::string gen = py + kLegacyDir + "generate_legacy_set.py --ranks 1 --aic 3 --aiv 5 --records 60 --seed 3 ";
    const std::string pad = py + "-c \"import sys; sys.path.insert(0, '" + kLegacyDir +
                            "'); from legacy_pt import read_pt, write_pt; write_pt(sys.argv[2], read_pt(sys.argv[1]), "
                            "storage_pad=5)\" " + (dir_ / "narrow" / "rank000.pt").string() + " " +
                            (dir_ / "padded" / "rank000.pt").string();
    generated_ = std::system((gen + "--out " + (dir_ / "narrow").string() + " > /dev/null").c_str()) == 0 &&
                 std::system((gen + "--prof-size 9000 --out " + (dir_ / "wide").string() + " > /dev/null").c_str()) == 0 &&
                 fs::create_directories(dir_ / "padded") && std::system(pad.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (std::string(OPTRACE_PYTHON3).empty()) GTEST_SKIP() << "no python3 with numpy";
    ASSERT_TRUE(generated_) << "generating the legacy dumps failed";
  }

  static void ExpectSameDump(const Dump& a, const Dump& b) {
    EXPECT_EQ(a.slot_words, b.slot_words);
    EXPECT_EQ(a.never_written, b.never_written);
    EXPECT_EQ(a.never_written_slots, b.never_written_slots);
    ASSERT_EQ(a.cores.size(), b.cores.size());
    for (size_t i = 0; i < a.cores.size(); ++i) {
      const CoreSeries &x = a.cores[i], &y = b.cores[i];
      EXPECT_EQ(x.kind, y.kind);
      EXPECT_EQ(x.core_index, y.core_index);
      EXPECT_EQ(x.slot, y.slot);
      EXPECT_EQ(x.start_ticks, y.start_ticks);
      EXPECT_EQ(x.capacity, y.capacity);
      ASSERT_EQ(x.events.size(), y.events.size()) << "core " << i;
      for (size_t k = 0; k < x.events.size(); ++k) {
        EXPECT_EQ(x.events[k].point_id, y.events[k].point_id);
        EXPECT_EQ(x.events[k].payload, y.events[k].payload);
        EXPECT_EQ(x.events[k].ticks, y.events[k].ticks);
      }
    }
  }

  // The file with byte `at` of its storage entry data/0 flipped, written beside it.
  static fs::path Corrupted(const fs::path& file, uint64_t at) {
    std::string bytes = testing::ReadText(file);
    Result<ZipArchive> zip = ZipArchive::Open(bytes, file.string());
    EXPECT_TRUE(zip.ok());
    const ZipEntry* entry = zip->Find("rank000/data/0");
    EXPECT_NE(entry, nullptr);
    Result<uint64_t> data = zip->DataOffset(*entry);
    EXPECT_TRUE(data.ok());
    bytes[*data + at] ^= 0x10;
    fs::path out = dir_ / ("corrupt_" + std::to_string(at)) / "rank000.pt";
    fs::create_directories(out.parent_path());
    testing::WriteBytes(out, bytes);
    return out;
  }

  static inline fs::path dir_;
  static inline bool generated_ = false;
};

TEST_F(LegacyFileRead, GivesTheDumpOfTheWholeFileWithoutHoldingIt) {
  for (const fs::path& file : {dir_ / "narrow" / "rank000.pt", dir_ / "wide" / "rank000.pt", dir_ / "padded" / "rank000.pt"}) {
    SCOPED_TRACE(file.string());
    const std::string bytes = testing::ReadText(file);
    for (DumpDetail detail : {DumpDetail::kFull, DumpDetail::kLayout}) {
      Result<Dump> whole = DecodeLegacyDump(bytes, file.string(), 3, 50e6, detail);
      ASSERT_TRUE(whole.ok()) << whole.status().message();
      std::string buffer;
      Result<Dump> read = ReadLegacyDumpFile(file, 3, 50e6, detail, buffer);
      ASSERT_TRUE(read.ok()) << read.status().message();
      ExpectSameDump(*read, *whole);
      EXPECT_EQ(read->rank, 3);
      // A block of whole rows (64 KiB, or one row when a row is longer), never the file.
      EXPECT_LE(buffer.size(), std::max<size_t>(64 << 10, 9000 * 8));
      EXPECT_LT(buffer.size(), bytes.size());
    }
  }
}

TEST_F(LegacyFileRead, AFlippedByteInTheRowsFailsTheCrcAsTheWholeFileDoes) {
  const fs::path file = Corrupted(dir_ / "narrow" / "rank000.pt", 3264 * 8 + 20);  // row 1, a record
  std::string buffer;
  Result<Dump> read = ReadLegacyDumpFile(file, 0, 50e6, DumpDetail::kFull, buffer);
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("fails its zip CRC-32 check"));
  Result<Dump> whole = DecodeLegacyDump(testing::ReadText(file), file.string(), 0, 50e6);
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(read.status().message(), whole.status().message());
}

TEST_F(LegacyFileRead, AFlippedByteInTheStorageAroundAViewFailsTheCrc) {
  for (uint64_t at : {uint64_t{8}, uint64_t{(5 + 3 * 3264) * 8 + 3}}) {  // before the view, after it
    const fs::path file = Corrupted(dir_ / "padded" / "rank000.pt", at);
    std::string buffer;
    Result<Dump> read = ReadLegacyDumpFile(file, 0, 50e6, DumpDetail::kFull, buffer);
    ASSERT_FALSE(read.ok()) << at;
    EXPECT_THAT(read.status().message(), HasSubstr("fails its zip CRC-32 check"));
  }
}

}  // namespace
}  // namespace optrace::collect
