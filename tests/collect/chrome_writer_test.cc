// Chrome writer: a golden file (OPTRACE_UPDATE_GOLDENS=1 rewrites it) plus structural checks.
#include "collect/chrome_writer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dump_builder.h"

namespace optrace::collect {
namespace {

const std::string kGolden = std::string(OPTRACE_TEST_DATA_DIR) + "/collect/golden/chrome_small.json";

// Two ranks; rank 1 starts 1000 ticks later. A label with a quote, one unmatched E.
Collection Small() {
  Collection c;
  c.labels = {{"processing", 1, "k.cc", 10, "k.cc", 20}, {"say \"hi\"", 2, "k.cc", 11, "k.cc", 12}};
  c.series = {{0, CoreKind::kAic, 0, 50e6}, {0, CoreKind::kAiv, 1, 50e6}, {1, CoreKind::kAiv, 0, 1e9}};
  auto iv = [](int32_t rank, CoreKind kind, uint32_t core, uint32_t series, uint32_t label, int64_t b, int64_t e,
               uint32_t payload, uint32_t depth) {
    Interval i;
    i.rank = rank;
    i.kind = kind;
    i.core_index = core;
    i.series = series;
    i.label = label;
    i.begin_ticks = b;
    i.end_ticks = e;
    i.begin_payload = payload;
    i.end_payload = payload;
    i.depth = depth;
    return i;
  };
  c.intervals = {iv(0, CoreKind::kAic, 0, 0, 0, 100, 600, 0, 2), iv(0, CoreKind::kAic, 0, 0, 1, 150, 160, 3 << 8 | 1, 1),
                 iv(0, CoreKind::kAiv, 1, 1, 0, 120, 500, 7, 1), iv(1, CoreKind::kAiv, 0, 2, 0, 1100, 3100, 0, 1)};
  Instant in;
  in.rank = 0;
  in.kind = CoreKind::kAiv;
  in.core_index = 1;
  in.series = 1;
  in.label = 1;
  in.is_begin = false;
  in.ticks = 510;
  c.instants = {in};
  return c;
}

std::string Write(const Collection& c, Align align, NameStyle names = NameStyle::kLabel) {
  std::ostringstream os;
  ChromeTraceOptions opt;
  opt.align = align;
  opt.names = names;
  Status st = WriteChromeTrace(c, opt, R"({"producer":"test"})", os);
  EXPECT_TRUE(st.ok()) << st.message();
  return os.str();
}

TEST(ChromeWriter, MatchesGoldenFile) {
  std::string got = Write(Small(), Align::kRank);
  if (const char* u = std::getenv("OPTRACE_UPDATE_GOLDENS"); u && std::string(u) == "1") {
    testing::WriteBytes(kGolden, got);
  }
  EXPECT_EQ(got, testing::ReadText(kGolden)) << "rerun with OPTRACE_UPDATE_GOLDENS=1 if the change is intended";
}

TEST(ChromeWriter, OutputIsValidJsonWithNamedProcessesAndThreads) {
  nlohmann::json j = nlohmann::json::parse(Write(Small(), Align::kRank));
  int process_names = 0, thread_names = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["name"] == "process_name") ++process_names;
    if (e["name"] == "thread_name") ++thread_names;
  }
  EXPECT_EQ(process_names, 2);
  EXPECT_EQ(thread_names, 3);
  EXPECT_EQ(j["otherData"]["producer"], "test");
}

TEST(ChromeWriter, RankAlignmentStartsEachRankAtZero) {
  nlohmann::json j = nlohmann::json::parse(Write(Small(), Align::kRank));
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == 1) {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.0);
    }
  }
}

TEST(ChromeWriter, GlobalAlignmentUsesTheEarliestEventOfAllRanks) {
  nlohmann::json j = nlohmann::json::parse(Write(Small(), Align::kGlobal));
  for (const auto& e : j["traceEvents"]) {
    // rank 1 runs at 1 GHz: (1100 - 100) ticks = 1 us after the global origin.
    if (e["ph"] == "X" && e["pid"] == 1) {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.0);
    }
  }
}

TEST(ChromeWriter, LegacyNamesAreTheReferenceCollectorsExactly) {
  // SPEC 5: "<label> [extra:<low 8 bits>] #<high 24 bits>" in seq mode.
  std::string out = Write(Small(), Align::kRank, NameStyle::kLegacy);
  EXPECT_NE(out.find(R"("name":"say \"hi\" [extra:1] #3")"), std::string::npos) << out;
}

TEST(ChromeWriter, LegacyNamesInFifoModeCarryTheWholeExtraWord) {
  ChromeTraceOptions opt;
  opt.names = NameStyle::kLegacy;
  opt.fifo_names = true;
  LabelInfo l;
  l.name = "send";
  EXPECT_EQ(IntervalName(l, 3u | (5u << 8), opt.names, opt.fifo_names), "send [extra:1283]");
  EXPECT_EQ(IntervalName(l, 3u | (5u << 8), opt.names, false), "send [extra:3] #5");
}

}  // namespace
}  // namespace optrace::collect
