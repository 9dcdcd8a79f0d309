// The host backend through the public API: header words, payload encodings, bounds.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "optrace/trace.h"

namespace optrace {
namespace {

namespace f = format;

constexpr uint32_t kWords = PROF_SIZE_PER_CORE;

struct Buffer {
  explicit Buffer(uint32_t slots) : words(static_cast<size_t>(slots) * kWords + kGuardWords, kGuard) {}
  int64_t* data() { return words.data(); }
  const int64_t* Slot(uint32_t i) const { return &words[static_cast<size_t>(i) * kWords]; }
  static constexpr int64_t kGuard = 0x5a5a5a5a5a5a5a5a;
  static constexpr size_t kGuardWords = 16;
  std::vector<int64_t> words;
};

TEST(HostWriterTest, ThreadBeginWritesTheSlotHeader) {
  Buffer buf(4);
  const uint64_t before = backend::Host::Now();
  OPTRACE_KERNEL_BEGIN(buf.data(), 2);
  OPTRACE_KERNEL_END(buf.data());
  const int64_t* s = buf.Slot(2);
  EXPECT_EQ(static_cast<uint64_t>(s[f::kWordMagicVersion]), f::PackMagicVersion());
  EXPECT_EQ(f::CoreKindOf(static_cast<uint64_t>(s[f::kWordCore])), f::CoreKind::kHostThread);
  EXPECT_EQ(f::CoreIndexOf(static_cast<uint64_t>(s[f::kWordCore])), 2u);
  EXPECT_EQ(s[f::kWordClockHz], 1000000000);
  EXPECT_GE(static_cast<uint64_t>(s[f::kWordStartTimestamp]), before);
  EXPECT_EQ(f::CapacityOf(static_cast<uint64_t>(s[f::kWordCapacity])), 1020u);
  EXPECT_EQ(f::SlotWordsOf(static_cast<uint64_t>(s[f::kWordCapacity])), kWords);
  EXPECT_EQ(s[f::kWordEventCount], 0);
  EXPECT_EQ(s[f::kWordDropped], 0);
  EXPECT_EQ(s[f::kWordFingerprint], 0);
  EXPECT_EQ(buf.Slot(1)[0], Buffer::kGuard) << "other slots untouched";
  EXPECT_EQ(buf.Slot(3)[0], Buffer::kGuard);
}

TEST(HostWriterTest, PayloadEncodingsFollowTheSeed) {
  Buffer buf(1);
  OPTRACE_KERNEL_BEGIN(buf.data(), 0);
  MoeTracing(TRACE_POINT("processing", "B"));
  MoeTracing(TRACE_POINT("expert group", "B"), 7u);
  MoeTracing(TRACE_POINT("stage", "E"), 3u, 5u);
  MoeTracing(static_cast<int64_t>(TRACE_POINT("raw", "B") | (uint64_t{9} << 32)));
  MoeTracing<false>(TRACE_POINT("processing", "E"));
  OPTRACE_KERNEL_END(buf.data());
  const int64_t* s = buf.Slot(0);
  ASSERT_EQ(s[f::kWordEventCount], 5);
  auto event = [&](int i) { return static_cast<uint64_t>(s[f::kHeaderWords + 2 * i]); };
  EXPECT_EQ(event(0), f::PackEvent(TRACE_POINT("processing", "B"), 0));
  EXPECT_EQ(event(1), f::PackEvent(TRACE_POINT("expert group", "B"), 7));
  EXPECT_EQ(f::PayloadOf(event(2)), 3u | (5u << 8));
  EXPECT_EQ(event(3), f::PackEvent(TRACE_POINT("raw", "B"), 9));
  EXPECT_EQ(f::PointIdOf(event(4)), TRACE_POINT("processing", "E"));
}

TEST(HostWriterTest, TimestampsDoNotGoBackwards) {
  Buffer buf(1);
  OPTRACE_KERNEL_BEGIN(buf.data(), 0);
  for (int i = 0; i < 100; ++i) MoeTracing(TRACE_POINT("tick", "B"));
  OPTRACE_KERNEL_END(buf.data());
  const int64_t* s = buf.Slot(0);
  int64_t last = s[f::kWordStartTimestamp];
  for (int i = 0; i < 100; ++i) {
    EXPECT_GE(s[f::kHeaderWords + 2 * i + 1], last);
    last = s[f::kHeaderWords + 2 * i + 1];
  }
}

TEST(HostWriterTest, FullSlotCountsDroppedAndNeverWritesPastItsEnd) {
  Buffer buf(2);
  OPTRACE_KERNEL_BEGIN(buf.data(), 0);
  for (uint32_t i = 0; i < kSlotCapacity + 25; ++i) MoeTracing(TRACE_POINT("fill", "B"), i);
  OPTRACE_KERNEL_END(buf.data());
  const int64_t* s = buf.Slot(0);
  EXPECT_EQ(s[f::kWordEventCount], kSlotCapacity);
  EXPECT_EQ(s[f::kWordDropped], 25);
  EXPECT_EQ(f::PayloadOf(static_cast<uint64_t>(s[f::kHeaderWords + 2 * (kSlotCapacity - 1)])), kSlotCapacity - 1);
  for (uint32_t w = 0; w < kWords; ++w) EXPECT_EQ(buf.Slot(1)[w], Buffer::kGuard) << "word " << w;
}

TEST(HostWriterTest, RecordsOutsideBeginEndAreIgnored) {
  Buffer buf(1);
  MoeTracing(TRACE_POINT("before", "B"));
  OPTRACE_KERNEL_BEGIN(buf.data(), 0);
  OPTRACE_KERNEL_END(buf.data());
  MoeTracing(TRACE_POINT("after", "B"));
  EXPECT_EQ(buf.Slot(0)[f::kWordEventCount], 0);
}

TEST(HostWriterTest, EachThreadWritesItsOwnSlot) {
  constexpr uint32_t kThreads = 4;
  Buffer buf(kThreads);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&buf, t] {
      ScopedThreadTrace trace(buf.data(), t);
      for (uint32_t i = 0; i <= t; ++i) MoeTracing(TRACE_POINT("work", "B"), t);
    });
  }
  for (auto& th : threads) th.join();
  for (uint32_t t = 0; t < kThreads; ++t) {
    const int64_t* s = buf.Slot(t);
    EXPECT_EQ(s[f::kWordEventCount], t + 1);
    EXPECT_EQ(f::CoreIndexOf(static_cast<uint64_t>(s[f::kWordCore])), t);
    EXPECT_EQ(f::PayloadOf(static_cast<uint64_t>(s[f::kHeaderWords])), t);
  }
}

}  // namespace
}  // namespace optrace
