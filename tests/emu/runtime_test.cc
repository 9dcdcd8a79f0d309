// The AscendC emulator: core identities of a 1C2V launch, clock, SyncAll, cross-core flags,
// fault and deadlock reporting.
#include "kernel_operator.h"
#include "optrace_emu/runtime.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace optrace::emu {
namespace {

struct Seen {
  int rank;
  int32_t core_type;
  int64_t block_idx, block_num, sub_block_idx, sub_block_num, task_ration;
  bool is_aiv;
};

std::vector<Seen> RunIdentityKernel(int ranks, uint32_t block_dim) {
  std::mutex mu;
  std::vector<Seen> seen;
  LaunchOptions options;
  options.ranks = ranks;
  options.block_dim = block_dim;
  auto result = Launch(options, [&](int rank) {
    Seen s{rank, g_coreType, AscendC::GetBlockIdx(), AscendC::GetBlockNum(), AscendC::GetSubBlockIdx(),
           AscendC::GetSubBlockNum(), AscendC::GetTaskRation(), g_coreType == AscendC::AIV};
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(s);
  });
  EXPECT_TRUE(result.ok()) << result.status().message();
  return seen;
}

TEST(EmuRuntimeTest, MixedLaunchRunsBlockDimAicAndTwiceAsManyAiv) {
  const std::vector<Seen> seen = RunIdentityKernel(1, 3);
  std::set<int64_t> aic, aiv;
  for (const Seen& s : seen) {
    EXPECT_EQ(s.block_num, 3);
    EXPECT_EQ(s.sub_block_num, 2);
    if (s.core_type == AscendC::AIC) {
      EXPECT_FALSE(s.is_aiv);
      EXPECT_EQ(s.sub_block_idx, 0);
      EXPECT_EQ(s.task_ration, 1);
      aic.insert(s.block_idx);
    } else {
      ASSERT_EQ(s.core_type, AscendC::AIV);
      EXPECT_TRUE(s.is_aiv);
      EXPECT_EQ(s.sub_block_idx, s.block_idx % 2);
      EXPECT_EQ(s.task_ration, 2);
      aiv.insert(s.block_idx);
    }
  }
  EXPECT_EQ(aic, (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(aiv, (std::set<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(EmuRuntimeTest, SeedSlotMappingGivesDistinctSlotsForAllCores) {
  std::set<int64_t> slots;
  for (const Seen& s : RunIdentityKernel(1, 4)) {
    slots.insert(s.core_type == AscendC::AIC ? s.block_idx : s.block_num + s.block_idx);
  }
  EXPECT_EQ(slots.size(), 12u);  // GetBlockNum() * (1 + GetSubBlockNum())
  EXPECT_EQ(*slots.rbegin(), 11);
}

TEST(EmuRuntimeTest, SeveralRanksRunConcurrently) {
  const std::vector<Seen> seen = RunIdentityKernel(2, 2);
  EXPECT_EQ(seen.size(), 12u);
  std::set<int> ranks;
  for (const Seen& s : seen) ranks.insert(s.rank);
  EXPECT_EQ(ranks, (std::set<int>{0, 1}));
}

TEST(EmuRuntimeTest, OutsideALaunchTheCoreIsZero) {
  EXPECT_EQ(AscendC::GetBlockNum(), 0);
  EXPECT_EQ(g_coreType, 0);
}

// CANN's CPU-debug GetSystemCycleImpl returns nanoseconds of CLOCK_REALTIME, not 50 MHz ticks.
TEST(EmuRuntimeTest, SystemCycleIsRealtimeNanosecondsAsInCpuDebugMode) {
  auto ticks_now = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before = ticks_now();
  const int64_t cycle = AscendC::GetSystemCycle();
  const int64_t after = ticks_now();
  EXPECT_LE(before, cycle);
  EXPECT_LE(cycle, after);
}

TEST(EmuRuntimeTest, SyncAllWaitsForEveryCore) {
  std::vector<int32_t> arrived(6, 0);
  std::vector<int> missing_after_barrier(6, -1);
  LaunchOptions options;
  options.block_dim = 2;
  auto result = Launch(options, [&](int) {
    const auto slot = static_cast<size_t>(g_coreType == AscendC::AIC ? AscendC::GetBlockIdx() : 2 + AscendC::GetBlockIdx());
    if ASCEND_IS_AIV { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }
    __atomic_store_n(&arrived[slot], 1, __ATOMIC_RELEASE);
    AscendC::SyncAll<false>();
    int missing = 0;
    for (int32_t& a : arrived) missing += __atomic_load_n(&a, __ATOMIC_ACQUIRE) == 0;
    missing_after_barrier[slot] = missing;
  });
  ASSERT_TRUE(result.ok()) << result.status().message();
  for (int m : missing_after_barrier) EXPECT_EQ(m, 0);
}

TEST(EmuRuntimeTest, AivOnlySyncAllLeavesAicOut) {
  LaunchOptions options;
  options.block_dim = 2;
  auto result = Launch(options, [&](int) {
    if ASCEND_IS_AIV { AscendC::SyncAll(); }
  });
  EXPECT_TRUE(result.ok()) << result.status().message();
}

TEST(EmuRuntimeTest, Mode2FlagsHandOverBetweenAicAndItsAivs) {
  std::vector<int32_t> data(2, 0);  // one word per block, written by the AIC
  std::vector<int32_t> seen(4, -1);
  std::vector<int32_t> acked(2, 0);
  LaunchOptions options;
  options.block_dim = 2;
  auto result = Launch(options, [&](int) {
    if ASCEND_IS_AIC {
      const auto b = static_cast<size_t>(AscendC::GetBlockIdx());
      __atomic_store_n(&data[b], 40 + static_cast<int32_t>(b), __ATOMIC_RELEASE);
      AscendC::CrossCoreSetFlag<2, PIPE_FIX>(1);
      AscendC::CrossCoreWaitFlag(2);  // needs both AIVs
      acked[b] = 1;
    } else {
      const auto v = static_cast<size_t>(AscendC::GetBlockIdx());
      AscendC::CrossCoreWaitFlag(1);
      seen[v] = __atomic_load_n(&data[v / 2], __ATOMIC_ACQUIRE);
      AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(2);
    }
  });
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(seen, (std::vector<int32_t>{40, 40, 41, 41}));
  EXPECT_EQ(acked, (std::vector<int32_t>{1, 1}));
}

TEST(EmuRuntimeTest, AWaitWithoutASetFailsTheLaunchWithTheCoreAndFlag) {
  LaunchOptions options;
  options.block_dim = 1;
  options.timeout_seconds = 0.2;
  auto result = Launch(options, [&](int) {
    if ASCEND_IS_AIV { AscendC::CrossCoreWaitFlag(3); }
  });
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("AIV"), std::string::npos) << result.status().message();
  EXPECT_NE(result.status().message().find("CrossCoreWaitFlag(3) timed out"), std::string::npos)
      << result.status().message();
}

TEST(EmuRuntimeTest, Mode1FlagsHandOverBetweenTheTwoAivsOfABlock) {
  std::vector<int32_t> value(2, 0);
  std::vector<int32_t> seen(2, -1);
  LaunchOptions options;
  auto result = Launch(options, [&](int) {
    if ASCEND_IS_AIC { return; }
    const auto sub = static_cast<size_t>(AscendC::GetSubBlockIdx());
    if (sub == 0) {
      __atomic_store_n(&value[0], 7, __ATOMIC_RELEASE);
      AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(4);
    } else {
      AscendC::CrossCoreWaitFlag(4);
      seen[1] = __atomic_load_n(&value[0], __ATOMIC_ACQUIRE);
    }
  });
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(seen[1], 7);
}

TEST(EmuRuntimeTest, AGlobalMemoryPollThatNeverEndsIsStoppedAtTheDeadline) {
  std::vector<int32_t> flag(1, 0);
  LaunchOptions options;
  options.deadline_seconds = 0.3;
  auto result = Launch(options, [&](int) {
    AscendC::GlobalTensor<int32_t> t;
    t.SetGlobalBuffer(flag.data(), 1);
    if ASCEND_IS_AIV {
      while (t.GetValue(0) == 0) {
      }
    }
  });
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("still polling global memory at the launch deadline"),
            std::string::npos)
      << result.status().message();
}

TEST(EmuRuntimeTest, AFailureOnOneRankStopsTheOthersQuickly) {
  std::vector<int32_t> flag(1, 0);
  std::vector<int32_t> small(1, 0);
  LaunchOptions options;
  options.ranks = 2;
  const auto start = std::chrono::steady_clock::now();
  auto result = Launch(options, [&](int rank) {
    AscendC::GlobalTensor<int32_t> t;
    t.SetGlobalBuffer(rank == 0 ? small.data() : flag.data(), 1);
    if (rank == 0 && g_coreType == AscendC::AIC) t.SetValue(5, 1);  // faults
    if (rank == 1) {
      while (t.GetValue(0) == 0) {  // would wait for rank 0 forever
      }
    }
  });
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("rank 0 AIC 0"), std::string::npos) << result.status().message();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
}

TEST(EmuRuntimeTest, OutOfRangeGlobalTensorAccessFailsTheLaunch) {
  std::vector<int32_t> buffer(4, 0);
  LaunchOptions options;
  auto result = Launch(options, [&](int) {
    AscendC::GlobalTensor<int32_t> t;
    t.SetGlobalBuffer(buffer.data(), buffer.size());
    if ASCEND_IS_AIC { t.SetValue(4, 1); }
  });
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("GlobalTensor::SetValue at offset 4 outside the buffer of 4"),
            std::string::npos)
      << result.status().message();
  EXPECT_EQ(buffer, (std::vector<int32_t>{0, 0, 0, 0}));
}

TEST(EmuRuntimeTest, SubTensorsKeepTheirBounds) {
  std::vector<float> buffer(8, 0.0f);
  AscendC::GlobalTensor<float> t;
  t.SetGlobalBuffer(buffer.data(), buffer.size());
  AscendC::GlobalTensor<float> tail = t[6];
  EXPECT_EQ(tail.GetSize(), 2u);
  tail.SetValue(1, 2.5f);
  EXPECT_EQ(buffer[7], 2.5f);
  EXPECT_EQ(t.GetValue(7), 2.5f);
}

TEST(EmuRuntimeTest, BadLaunchOptionsAreRejected) {
  LaunchOptions options;
  options.block_dim = 0;
  auto result = Launch(options, [](int) {});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("block_dim 0"), std::string::npos);
}

}  // namespace
}  // namespace optrace::emu
