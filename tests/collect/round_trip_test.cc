// The round trip: the example operator runs in the emulator, its raw rank buffers go through
// the collector, and every B/E pair the kernel recorded (the emulator's ground truth, taken at
// each MoeTracing call) comes back as an interval with the same label, core, index and ticks.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "collect/collector.h"
#include "dump_builder.h"
#include "moe_dispatch_combine/runner/moe_runner.h"
#include "source/scan/scanner.h"

namespace optrace::collect {
namespace {

namespace fs = std::filesystem;
// rank, kind, core, label, begin, end, payload
using Key = std::tuple<int, int, uint32_t, std::string, int64_t, int64_t, uint32_t>;

TEST(RoundTrip, EveryRecordedPairComesBackAsAnInterval) {
  examples::MoeRunOptions opt;
  opt.ranks = 2;
  Result<examples::MoeRunResult> run = examples::RunMoeExample(opt);
  ASSERT_TRUE(run.ok()) << run.status().message();
  Result<source::ScanResult> scan = source::ScanSourceTexts(examples::MoeExampleSources(), "/example");
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  const PointMap& map = scan->map;

  // Ground truth: pair the recorded events per core, an E closing the most recent open B of its label.
  std::multiset<Key> want;
  std::map<std::tuple<int, int, uint32_t>, std::vector<const examples::RecordedEvent*>> open;
  for (const examples::RecordedEvent& e : run->recorded) {
    const PointInfo* p = map.Find(e.point_id);
    ASSERT_NE(p, nullptr) << "recorded point " << e.point_id << " is not in the scanned map";
    auto& stack = open[{e.rank, static_cast<int>(e.kind), e.core_index}];
    if (p->event_type == 'B') {
      stack.push_back(&e);
      continue;
    }
    auto it = std::find_if(stack.rbegin(), stack.rend(),
                           [&](const examples::RecordedEvent* b) { return map.Find(b->point_id)->label == p->label; });
    ASSERT_NE(it, stack.rend()) << "the example recorded an E without its B: " << p->label;
    const examples::RecordedEvent* b = *it;
    stack.erase(std::next(it).base());
    want.emplace(e.rank, static_cast<int>(e.kind), e.core_index, p->label, static_cast<int64_t>(b->timestamp),
                 static_cast<int64_t>(e.timestamp), b->payload);
  }
  ASSERT_GT(want.size(), 50u);

  const fs::path dir = testing::FreshDir();
  for (size_t r = 0; r < run->rank_buffers.size(); ++r) {
    const auto& buf = run->rank_buffers[r];
    testing::WriteBytes(dir / ("rank" + std::to_string(r) + ".bin"),
                        std::string_view(reinterpret_cast<const char*>(buf.data()), buf.size() * 8));
  }
  CollectOptions o;
  o.inputs = {dir.string()};
  o.map = &map;
  Result<CollectResult> got = Collect(o);
  ASSERT_TRUE(got.ok()) << got.status().message();
  std::multiset<Key> have;
  const Collection& c = got->collection;
  for (const Interval& iv : c.intervals) {
    have.emplace(iv.rank, static_cast<int>(iv.kind), iv.core_index, c.labels[iv.label].name, iv.begin_ticks,
                 iv.end_ticks, iv.begin_payload);
  }
  EXPECT_EQ(have.size(), want.size());
  std::vector<Key> missing;
  std::set_difference(want.begin(), want.end(), have.begin(), have.end(), std::back_inserter(missing));
  EXPECT_TRUE(missing.empty()) << missing.size() << " recorded pairs did not come back, e.g. "
                               << (missing.empty() ? "" : std::get<3>(missing[0]));
  EXPECT_TRUE(c.instants.empty());
  EXPECT_EQ(got->skipped_no_mapping, 0u);
  std::set<int> ranks;
  for (const SeriesInfo& s : c.series) ranks.insert(s.rank);
  EXPECT_EQ(ranks, (std::set<int>{0, 1}));
}

}  // namespace
}  // namespace optrace::collect
