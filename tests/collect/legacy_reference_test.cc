// optrace's intervals on legacy dumps equal the reference collector's (SPEC section 5): the
// Python reference (bench/legacy/reference_collector.py) and optrace run on the same generated
// .pt files (with noise: orphaned B/E and unmapped ids) for both extra modes and a --depth case.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "collect/collector.h"
#include "dump_builder.h"

namespace optrace::collect {
namespace {

namespace fs = std::filesystem;
using Key = std::tuple<int, std::string, uint32_t, std::string, int64_t, int64_t, uint32_t>;

const std::string kLegacyDir = testing::LegacyBenchDir();

class LegacyReference : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::string(OPTRACE_PYTHON3).empty()) return;
    // Per process: ctest runs each test of this suite in its own process, in parallel.
    dir_ = testing::SuiteDir("legacy_reference");
    std::string cmd = std::string(OPTRACE_PYTHON3) + " " + kLegacyDir + "generate_legacy_set.py --out " +
                      dir_.string() + " --ranks 2 --aic 2 --aiv 3 --records 80 --noise 0.06 --seed 7 > /dev/null";
    generated_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  void SetUp() override {
    if (std::string(OPTRACE_PYTHON3).empty()) GTEST_SKIP() << "no python3 with numpy";
    ASSERT_TRUE(generated_) << "generate_legacy_set.py failed";
  }

  // Reference intervals and counts for a mode and depth.
  nlohmann::json Reference(const std::string& mode, int depth) {
    fs::path out = dir_ / ("ref_" + mode + std::to_string(depth) + ".json");
    std::string cmd = std::string(OPTRACE_PYTHON3) + " " + kLegacyDir + "reference_collector.py " + dir_.string() +
                      " --point-map " + (dir_ / "point_map.json").string() + " -o " + (dir_ / "ref_trace.json").string() +
                      " --extra-mode " + mode + " --depth " + std::to_string(depth) + " --intervals-json " +
                      out.string() + " 2> /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return nlohmann::json::parse(testing::ReadText(out));
  }

  void ExpectSameIntervals(PairMode mode, const std::string& mode_name, uint32_t depth) {
    nlohmann::json ref = Reference(mode_name, static_cast<int>(depth));
    std::multiset<Key> want;
    for (const auto& iv : ref["intervals"]) {
      want.emplace(iv[0].get<int>(), iv[1].get<std::string>(), iv[2].get<uint32_t>(), iv[3].get<std::string>(),
                   iv[4].get<int64_t>(), iv[5].get<int64_t>(), iv[6].get<uint32_t>());
    }
    Result<PointMap> map = LoadPointMap(dir_ / "point_map.json");
    ASSERT_TRUE(map.ok()) << map.status().message();
    CollectOptions o;
    o.inputs = {dir_.string()};
    o.map = &*map;
    o.mode = mode;
    o.depth = depth;
    Result<CollectResult> r = Collect(o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::multiset<Key> got;
    const Collection& c = r->collection;
    for (const Interval& iv : c.intervals) {
      got.emplace(iv.rank, CoreKindName(iv.kind), iv.core_index, c.labels[iv.label].name, iv.begin_ticks,
                  iv.end_ticks, iv.begin_payload);
    }
    EXPECT_GT(want.size(), 100u);
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want) << "optrace and the reference disagree on the intervals";
    EXPECT_EQ(r->skipped_no_mapping, ref["stats"]["skipped_no_mapping"].get<uint64_t>());
    EXPECT_EQ(r->ids_in_dumps, ref["stats"]["ids_in_dumps"].get<size_t>());
    EXPECT_EQ(r->ids_in_both, ref["stats"]["ids_in_both"].get<size_t>());
    EXPECT_GT(r->skipped_no_mapping, 0u);  // the noise made some, so the counts were exercised
  }

  static inline fs::path dir_;
  static inline bool generated_ = false;
};

TEST_F(LegacyReference, SeqModeGivesTheReferenceIntervals) { ExpectSameIntervals(PairMode::kSeq, "seq", 0); }

TEST_F(LegacyReference, FifoModeGivesTheReferenceIntervals) { ExpectSameIntervals(PairMode::kFifo, "legacy", 0); }

TEST_F(LegacyReference, DepthLimitGivesTheReferenceIntervals) { ExpectSameIntervals(PairMode::kSeq, "seq", 2); }

TEST_F(LegacyReference, DepthOneInFifoModeGivesTheReferenceIntervals) {
  ExpectSameIntervals(PairMode::kFifo, "legacy", 1);
}

}  // namespace
}  // namespace optrace::collect
