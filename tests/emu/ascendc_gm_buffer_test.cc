// The AscendC backend's GM-buffer mode (ENABLE_MOE_PROFILING_GM_BUFFER 1), run in the
// emulator: no stack buffer, each core records in place in its slot of the profiling output,
// and the slots read the same as the stack mode's write-back (same header, same events).
#define ENABLE_MOE_PROFILING_GM_BUFFER 1
#include "kernel_operator.h"
#include "optrace/trace.h"
#include "optrace_emu/runtime.h"

#include <gtest/gtest.h>

#include <vector>

namespace optrace {
namespace {

namespace f = format;

constexpr uint32_t kWords = PROF_SIZE_PER_CORE;

void Kernel(GM_ADDR profiling, uint32_t fill) {
  OPTRACE_KERNEL_BEGIN_GM(profiling);
  MoeTracing(TRACE_POINT("processing", "B"));
  for (uint32_t i = 0; i < fill; ++i) MoeTracing<false>(TRACE_POINT("fill", "B"), i);
  MoeTracing(TRACE_POINT("processing", "E"), static_cast<uint32_t>(AscendC::GetBlockIdx()));
  OPTRACE_KERNEL_END(profiling);
}

Result<emu::LaunchResult> RunKernel(std::vector<int64_t>& profiling, uint32_t block_dim, uint32_t fill) {
  emu::LaunchOptions options;
  options.block_dim = block_dim;
  return emu::Launch(options, [&](int) { Kernel(reinterpret_cast<GM_ADDR>(profiling.data()), fill); });
}

TEST(AscendcGmBufferTest, EveryCoreRecordsInItsOwnSlotInPlace) {
  constexpr uint32_t kBlockDim = 2;
  std::vector<int64_t> profiling(kBlockDim * 3 * kWords, 0);
  auto run = RunKernel(profiling, kBlockDim, 0);
  ASSERT_TRUE(run.ok()) << run.status().message();
  for (uint32_t slot = 0; slot < kBlockDim * 3; ++slot) {
    const int64_t* s = &profiling[slot * kWords];
    ASSERT_EQ(f::MagicOf(static_cast<uint64_t>(s[f::kWordMagicVersion])), f::kMagic) << "slot " << slot;
    EXPECT_EQ(f::CoreKindOf(static_cast<uint64_t>(s[f::kWordCore])),
              slot < kBlockDim ? f::CoreKind::kAic : f::CoreKind::kAiv);
    EXPECT_EQ(s[f::kWordEventCount], 2);
    EXPECT_EQ(s[f::kWordClockHz], 1000000000);
  }
  for (const auto& r : run->ranks[0].records) {
    const int64_t* s = &profiling[r.slot * kWords];
    bool found = false;
    for (int64_t i = 0; i < s[f::kWordEventCount]; ++i) {
      found |= static_cast<uint64_t>(s[f::kHeaderWords + 2 * i]) == f::PackEvent(r.point_id, r.payload) &&
               static_cast<uint64_t>(s[f::kHeaderWords + 2 * i + 1]) == r.timestamp;
    }
    EXPECT_TRUE(found) << "slot " << r.slot << " point " << r.point_id;
  }
}

TEST(AscendcGmBufferTest, AFullSlotCountsDroppedAndNeverWritesPastItself) {
  std::vector<int64_t> profiling(3 * kWords, 0);
  auto run = RunKernel(profiling, 1, kSlotCapacity + 5);
  ASSERT_TRUE(run.ok()) << run.status().message();  // the emulator bounds-checks every GM access
  EXPECT_EQ(profiling[f::kWordEventCount], kSlotCapacity);
  EXPECT_EQ(profiling[f::kWordDropped], 7);
  EXPECT_EQ(f::MagicOf(static_cast<uint64_t>(profiling[kWords])), f::kMagic) << "the next slot is intact";
}

}  // namespace
}  // namespace optrace
