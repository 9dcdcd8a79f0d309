#include "analyze/report/step_inspector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analyze/efficiency/efficiency.h"
#include "analyze/report/report_fixture.h"

namespace optrace::analyze::report {
namespace {

using Json = nlohmann::json;

// The page's decoding of a step's event string (step_inspector.h): one array per event, the
// pipeline pairs as a 13th element.
Json Events(const Json& step) {
  Json out = Json::array();
  const std::string text = step["ev"].get<std::string>();
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(';', at);
    if (end == std::string::npos) end = text.size();
    Json row = Json::array(), pipe = Json::array();
    size_t f = at;
    while (f <= end) {
      size_t comma = text.find(',', f);
      if (comma == std::string::npos || comma > end) comma = end;
      double v = std::stod(text.substr(f, comma - f));
      Json num = v == std::floor(v) && std::fabs(v) < 1e15 ? Json(int64_t(v)) : Json(v);
      (row.size() < 12 ? row : pipe).push_back(num);
      f = comma + 1;
    }
    if (!pipe.empty()) row.push_back(pipe);
    out.push_back(row);
    at = end + 1;
  }
  return out;
}

using analyze::testing::MakeReportFixture;

// The fixture's steps of `rank`, in time order.
std::vector<const Step*> StepsOf(const AnalysisResult& r, int rank) {
  std::vector<const Step*> out;
  for (const Step& s : r.steps)
    if (s.rank == rank) out.push_back(&s);
  return out;
}

// Idle gaps of a step at or above the threshold, written out here (not through segment.h), as
// [start us from the step start, duration us].
std::vector<std::pair<double, double>> ExpectedBubbles(const RankTable& t, const Step& s, const Thresholds& th) {
  const double min_ns = std::max(th.bubble_gap_min_us * 1e3, th.bubble_gap_min_wall_share * s.anatomy.wall_ns);
  std::vector<std::pair<double, double>> out;
  int64_t end = -1;
  for (uint32_t i = s.events.first; i < s.events.last; ++i) {
    const Event& e = t.events[i];
    if (end >= 0 && e.start_ns > end && double(e.start_ns - end) >= min_ns)
      out.push_back({(end - s.start_ns) / 1e3, (e.start_ns - end) / 1e3});
    end = std::max(end, e.end_ns());
  }
  return out;
}

size_t EmbeddedSteps(const Json& insp) {
  size_t n = 0;
  for (const Json& rank : insp["ranks"])
    for (const Json& s : rank["steps"]) n += s["embedded"].get<bool>() ? 1 : 0;
  return n;
}

TEST(StepInspectorTest, EmbeddedEventsEqualTheStepsEvents) {
  AnalysisResult r = MakeReportFixture();
  Json insp = BuildStepInspector(r, nullptr, Thresholds{});
  ASSERT_EQ(insp["ranks"].size(), 2u);
  EXPECT_EQ(insp["total_events"], 24);
  EXPECT_EQ(insp["embedded_events"], 24);
  const Json& names = insp["strings"]["names"];
  for (size_t k = 0; k < 2; ++k) {
    const RankTable& t = r.ranks[k];
    const Json& rank = insp["ranks"][k];
    EXPECT_EQ(rank["rank"], t.rank);
    std::vector<const Step*> steps = StepsOf(r, t.rank);
    ASSERT_EQ(rank["steps"].size(), steps.size());
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& s = *steps[i];
      const Json& js = rank["steps"][i];
      EXPECT_EQ(js["step"], s.step_id);
      EXPECT_TRUE(js["embedded"].get<bool>());
      EXPECT_DOUBLE_EQ(js["wall_us"].get<double>(), (s.end_ns - s.start_ns) / 1e3);
      const Json evs = Events(js);
      ASSERT_EQ(evs.size(), s.events.size());
      for (uint32_t e = 0; e < s.events.size(); ++e) {
        const Event& want = t.events[s.events.first + e];
        const Json& got = evs[e];
        EXPECT_DOUBLE_EQ(got[0].get<double>(), (want.start_ns - s.start_ns) / 1e3);
        EXPECT_DOUBLE_EQ(got[1].get<double>(), want.dur_ns / 1e3);
        EXPECT_EQ(got[2], want.stream_id);
        EXPECT_EQ(names[got[4].get<int>()], r.Str(want.name));
        EXPECT_EQ(insp["strings"]["types"][got[5].get<int>()], r.Str(want.type));
        EXPECT_EQ(insp["strings"]["shapes"][got[6].get<int>()], r.Str(want.input_shapes));
        EXPECT_EQ(insp["strings"]["op_types"][got[9].get<int>()], OpTypeName(want.op_type));
        EXPECT_EQ(got[10], -1);  // no efficiency: nothing modelled
      }
    }
  }
  EXPECT_TRUE(insp["costs"].empty());
  EXPECT_TRUE(insp["peaks"].is_null());
}

