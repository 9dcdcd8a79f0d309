#include "collect/torch_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "collect/legacy_reader.h"
#include "dump_builder.h"

namespace optrace::collect {
namespace {

using ::testing::HasSubstr;

const std::string kData = std::string(OPTRACE_TEST_DATA_DIR) + "/collect/";

TEST(TorchReader, ReadsAListOfInt64Tensors) {
  std::string bytes = testing::ReadText(kData + "legacy/rank000.pt");
  Result<TorchFile> f = ReadTorchFile(bytes, "rank000.pt");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_FALSE(f->bare_tensor);
  ASSERT_EQ(f->tensors.size(), 2u);
  EXPECT_EQ(f->tensors[1].rows(), 2);
  EXPECT_EQ(f->tensors[1].cols(), 16);
  EXPECT_EQ(f->tensors[1].At(0, 0), 7);                           // 1 + 6 records
  EXPECT_EQ(f->tensors[1].At(0, 2), 3 | (int64_t{1} << 40));      // send B, extra 1 << 8
  EXPECT_EQ(f->tensors[1].At(0, 15), 100);                        // initial timestamp
}

TEST(TorchReader, ReadsStoredTensorsInPlaceAtAnyAlignment) {
  // Zip writers other than torch.save do not align entries: the tensor is still read from the
  // file's bytes, not copied, and its values are the same at every byte offset.
  const std::string file = testing::ReadText(kData + "legacy/rank000.pt");
  for (size_t shift = 0; shift < 8; ++shift) {
    std::string buffer(shift, '\0');
    buffer += file;
    const std::string_view bytes = std::string_view(buffer).substr(shift);
    Result<TorchFile> f = ReadTorchFile(bytes, "rank000.pt");
    ASSERT_TRUE(f.ok()) << f.status().message();
    const Int64Tensor& t = f->tensors[1];
    EXPECT_EQ(t.owned, nullptr) << "shift " << shift;
    EXPECT_GE(t.bytes, bytes.data());
    EXPECT_LT(t.bytes, bytes.data() + bytes.size());
    EXPECT_EQ(t.At(0, 0), 7);
    EXPECT_EQ(t.At(0, 2), 3 | (int64_t{1} << 40));
    EXPECT_EQ(t.At(0, 15), 100);
  }
}

TEST(TorchReader, ReadsABareTensor) {
  std::string bytes = testing::ReadText(kData + "bare/rank001.pt");
  Result<TorchFile> f = ReadTorchFile(bytes, "rank001.pt");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->bare_tensor);
  ASSERT_EQ(f->tensors.size(), 1u);
  EXPECT_EQ(f->tensors[0].rows(), 2);
}

TEST(TorchReader, ZipWithoutDataPklIsNotATorchFile) {
  std::string bytes = testing::ReadText(kData + "not_torch/rank000.pt");
  Result<TorchFile> f = ReadTorchFile(bytes, "x/rank000.pt");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("x/rank000.pt: a zip file without <archive>/data.pkl"));
  EXPECT_THAT(f.status().message(), HasSubstr("notes/readme.txt"));
}

TEST(TorchReader, FloatStorageIsNotInt64) {
  std::string bytes = testing::ReadText(kData + "float/rank000.pt");
  Result<TorchFile> f = ReadTorchFile(bytes, "rank000.pt");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("tensor 0 is stored as torch.FloatStorage, not int64"));
}

TEST(TorchReader, PickleOfADictDoesNotDescribeTensors) {
  std::string bytes = testing::ReadText(kData + "dict/rank000.pt");
  Result<TorchFile> f = ReadTorchFile(bytes, "rank000.pt");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("the pickle holds a dict"));
  EXPECT_THAT(f.status().message(), HasSubstr("int64 tensors"));
}

TEST(TorchReader, NotAZipAtAll) {
  Result<TorchFile> f = ReadTorchFile(std::string(64, 'x'), "rank0.pt");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("rank0.pt: not a zip file"));
}

TEST(TorchReader, TruncatedZipIsReported) {
  std::string bytes = testing::ReadText(kData + "legacy/rank000.pt");
  bytes.resize(bytes.size() / 2);
  Result<TorchFile> f = ReadTorchFile(bytes, "rank000.pt");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("rank000.pt"));
}

TEST(LegacyReader, DecodesRowsIntoCoresWithCountsAndTimestamps) {
  std::string bytes = testing::ReadText(kData + "legacy/rank000.pt");
  Result<Dump> d = DecodeLegacyDump(bytes, "rank000.pt", 0, 50e6);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->never_written, 1u);  // AIC row 1
  ASSERT_EQ(d->cores.size(), 3u);
  EXPECT_EQ(d->cores[0].kind, CoreKind::kAic);
  EXPECT_EQ(d->cores[1].kind, CoreKind::kAiv);
  EXPECT_EQ(d->cores[1].core_index, 0u);
  EXPECT_EQ(d->cores[1].start_ticks, 100);
  EXPECT_EQ(d->cores[1].capacity, 7u);
  ASSERT_EQ(d->cores[1].events.size(), 6u);
  EXPECT_EQ(d->cores[1].events[3].point_id, 3u);
  EXPECT_EQ(d->cores[1].events[3].payload, (2u << 8) | 5u);
  EXPECT_EQ(d->cores[1].events[3].ticks, 300);
}

TEST(LegacyReader, RowsNeverWrittenEverywhereSaySynchronise) {
  std::string bytes = testing::ReadText(kData + "zero/rank000.pt");
  Result<Dump> d = DecodeLegacyDump(bytes, "rank000.pt", 0, 50e6);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("synchronise"));
}

}  // namespace
}  // namespace optrace::collect

#include "collect/zip_reader.h"
#include "zip_builder.h"

namespace optrace::collect {
namespace {

// A 2 MiB deflated entry claiming 2 GiB: refused before anything is allocated.
TEST(ZipBomb, AnEntryThatInflatesPastTheBoundIsRefusedBeforeAllocating) {
  testing::ZipFile bomb{"a/data/0", std::string(2u << 20, '\x5a'), false};
  std::string zip = testing::BuildZip({bomb});
  // Turn the stored entry into a deflated one that claims 2 GiB (method and size fields).
  zip[8] = 8;                                  // local header: method
  zip[22] = 0, zip[23] = 0, zip[24] = 0, zip[25] = static_cast<char>(0x80);  // local: uncompressed 2 GiB
  const size_t cd = zip.rfind(std::string("\x50\x4b\x01\x02", 4));
  zip[cd + 10] = 8;
  zip[cd + 24] = 0, zip[cd + 25] = 0, zip[cd + 26] = 0, zip[cd + 27] = static_cast<char>(0x80);
  Result<ZipArchive> a = ZipArchive::Open(zip, "bomb.pt");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->entries().size(), 1u);
  EXPECT_EQ(a->entries()[0].size, uint64_t{2} << 30);
  Result<std::string_view> r = a->Read(a->entries()[0]);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("inflates to 2147483648 bytes"));
}

TEST(ZipBomb, AnHonestDeflatedEntryIsStillRead) {
  const std::string data(1 << 20, '\0');
  std::string zip = testing::BuildZip({{"a/data/0", data, true}});
  Result<ZipArchive> a = ZipArchive::Open(zip, "ok.pt");
  ASSERT_TRUE(a.ok()) << a.status().message();
  Result<std::string_view> r = a->Read(a->entries()[0]);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), data.size());
}

}  // namespace
}  // namespace optrace::collect
