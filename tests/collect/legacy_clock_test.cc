// Legacy dumps written in CANN's CPU-debug mode: GetSystemCycle() there is CLOCK_REALTIME
// nanoseconds, so a 50 MHz reading would make every duration 20x too long. collect reads such
// dumps at 1 GHz unless --clock-mhz is given.
#include <gtest/gtest.h>

#include <cstdlib>

#include "collect/collector.h"
#include "dump_builder.h"

namespace optrace::collect {
namespace {
namespace fs = std::filesystem;

// rank0.pt: one AIV row, "gemm" B at t0 and E at t0 + 2000 ticks, and its point map.
fs::path WriteDump(int64_t t0) {
  fs::path dir = testing::FreshDir("cpu_debug_clock");
  std::string script =
      "import sys, numpy as np\n"
      "sys.path.insert(0, '" + std::string(OPTRACE_SOURCE_DIR) + "/bench/legacy')\n"
      "import legacy_pt\n"
      "t0 = " + std::to_string(t0) + "\n"
      "row = np.zeros(16, dtype=np.int64)\n"
      "row[0] = 3; row[1] = 1; row[2] = 2; row[-1] = t0; row[-2] = t0 + 1000; row[-3] = t0 + 3000\n"
      "legacy_pt.write_pt(sys.argv[1], [row.reshape(1, 16)])\n";
  testing::WriteBytes(dir / "make.py", script);
  testing::WriteBytes(dir / "point_map.json",
                      R"({"points": {"1": {"label": "gemm", "event_type": "B", "file": "k.cpp", "line": 3, "event_id": 1},)"
                      R"( "2": {"label": "gemm", "event_type": "E", "file": "k.cpp", "line": 4, "event_id": 2}}})");
  std::string cmd = std::string(OPTRACE_PYTHON3) + " " + (dir / "make.py").string() + " " + (dir / "rank0.pt").string();
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

Result<CollectResult> CollectDir(const fs::path& dir, bool explicit_clock, const PointMap& map) {
  CollectOptions o;
  o.inputs = {(dir / "rank0.pt").string()};
  o.map = &map;
  o.legacy_clock_explicit = explicit_clock;
  return Collect(o);
}

double OnlyDurationUs(const CollectResult& r) {
  EXPECT_EQ(r.collection.intervals.size(), 1u);
  const Interval& iv = r.collection.intervals.at(0);
  return static_cast<double>(iv.end_ticks - iv.begin_ticks) / r.collection.series.at(iv.series).clock_hz * 1e6;
}

class LegacyClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(OPTRACE_PYTHON3).empty()) GTEST_SKIP() << "no python3 with numpy";
  }
};

TEST_F(LegacyClockTest, EpochNanosecondTimestampsAreReadAtOneGigahertz) {
  fs::path dir = WriteDump(1'764'600'000'000'000'000);  // 2025-12-01 in ns since 1970
  Result<PointMap> map = LoadPointMap(dir / "point_map.json");
  ASSERT_TRUE(map.ok()) << map.status().message();
  Result<CollectResult> r = CollectDir(dir, false, *map);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(OnlyDurationUs(*r), 2.0);  // 2000 ns, not 40 us
  EXPECT_EQ(r->diagnostics.Count(Problem::kCpuDebugClock), 1u);
}

TEST_F(LegacyClockTest, AGivenClockIsKept) {
  fs::path dir = WriteDump(1'764'600'000'000'000'000);
  Result<PointMap> map = LoadPointMap(dir / "point_map.json");
  ASSERT_TRUE(map.ok());
  Result<CollectResult> r = CollectDir(dir, true, *map);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(OnlyDurationUs(*r), 40.0);  // --clock-mhz 50 as asked
  EXPECT_EQ(r->diagnostics.Count(Problem::kCpuDebugClock), 0u);
}

TEST_F(LegacyClockTest, DeviceCounterTimestampsStayAtFiftyMegahertz) {
  fs::path dir = WriteDump(123'456'789'000);  // 41 minutes of a 50 MHz counter
  Result<PointMap> map = LoadPointMap(dir / "point_map.json");
  ASSERT_TRUE(map.ok());
  Result<CollectResult> r = CollectDir(dir, false, *map);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(OnlyDurationUs(*r), 40.0);
  EXPECT_EQ(r->diagnostics.Count(Problem::kCpuDebugClock), 0u);
}

}  // namespace
}  // namespace optrace::collect