TEST(StepInspectorTest, BubblesAreTheIdleGapsAtOrAboveTheThreshold) {
  AnalysisResult r = MakeReportFixture();
  for (double min_us : {500.0, 150.0}) {
    Thresholds th;
    th.bubble_gap_min_us = min_us;
    Json insp = BuildStepInspector(r, nullptr, th);
    size_t bubbles = 0;
    for (size_t k = 0; k < 2; ++k) {
      std::vector<const Step*> steps = StepsOf(r, r.ranks[k].rank);
      for (size_t i = 0; i < steps.size(); ++i) {
        auto want = ExpectedBubbles(r.ranks[k], *steps[i], th);
        const Json& got = insp["ranks"][k]["steps"][i]["bubbles"];
        ASSERT_EQ(got.size(), want.size()) << "rank " << k << " step " << i << " min " << min_us;
        for (size_t b = 0; b < want.size(); ++b) {
          EXPECT_DOUBLE_EQ(got[b][0].get<double>(), want[b].first);
          EXPECT_DOUBLE_EQ(got[b][1].get<double>(), want[b].second);
        }
        bubbles += got.size();
      }
    }
    if (min_us == 500.0) {
      // Rank 0: the 0.6 ms gap after the MatMul in each step; rank 1 has none.
      EXPECT_EQ(bubbles, 3u);
      const Json& b = insp["ranks"][0]["steps"][0]["bubbles"][0];
      EXPECT_NEAR(b[0].get<double>(), 3000.0, 0.01);
      EXPECT_NEAR(b[1].get<double>(), 600.0, 0.01);
      EXPECT_TRUE(insp["ranks"][1]["steps"][0]["bubbles"].empty());
    } else {
      // Plus the 0.2 ms gap before the allreduce, on both ranks.
      EXPECT_EQ(bubbles, 9u);
    }
  }
}

TEST(StepInspectorTest, CapKeepsTheSlowestStepOfEachRankAndListsTheRest) {
  AnalysisResult r = MakeReportFixture();
  // Distinct walls: the slowest are rank 0 step 2 and rank 1 step 3, the medians rank 0 step 1
  // and rank 1 step 2.
  r.steps[1].end_ns += 1000;
  r.steps[0].end_ns += 500;
  r.steps[5].end_ns += 1000;
  r.steps[4].end_ns += 500;
  Json insp = BuildStepInspector(r, nullptr, Thresholds{}, /*max_events=*/9);
  EXPECT_EQ(insp["max_events"], 9);
  EXPECT_EQ(insp["embedded_events"], 8);  // a third 4-event step would pass the cap
  EXPECT_EQ(insp["total_events"], 24);
  ASSERT_EQ(EmbeddedSteps(insp), 2u);
  for (size_t k = 0; k < 2; ++k) {
    const Json& steps = insp["ranks"][k]["steps"];
    ASSERT_EQ(steps.size(), 3u);  // every step is listed, embedded or not
    for (size_t i = 0; i < 3; ++i) {
      bool slowest = (k == 0 && i == 1) || (k == 1 && i == 2);
      EXPECT_EQ(steps[i]["embedded"].get<bool>(), slowest) << k << " " << i;
      EXPECT_EQ(steps[i].contains("ev"), slowest);
      EXPECT_EQ(steps[i]["events"], 4);
      if (slowest) {
        EXPECT_EQ(steps[i]["pick"], "slowest");
      }
    }
  }

  // Room for four steps: the medians follow the slowest ones.
  insp = BuildStepInspector(r, nullptr, Thresholds{}, 16);
  EXPECT_EQ(insp["embedded_events"], 16);
  EXPECT_EQ(insp["ranks"][0]["steps"][0]["pick"], "median");
  EXPECT_EQ(insp["ranks"][1]["steps"][1]["pick"], "median");
  EXPECT_FALSE(insp["ranks"][0]["steps"][2]["embedded"].get<bool>());
  EXPECT_FALSE(insp["ranks"][1]["steps"][0]["embedded"].get<bool>());

  insp = BuildStepInspector(r, nullptr, Thresholds{}, 0);
  EXPECT_EQ(insp["embedded_events"], 0);
  EXPECT_EQ(EmbeddedSteps(insp), 0u);
  EXPECT_EQ(insp["ranks"][0]["steps"].size(), 3u);

  // The sum of what is embedded never passes the cap, whatever the cap.
  for (size_t cap = 0; cap <= 26; ++cap) {
    insp = BuildStepInspector(r, nullptr, Thresholds{}, cap);
    size_t sum = 0;
    for (const Json& rank : insp["ranks"])
      for (const Json& s : rank["steps"])
        if (s["embedded"].get<bool>()) sum += Events(s).size();
    EXPECT_EQ(sum, insp["embedded_events"].get<size_t>());
    EXPECT_LE(sum, cap);
    // Whole steps of 4 events while they fit; a rank left without any gets the rest, truncated.
    if (cap >= 8) {
      EXPECT_EQ(sum, std::min<size_t>(cap / 4 * 4, 24));
    }
  }
}

