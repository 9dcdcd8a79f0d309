#include "collect/native_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dump_builder.h"

namespace optrace::collect {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT

TEST(NativeReader, DecodesHeaderAndEvents) {
  SlotSpec s{CoreKind::kAiv, 7, 1, 1'000'000'000, 42};
  s.events = {{Bid("send"), 5, 100}, {Eid("send"), 5, 150}};
  s.dropped = 3;
  std::string bytes = ToBytes(BuildNativeBuffer({s}, 16));
  Result<Dump> d = DecodeNativeDump(bytes, "rank2.bin", 2);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->rank, 2);
  EXPECT_EQ(d->slot_words, 16u);
  ASSERT_EQ(d->cores.size(), 1u);
  const CoreSeries& c = d->cores[0];
  EXPECT_EQ(c.kind, CoreKind::kAiv);
  EXPECT_EQ(c.core_index, 7u);
  EXPECT_EQ(c.sub_block, 1u);
  EXPECT_EQ(c.clock_hz, 1e9);
  EXPECT_EQ(c.start_ticks, 42);
  EXPECT_EQ(c.capacity, 4u);
  EXPECT_EQ(c.dropped, 3u);
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[1].point_id, Eid("send"));
  EXPECT_EQ(c.events[1].payload, 5u);
  EXPECT_EQ(c.events[1].ticks, 150);
}

TEST(NativeReader, LayoutDetailGivesTheSameCoresWithoutEvents) {
  const std::string bytes = SmallNativeDump();
  Result<Dump> full = DecodeNativeDump(bytes, "rank0.bin", 0);
  Result<Dump> layout = DecodeNativeDump(bytes, "rank0.bin", 0, DumpDetail::kLayout);
  ASSERT_TRUE(full.ok() && layout.ok());
  ASSERT_EQ(layout->cores.size(), full->cores.size());
  for (size_t i = 0; i < full->cores.size(); ++i) {
    EXPECT_EQ(layout->cores[i].kind, full->cores[i].kind);
    EXPECT_EQ(layout->cores[i].core_index, full->cores[i].core_index);
    EXPECT_EQ(layout->cores[i].slot, full->cores[i].slot);
    EXPECT_TRUE(layout->cores[i].events.empty());
    EXPECT_FALSE(full->cores[i].events.empty());
  }
  EXPECT_EQ(layout->never_written, full->never_written);
}

TEST(NativeReader, NeverWrittenSlotsAreCountedNotDecoded) {
  SlotSpec s{CoreKind::kAic, 1};
  std::string bytes = ToBytes(BuildNativeBuffer({std::nullopt, s, std::nullopt}, 16));
  Result<Dump> d = DecodeNativeDump(bytes, "rank0.bin", 0);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->cores.size(), 1u);
  EXPECT_EQ(d->never_written, 2u);
  EXPECT_EQ(d->never_written_slots, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(d->cores[0].slot, 1u);
}

TEST(NativeReader, PartialWordIsTruncated) {
  std::string bytes = ToBytes(BuildNativeBuffer({SlotSpec{}}, 16));
  bytes.resize(bytes.size() - 3);
  Result<Dump> d = DecodeNativeDump(bytes, "rank0.bin", 0);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("rank0.bin: 125 bytes is not a whole number of int64 words"));
  EXPECT_THAT(d.status().message(), HasSubstr("truncated"));
}

TEST(NativeReader, PartialSlotIsTruncated) {
  std::string bytes = ToBytes(BuildNativeBuffer({SlotSpec{}, SlotSpec{}}, 16));
  bytes.resize(bytes.size() - 8 * 4);
  Result<Dump> d = DecodeNativeDump(bytes, "rank0.bin", 0);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("not a whole number of slots of 16 words"));
}

TEST(NativeReader, SlotWithoutMagicIsNeverWrittenEvenWhenNotZeroed) {
  // SPEC 4: device memory is not zeroed, so an unused slot may hold anything.
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}, SlotSpec{}, SlotSpec{}}, 16);
  for (size_t i = 16; i < 32; ++i) w[i] = 0x1234567812345678ull;
  Result<Dump> d = DecodeNativeDump(ToBytes(w), "rank0.bin", 0);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->cores.size(), 2u);
  EXPECT_EQ(d->never_written, 1u);
  EXPECT_EQ(d->never_written_nonzero, 1u);
  EXPECT_EQ(d->never_written_slots, std::vector<uint32_t>{1});
}

TEST(NativeReader, LongerHeaderOfALaterWriterIsSkipped) {
  // Two extra header words: events start at word 10, capacity (16 - 10) / 2 = 3.
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}}, 16);
  std::vector<uint64_t> g(16, 0);
  for (int i = 0; i < 8; ++i) g[i] = w[i];
  g[0] = (g[0] & ~(0xffffull << 48)) | (uint64_t{10} << 48);
  g[format::kWordCapacity] = (g[format::kWordCapacity] & ~0xffffffffull) | 3u;  // capacity in the low word
  g[format::kWordEventCount] = 1;
  g[10] = 77;   // id 77
  g[11] = 500;  // tick
  Result<Dump> d = DecodeNativeDump(ToBytes(g), "rank0.bin", 0);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->cores.size(), 1u);
  ASSERT_EQ(d->cores[0].events.size(), 1u);
  EXPECT_EQ(d->cores[0].events[0].point_id, 77u);
  EXPECT_EQ(d->cores[0].events[0].ticks, 500);
}

TEST(NativeReader, ShorterHeaderIsRefused) {
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}}, 16);
  w[0] = (w[0] & ~(0xffffull << 48)) | (uint64_t{6} << 48);
  Result<Dump> d = DecodeNativeDump(ToBytes(w), "rank0.bin", 0);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("6 header words"));
}

TEST(NativeReader, NoHeaderAnywhereIsNotAnOptraceDump) {
  std::vector<uint64_t> w(32, 0x4141414141414141ull);
  Result<Dump> d = DecodeNativeDump(ToBytes(w), "rank0.bin", 0);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("no optrace slot header found"));
  EXPECT_THAT(d.status().message(), HasSubstr("rank<N>.pt"));
}

TEST(NativeReader, CountLargerThanCapacityIsCorrupt) {
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}, SlotSpec{}}, 16);
  w[16 + format::kWordEventCount] = 1900;
  Result<Dump> d = DecodeNativeDump(ToBytes(w), "rank3.bin", 3);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(),
              HasSubstr("rank3.bin: slot 1 @ byte 168: count 1900 > capacity 4; the slot header is corrupt"));
}

TEST(NativeReader, SlotSizesThatDisagreeAreCorrupt) {
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}, SlotSpec{}}, 16);
  w[16 + format::kWordCapacity] = format::PackCapacity(4, 32);
  Result<Dump> d = DecodeNativeDump(ToBytes(w), "rank0.bin", 0);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("slot size 32 words, but slot 0 says 16"));
}

TEST(NativeReader, NewerVersionAsksForUpdate) {
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}}, 16);
  w[0] = format::kMagic | (uint64_t{2} << 32) | (uint64_t{8} << 48);
  Result<Dump> d = DecodeNativeDump(ToBytes(w), "rank0.bin", 0);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("version 2"));
}

TEST(NativeReader, AllZeroDumpSaysSynchronise) {
  std::string bytes(256, '\0');
  Result<Dump> d = DecodeNativeDump(bytes, "rank0.bin", 0);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("rank0.bin: all 256 bytes are zero"));
  EXPECT_THAT(d.status().message(), HasSubstr("synchronise"));
}

}  // namespace
}  // namespace optrace::collect
