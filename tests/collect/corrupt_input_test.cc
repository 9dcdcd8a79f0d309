// Readers never crash, hang or read out of bounds on damaged input (SPEC section 9): every
// truncation and many byte flips of valid dumps decode to a value or an error. Meaningful under
// ASan/UBSan, where an out-of-bounds read fails the test.
#include <gtest/gtest.h>

#include "collect/zip_reader.h"

#include <random>

#include "collect/legacy_reader.h"
#include "collect/native_reader.h"
#include "dump_builder.h"

namespace optrace::collect {
namespace {

const std::string kLegacy = std::string(OPTRACE_TEST_DATA_DIR) + "/collect/legacy/rank000.pt";

TEST(CorruptInput, EveryTruncationOfALegacyDumpIsHandled) {
  const std::string good = testing::ReadText(kLegacy);
  ASSERT_TRUE(DecodeLegacyDump(good, "rank000.pt", 0, 50e6).ok());
  size_t errors = 0;
  for (size_t n = 0; n < good.size(); ++n) errors += !DecodeLegacyDump(good.substr(0, n), "rank000.pt", 0, 50e6).ok();
  EXPECT_EQ(errors, good.size());  // a zip without its end record is never accepted
}

TEST(CorruptInput, ByteFlipsInALegacyDumpAreHandled) {
  const std::string good = testing::ReadText(kLegacy);
  std::mt19937 rng(11);
  for (int i = 0; i < 3000; ++i) {
    std::string bad = good;
    for (int k = 0; k < 1 + i % 4; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    Result<Dump> d = DecodeLegacyDump(bad, "rank000.pt", 0, 50e6);
    if (d.ok()) {
      for (const CoreSeries& c : d->cores) EXPECT_LE(c.events.size(), c.capacity);
    } else {
      EXPECT_NE(d.status().message().find("rank000.pt"), std::string::npos) << d.status().message();
    }
  }
}

TEST(CorruptInput, AFlippedBitInTheStoredTensorFailsTheZipCrc) {
  // Issue 11: a .pt failing its zip CRC-32 was accepted, the flipped word read as a record.
  const std::string bad = testing::FlipStoredTensorBit(testing::ReadText(kLegacy), 9);
  ASSERT_FALSE(bad.empty());
  Result<Dump> d = DecodeLegacyDump(bad, "rank000.pt", 0, 50e6);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("CRC-32"), std::string::npos) << d.status().message();
  // collect's layout pass does not check it (the full read that follows does).
  Result<Dump> layout = DecodeLegacyDump(bad, "rank000.pt", 0, 50e6, DumpDetail::kLayout);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  ASSERT_FALSE(layout->cores.empty());
  EXPECT_TRUE(layout->cores[0].events.empty());
}

TEST(CorruptInput, ByteFlipsInANativeDumpAreHandled) {
  const std::string good = testing::SmallNativeDump();
  std::mt19937 rng(5);
  for (int i = 0; i < 3000; ++i) {
    std::string bad = good;
    for (int k = 0; k < 1 + i % 3; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    if (i % 7 == 0) bad.resize(rng() % bad.size());
    Result<Dump> d = DecodeNativeDump(bad, "rank0.bin", 0);
    if (d.ok()) {
      for (const CoreSeries& c : d->cores) EXPECT_LE(c.events.size(), c.capacity);
    } else {
      EXPECT_NE(d.status().message().find("rank0.bin"), std::string::npos) << d.status().message();
    }
  }
}

}  // namespace
}  // namespace optrace::collect