TEST(StepInspectorTest, ARankWhoseStepsAllExceedTheCapShowsTheFirstEventsOfItsSlowest) {
  AnalysisResult r = MakeReportFixture();
  Json insp = BuildStepInspector(r, nullptr, Thresholds{}, 6);  // steps of 4 events, 2 ranks
  EXPECT_EQ(insp["embedded_events"], 6);
  const Json& rank1 = insp["ranks"][1];
  // Rank 0 took its whole slowest step; rank 1 the first 2 events of its own slowest.
  const Json& s = rank1["steps"][2];
  EXPECT_TRUE(s["embedded"].get<bool>());
  EXPECT_TRUE(s["truncated"].get<bool>());
  EXPECT_EQ(s["embedded_events"], 2);
  EXPECT_EQ(s["pick"], "slowest, truncated");
  EXPECT_EQ(Events(s).size(), 2u);
  EXPECT_EQ(s["events"], 4);
}

TEST(StepInspectorTest, LanesSplitComputeCommunicationAndAicpu) {
  AnalysisResult r = MakeReportFixture();
  const Step& s = r.steps[0];
  r.ranks[0].events[s.events.first + 1].op_type = OpType::kMixCommAiv;  // the Add, fused with a collective
  Json insp = BuildStepInspector(r, nullptr, Thresholds{});
  EXPECT_EQ(insp["lanes"], Json({"compute", "communication", "aicpu"}));
  const Json ev = Events(insp["ranks"][0]["steps"][0]);
  ASSERT_EQ(ev.size(), 4u);
  auto lane = [&](size_t i) { return insp["lanes"][ev[i][3].get<int>()].get<std::string>(); };
  EXPECT_EQ(lane(0), "compute");        // MatMul, aic
  EXPECT_EQ(lane(1), "communication");  // mix_comm_aiv
  EXPECT_EQ(lane(2), "aicpu");          // IndexPut_AiCpu
  EXPECT_EQ(lane(3), "communication");  // allreduce
  EXPECT_EQ(Events(insp["ranks"][0]["steps"][1])[1][3], 0);  // the Add of step 2 is still aiv: compute
}

TEST(StepInspectorTest, PipelineSplitAndBoundPerEvent) {
  AnalysisResult r = MakeReportFixture();
  Json insp = BuildStepInspector(r, nullptr, Thresholds{});
  const Json ev = Events(insp["ranks"][0]["steps"][0]);
  const Json& fields = insp["pipe_fields"];
  ASSERT_EQ(fields.size(), kPipeSumFields.size());
  const Json& mm = ev[0];
  ASSERT_EQ(mm.size(), 13u);  // the MatMul has pipeline data
  const double dur = mm[1].get<double>();
  std::map<std::string, double> split;  // (field index, us) pairs, present fields only
  ASSERT_EQ(mm[12].size(), 6u);
  for (size_t f = 0; f + 1 < mm[12].size(); f += 2) split[fields[mm[12][f].get<int>()]] = mm[12][f + 1];
  ASSERT_EQ(split.size(), 3u);
  EXPECT_NEAR(split["aicore_time"], dur * 0.9, 1e-3);
  EXPECT_NEAR(split["aic_mac_time"], dur * 0.6, 1e-3);
  EXPECT_NEAR(split["aic_mte2_time"], dur * 0.3, 1e-3);
  const Json& bounds = insp["strings"]["bounds"];
  EXPECT_EQ(bounds[mm[11].get<int>()], "cube");
  EXPECT_EQ(ev[1].size(), 12u);  // no pipeline data: no split
  EXPECT_EQ(bounds[ev[1][11].get<int>()], "unknown");
  EXPECT_EQ(bounds[ev[2][11].get<int>()], "aicpu");
  EXPECT_EQ(bounds[ev[3][11].get<int>()], "communication");
}

