// The moe_dispatch_combine example in the emulator: buffers, ground truth, label coverage.
#include "moe_dispatch_combine/runner/moe_runner.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "optrace/format.h"
#include "optrace/point_id.h"

namespace optrace::examples {
namespace {

namespace f = optrace::format;

const MoeRunResult& DefaultRun() {
  static const MoeRunResult* run = [] {
    auto r = RunMoeExample({});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return new MoeRunResult(r.ok() ? std::move(r).value() : MoeRunResult{});
  }();
  return *run;
}

TEST(MoeRunnerTest, ProducesOneBufferPerRankWithThreeSlotsPerBlock) {
  const MoeRunResult& run = DefaultRun();
  ASSERT_EQ(run.rank_buffers.size(), 2u);
  for (const auto& buffer : run.rank_buffers) EXPECT_EQ(buffer.size(), 4u * 3u * 2048u);
}

TEST(MoeRunnerTest, EverySlotHasAValidHeaderForItsCore) {
  const MoeRunResult& run = DefaultRun();
  for (const auto& buffer : run.rank_buffers) {
    for (uint32_t slot = 0; slot < 12; ++slot) {
      const int64_t* s = &buffer[slot * 2048u];
      const auto w0 = static_cast<uint64_t>(s[f::kWordMagicVersion]);
      const auto w1 = static_cast<uint64_t>(s[f::kWordCore]);
      ASSERT_EQ(f::MagicOf(w0), f::kMagic) << "slot " << slot;
      EXPECT_EQ(f::VersionOf(w0), f::kVersion);
      EXPECT_EQ(s[f::kWordClockHz], 1000000000);  // CPU-debug GetSystemCycle(): ns
      EXPECT_EQ(f::CapacityOf(static_cast<uint64_t>(s[f::kWordCapacity])), 1020u);
      EXPECT_EQ(s[f::kWordDropped], 0);
      if (slot < 4) {
        EXPECT_EQ(f::CoreKindOf(w1), f::CoreKind::kAic);
        EXPECT_EQ(f::CoreIndexOf(w1), slot);
      } else {
        EXPECT_EQ(f::CoreKindOf(w1), f::CoreKind::kAiv);
        EXPECT_EQ(f::CoreIndexOf(w1), slot - 4);
        EXPECT_EQ(f::SubBlockOf(w1), (slot - 4) % 2);
      }
    }
  }
}

TEST(MoeRunnerTest, RecordedEventsMatchTheBuffersWordForWord) {
  const MoeRunResult& run = DefaultRun();
  std::map<std::tuple<int, uint32_t>, std::vector<const RecordedEvent*>> by_slot;
  for (const RecordedEvent& e : run.recorded) by_slot[{e.rank, e.slot}].push_back(&e);
  ASSERT_EQ(by_slot.size(), 24u);
  for (const auto& [key, events] : by_slot) {
    const int64_t* s = &run.rank_buffers[static_cast<size_t>(std::get<0>(key))][std::get<1>(key) * 2048u];
    ASSERT_EQ(static_cast<size_t>(s[f::kWordEventCount]), events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      const auto word = static_cast<uint64_t>(s[f::kHeaderWords + 2 * i]);
      EXPECT_EQ(f::PointIdOf(word), events[i]->point_id);
      EXPECT_EQ(f::PayloadOf(word), events[i]->payload);
      EXPECT_EQ(static_cast<uint64_t>(s[f::kHeaderWords + 2 * i + 1]), events[i]->timestamp);
    }
  }
}

}  // namespace
}  // namespace optrace::examples
