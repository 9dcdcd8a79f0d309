// The generic writer (optrace/writer.h) on small slots, independent of any clock.
#include <gtest/gtest.h>

#include <vector>

#include "optrace/trace.h"

namespace optrace {
namespace {

namespace f = format;

TEST(SlotWriterTest, CapacityFollowsTheSlotSize) {
  std::vector<int64_t> slot(13, -1);
  detail::InitSlot(slot.data(), 13, 0, 1, 0);
  EXPECT_EQ(f::CapacityOf(static_cast<uint64_t>(slot[f::kWordCapacity])), 2u);  // (13 - 8) / 2
  EXPECT_EQ(f::SlotWordsOf(static_cast<uint64_t>(slot[f::kWordCapacity])), 13u);
}

TEST(SlotWriterTest, AppendStopsAtCapacityAndCountsTheRest) {
  std::vector<int64_t> words(12 + 4, 77);  // a 12-word slot (2 events) and 4 guard words
  detail::InitSlot(words.data(), 12, 0, 1, 0);
  EXPECT_TRUE(detail::AppendEvent(words.data(), 2, 0, 10));
  EXPECT_TRUE(detail::AppendEvent(words.data(), 3, 0, 11));
  EXPECT_FALSE(detail::AppendEvent(words.data(), 4, 0, 12));
  EXPECT_FALSE(detail::AppendEvent(words.data(), 5, 0, 13));
  EXPECT_EQ(words[f::kWordEventCount], 2);
  EXPECT_EQ(words[f::kWordDropped], 2);
  for (size_t i = 12; i < words.size(); ++i) EXPECT_EQ(words[i], 77) << "word " << i;
}

TEST(SlotWriterTest, UsedWordsCoverHeaderAndStoredEvents) {
  std::vector<int64_t> slot(20, 0);
  detail::InitSlot(slot.data(), 20, 0, 1, 0);
  EXPECT_EQ(detail::UsedWords(slot.data()), 8u);
  ASSERT_TRUE(detail::AppendEvent(slot.data(), 2, 0, 1));
  EXPECT_EQ(detail::UsedWords(slot.data()), 10u);
}

}  // namespace
}  // namespace optrace