TEST(StepInspectorTest, CostsAndPeaksComeFromTheEfficiency) {
  AnalysisResult r = MakeReportFixture();
  Efficiency eff;
  OpCost c;
  c.modelled = true;
  c.family = "matmul";
  c.compute_dtype = "bf16";
  c.flops = 2.0 * 8192 * 4096 * 4096;
  c.bytes = 2.0 * (8192 * 4096 + 4096 * 4096 + 8192 * 4096);
  c.dims = "B=1 M=8192 N=4096 K=4096";
  eff.costs.push_back(c);
  const Event& mm = r.ranks[0].events[0];
  eff.cost_index[{mm.type, mm.input_shapes, mm.output_shapes, mm.input_dtypes}] = 0;

  Json insp = BuildStepInspector(r, &eff, Thresholds{});
  ASSERT_EQ(insp["costs"].size(), 1u);  // one entry per distinct cost, however many calls
  const Json& jc = insp["costs"][0];
  EXPECT_EQ(jc["family"], "matmul");
  EXPECT_EQ(jc["dtype"], "bf16");
  EXPECT_EQ(jc["peak_key"], "bf16");
  EXPECT_DOUBLE_EQ(jc["flops"].get<double>(), c.flops);
  EXPECT_DOUBLE_EQ(jc["intensity"].get<double>(), c.flops / c.bytes);
  EXPECT_EQ(jc["dims"], c.dims);
  for (const Json& rank : insp["ranks"])
    for (const Json& step : rank["steps"])
      for (const Json& e : Events(step))
        EXPECT_EQ(e[10], insp["strings"]["types"][e[5].get<int>()] == "MatMulV2" ? 0 : -1);
  EXPECT_TRUE(insp["peaks"].is_null());  // no hardware: FLOPs and bytes only

  HardwarePeaks hw;
  hw.name = "TestNPU";
  hw.cube_bf16_tflops = 300;
  hw.hbm_bandwidth_gbps = 1600;
  eff.hardware = hw;
  insp = BuildStepInspector(r, &eff, Thresholds{});
  EXPECT_EQ(insp["peaks"]["hardware"], "TestNPU");
  EXPECT_EQ(insp["peaks"]["tflops"], Json({{"bf16", 300.0}}));
  EXPECT_EQ(insp["peaks"]["hbm_bandwidth_gbps"], 1600.0);
}

TEST(StepInspectorTest, StreamedTextIsTheCompactDumpOfItsValue) {
  // What report.html streams must be, byte for byte, what the page's serializer wrote for the
  // held inspector: keys in the object's order, no spaces, invalid UTF-8 replaced. Costs, peaks,
  // a truncated step, a name with a stray byte and '<' (escaped later, by the page).
  AnalysisResult r = MakeReportFixture();
  r.ranks[0].events[1].name = r.strings.Intern(std::string("bad\xff</script>name"));
  Efficiency eff;
  OpCost c;
  c.modelled = true;
  c.family = "matmul";
  c.compute_dtype = "bf16";
  c.flops = 1e12 / 3;
  c.bytes = 12345.5;
  eff.costs.push_back(c);
  const Event& mm = r.ranks[0].events[0];
  eff.cost_index[{mm.type, mm.input_shapes, mm.output_shapes, mm.input_dtypes}] = 0;
  HardwarePeaks hw;
  hw.name = "TestNPU";
  hw.cube_bf16_tflops = 300;
  eff.hardware = hw;
  for (size_t cap : {size_t{0}, size_t{5}, kInspectorMaxEventsFast}) {
    std::string text;
    size_t pieces = 0;
    WriteStepInspector(r, &eff, Thresholds{}, cap, [&](std::string_view piece) {
      text += piece;
      ++pieces;
    });
    const Json value = Json::parse(text);
    EXPECT_EQ(value.dump(-1, ' ', false, Json::error_handler_t::replace), text) << cap;
    EXPECT_GT(pieces, 10u);  // written as it is made, not as one string
    EXPECT_EQ(value["costs"].size(), cap ? 1u : 0u) << cap;
  }
}

TEST(StepInspectorTest, RanksWithoutADeviceTimelineAreLeftOut) {
  AnalysisResult r = MakeReportFixture();
  r.ranks[1].event_source = "communication.json";
  Json insp = BuildStepInspector(r, nullptr, Thresholds{});
  ASSERT_EQ(insp["ranks"].size(), 1u);
  EXPECT_EQ(insp["ranks"][0]["rank"], 0);
  EXPECT_EQ(insp["total_events"], 12);
}

}  // namespace
}  // namespace optrace::analyze::report
