// Byte-level test vector of buffer format v1 (tests/data/format/host_slot_v1.bin, described in
// tests/data/format/README.md and docs/format.md): the writer must reproduce it byte for byte.
// OPTRACE_UPDATE_GOLDENS=1 rewrites the file.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "optrace/trace.h"

namespace optrace {
namespace {

namespace f = format;

const std::string kVectorPath = std::string(OPTRACE_TEST_DATA_DIR) + "/format/host_slot_v1.bin";

// A 16-word slot (capacity 4) of host thread 3: four events stored, a fifth dropped.
std::vector<int64_t> BuildVector() {
  std::vector<int64_t> slot(16, 0);
  detail::InitSlot(slot.data(), 16, f::PackCore(f::CoreKind::kHostThread, 3, 0), 1000000000, 1000);
  detail::AppendEvent(slot.data(), TRACE_POINT("processing", "B"), 0, 1000);
  detail::AppendEvent(slot.data(), TRACE_POINT("expert group", "B"), 2, 1500);
  detail::AppendEvent(slot.data(), TRACE_POINT("expert group", "E"), 2, 2500);
  detail::AppendEvent(slot.data(), TRACE_POINT("stage", "B"), f::PackExtraPayload(1, 2), 3000);
  detail::AppendEvent(slot.data(), TRACE_POINT("stage", "E"), f::PackExtraPayload(1, 2), 3500);
  return slot;
}

std::string Bytes(const std::vector<int64_t>& words) {
  return std::string(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(int64_t));
}

std::string Hex(const std::string& bytes, size_t word) {
  std::string out;
  char buf[4];
  for (size_t i = word * 8; i < word * 8 + 8; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned char>(bytes[i]));
    out += (i == word * 8 ? "" : " ") + std::string(buf);
  }
  return out;
}

TEST(FormatVectorTest, WriterReproducesTheVectorByteForByte) {
  const std::string built = Bytes(BuildVector());
  const char* update = std::getenv("OPTRACE_UPDATE_GOLDENS");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(kVectorPath, std::ios::binary) << built;
  }
  std::ifstream in(kVectorPath, std::ios::binary);
  ASSERT_TRUE(in) << kVectorPath << " is missing; run with OPTRACE_UPDATE_GOLDENS=1 to create it";
  const std::string golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(golden.size(), 128u);
  EXPECT_EQ(built, golden);
}

TEST(FormatVectorTest, KeyWordsHaveTheDocumentedBytes) {
  const std::string b = Bytes(BuildVector());
  EXPECT_EQ(Hex(b, 0), "4f 50 54 52 01 00 08 00");  // "OPTR", version 1, 8 header words
  EXPECT_EQ(Hex(b, 1), "04 00 00 00 03 00 00 00");  // host thread, sub-block 0, core 3
  EXPECT_EQ(Hex(b, 2), "00 ca 9a 3b 00 00 00 00");  // 1e9 Hz
  EXPECT_EQ(Hex(b, 3), "e8 03 00 00 00 00 00 00");  // start timestamp 1000
  EXPECT_EQ(Hex(b, 4), "04 00 00 00 10 00 00 00");  // capacity 4, slot of 16 words
  EXPECT_EQ(Hex(b, 5), "04 00 00 00 00 00 00 00");  // 4 events
  EXPECT_EQ(Hex(b, 6), "01 00 00 00 00 00 00 00");  // 1 dropped
  EXPECT_EQ(Hex(b, 7), "00 00 00 00 00 00 00 00");  // no fingerprint
  EXPECT_EQ(Hex(b, 10), "34 78 4f 34 02 00 00 00");  // "expert group" B (id 0x344f7834), index 2
  EXPECT_EQ(Hex(b, 11), "dc 05 00 00 00 00 00 00");  // at 1500
  EXPECT_EQ(Hex(b, 14).substr(12), "01 02 00 00");    // "stage" B: extraId 1 | index 2 << 8
}

}  // namespace
}  // namespace optrace
