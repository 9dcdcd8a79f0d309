// The AscendC backend of the device library, run in the emulator: slot headers per core, GM
// write-back, the CPU-debug clock (1 GHz: GetSystemCycle() is CLOCK_REALTIME ns there), the dropped path and the ground-truth hook.
#include "kernel_operator.h"
#include "optrace/trace.h"
#include "optrace_emu/runtime.h"

#include <gtest/gtest.h>

#include <vector>

namespace optrace {
namespace {

namespace f = format;

constexpr uint32_t kWords = PROF_SIZE_PER_CORE;

// Each core records `extra` + 2 events; AIC 0 records `overflow_extra` more.
void Kernel(GM_ADDR profiling, uint32_t overflow_extra) {
  OPTRACE_KERNEL_BEGIN();
  MoeTracing(TRACE_POINT("processing", "B"));
  if (g_coreType == AscendC::AIC && AscendC::GetBlockIdx() == 0) {
    for (uint32_t i = 0; i < overflow_extra; ++i) MoeTracing<false>(TRACE_POINT("fill", "B"), i);
  }
  MoeTracing(TRACE_POINT("processing", "E"), static_cast<uint32_t>(AscendC::GetBlockIdx()));
  OPTRACE_KERNEL_END(profiling);
}

Result<emu::LaunchResult> RunKernel(std::vector<int64_t>& profiling, uint32_t block_dim, uint32_t overflow_extra) {
  emu::LaunchOptions options;
  options.block_dim = block_dim;
  return emu::Launch(options, [&](int) { Kernel(reinterpret_cast<GM_ADDR>(profiling.data()), overflow_extra); });
}

TEST(AscendcWriterTest, EveryCoreWritesItsSeedSlotWithItsIdentity) {
  constexpr uint32_t kBlockDim = 3;
  std::vector<int64_t> profiling(kBlockDim * 3 * kWords, 0);
  auto run = RunKernel(profiling, kBlockDim, 0);
  ASSERT_TRUE(run.ok()) << run.status().message();
  for (uint32_t slot = 0; slot < kBlockDim * 3; ++slot) {
    const int64_t* s = &profiling[slot * kWords];
    const auto core = static_cast<uint64_t>(s[f::kWordCore]);
    ASSERT_EQ(f::MagicOf(static_cast<uint64_t>(s[f::kWordMagicVersion])), f::kMagic) << "slot " << slot;
    EXPECT_EQ(s[f::kWordClockHz], 1000000000) << "CPU-debug mode: GetSystemCycle() counts ns";
    EXPECT_EQ(s[f::kWordEventCount], 2);
    const uint32_t index = slot < kBlockDim ? slot : slot - kBlockDim;
    EXPECT_EQ(f::CoreKindOf(core), slot < kBlockDim ? f::CoreKind::kAic : f::CoreKind::kAiv);
    EXPECT_EQ(f::CoreIndexOf(core), index);
    EXPECT_EQ(f::SubBlockOf(core), slot < kBlockDim ? 0u : index % 2);
    EXPECT_EQ(f::PayloadOf(static_cast<uint64_t>(s[f::kHeaderWords + 2])), index);
    EXPECT_GE(s[f::kHeaderWords + 1], s[f::kWordStartTimestamp]);
    EXPECT_GE(s[f::kHeaderWords + 3], s[f::kHeaderWords + 1]);
  }
}

TEST(AscendcWriterTest, WriteBackCopiesOnlyTheUsedWords) {
  std::vector<int64_t> profiling(3 * kWords, -7);
  auto run = RunKernel(profiling, 1, 0);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(profiling[f::kHeaderWords + 4], -7) << "words after the last event are not written";
}

TEST(AscendcWriterTest, FullSlotCountsDroppedAndStaysInsideItsSlot) {
  std::vector<int64_t> profiling(3 * kWords, 0);
  auto run = RunKernel(profiling, 1, kSlotCapacity + 10);
  ASSERT_TRUE(run.ok()) << run.status().message();  // the emulator bounds-checks the GM slot
  const int64_t* s = &profiling[0];
  EXPECT_EQ(s[f::kWordEventCount], kSlotCapacity);
  EXPECT_EQ(s[f::kWordDropped], 12);  // capacity + 10 fills + processing B and E
  const auto& records = run->ranks[0].records;
  size_t dropped = 0;
  for (const auto& r : records) dropped += r.slot == 0 && !r.stored;
  EXPECT_EQ(dropped, 12u);
  EXPECT_EQ(f::MagicOf(static_cast<uint64_t>(profiling[kWords])), f::kMagic) << "AIV 0's slot intact";
  EXPECT_EQ(profiling[kWords + f::kWordEventCount], 2);
}

TEST(AscendcWriterTest, GroundTruthMatchesTheSlots) {
  std::vector<int64_t> profiling(2 * 3 * kWords, 0);
  auto run = RunKernel(profiling, 2, 0);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const auto& records = run->ranks[0].records;
  ASSERT_EQ(records.size(), 12u);
  for (const auto& r : records) {
    const int64_t* s = &profiling[r.slot * kWords];
    bool found = false;
    for (int64_t i = 0; i < s[f::kWordEventCount]; ++i) {
      found |= static_cast<uint64_t>(s[f::kHeaderWords + 2 * i]) == f::PackEvent(r.point_id, r.payload) &&
               static_cast<uint64_t>(s[f::kHeaderWords + 2 * i + 1]) == r.timestamp;
    }
    EXPECT_TRUE(found) << "slot " << r.slot << " point " << r.point_id;
    EXPECT_TRUE(r.stored);
  }
}

}  // namespace
}  // namespace optrace
