#include "explain/explain.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "testing/binary_runner.h"

namespace optrace::explain {
namespace {

using collect::CoreKind;

PhaseRules Builtin() {
  auto r = LoadPhaseRules("");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return std::move(r).value();
}

// A fused MoE kernel on two ranks (times in us, rank-relative):
//   AIC 0     moe [0,100): gmm1 [10,60), gmm2 [60,90)
//   AIV 0     dispatch [0,100): send_tokens [0,30), wait_send [30,40)         -> vector_send
//   AIV 1-3   combine [0,100): wait_recv [0,80), unpack_copy [80,100)           -> vector_recv
// except rank 1's AIV 3: combine [0,200): wait_recv [0,180), unpack_copy [180,200) (the straggler).
SpanSet Fused() {
  SpanSet s;
  s.source = "test";
  auto add = [&](int rank, CoreKind kind, uint32_t core, const char* label, double b, double e) {
    s.spans.push_back({rank, kind, core, label, b, e, -1});
  };
  for (int r = 0; r < 2; ++r) {
    add(r, CoreKind::kAic, 0, "moe", 0, 100);
    add(r, CoreKind::kAic, 0, "gmm1", 10, 60);
    add(r, CoreKind::kAic, 0, "gmm2", 60, 90);
    add(r, CoreKind::kAiv, 0, "dispatch", 0, 100);
    add(r, CoreKind::kAiv, 0, "send_tokens", 0, 30);
    add(r, CoreKind::kAiv, 0, "wait_send", 30, 40);
    for (uint32_t c = 1; c <= 3; ++c) {
      double end = r == 1 && c == 3 ? 200 : 100;
      add(r, CoreKind::kAiv, c, "combine", 0, end);
      add(r, CoreKind::kAiv, c, "wait_recv", 0, end - 20);
      add(r, CoreKind::kAiv, c, "unpack_copy", end - 20, end);
    }
  }
  std::sort(s.spans.begin(), s.spans.end(), [](const Span& a, const Span& b) {
    return std::tie(a.rank, a.kind, a.core, a.begin_us) < std::tie(b.rank, b.kind, b.core, b.begin_us) ||
           (std::tie(a.rank, a.kind, a.core, a.begin_us) == std::tie(b.rank, b.kind, b.core, b.begin_us) &&
            a.end_us > b.end_us);
  });
  ComputeParents(s);
  return s;
}

const PhaseRow* Phase(const Explanation& e, const std::string& group, const std::string& phase) {
  for (const PhaseRow& p : e.phases)
    if (p.group == group && p.phase == phase) return &p;
  return nullptr;
}

TEST(ExplainTest, CoreGroupsComeFromTheRoleWordsOfTheLabels) {
  Explanation e = Explain(Fused(), Builtin(), nullptr);
  std::map<std::string, int> groups;
  for (const GroupInfo& g : e.groups) groups[g.group] = g.cores;
  EXPECT_EQ(groups, (std::map<std::string, int>{{"cube", 2}, {"vector_recv", 6}, {"vector_send", 2}}));
}

// explain.html's #core-gantt: rank 1 (its AIV 3 runs to 200 us, the longest wall), every core of
// it in order, each span with its category and its nesting depth.
TEST(ExplainTest, TheGanttIsTheLongestRankWithEachCoresSpansAndTheirDepth) {
  Explanation e = Explain(Fused(), Builtin(), nullptr);
  ASSERT_EQ(e.gantt.rank, 1);
  ASSERT_EQ(e.gantt.cores.size(), 5u);  // AIC 0, AIV 0..3
  EXPECT_EQ(e.gantt.cores[0].core, "AIC 0");
  EXPECT_EQ(e.gantt.cores[0].group, "cube");
  ASSERT_EQ(e.gantt.cores[0].spans.size(), 3u);
  EXPECT_EQ(e.gantt.cores[0].spans[0].phase, "moe");
  EXPECT_EQ(e.gantt.cores[0].spans[0].category, "container");
  EXPECT_EQ(e.gantt.cores[0].spans[0].depth, 0);
  EXPECT_EQ(e.gantt.cores[0].spans[1].phase, "gmm1");
  EXPECT_EQ(e.gantt.cores[0].spans[1].depth, 1);
  const GanttCore& straggler = e.gantt.cores[4];
  EXPECT_EQ(straggler.core, "AIV 3");
  EXPECT_EQ(straggler.group, "vector_recv");
  ASSERT_EQ(straggler.spans.size(), 3u);
  EXPECT_DOUBLE_EQ(straggler.spans[0].end_us, 200);
  EXPECT_EQ(straggler.spans[1].category, "wait");
  EXPECT_EQ(e.gantt.dropped_cores, 0u);
  auto j = ExplanationJson(e)["core_gantt"];
  EXPECT_EQ(j["rank"], 1);
  EXPECT_EQ(j["cores"].size(), 5u);
}

TEST(ExplainTest, UnionsAndSharesEqualTheHandComputation) {
  Explanation e = Explain(Fused(), Builtin(), nullptr);
  EXPECT_EQ(e.wall_us.at(0), 100);
  EXPECT_EQ(e.wall_us.at(1), 200);
  const PhaseRow* w = Phase(e, "vector_recv", "wait_recv");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->category, "wait");
  EXPECT_EQ(w->count, 6u);
  EXPECT_DOUBLE_EQ(w->total_us, 5 * 80 + 180);
  EXPECT_DOUBLE_EQ(w->rank_union_us.at(0), 80);   // three cores over [0,80): merged, not 240
  EXPECT_DOUBLE_EQ(w->rank_union_us.at(1), 180);
  EXPECT_DOUBLE_EQ(w->union_us, 130);
  EXPECT_DOUBLE_EQ(w->share_of_wall, (0.8 + 0.9) / 2);
  EXPECT_EQ(w->slowest_core, "AIV 3");
  EXPECT_EQ(w->slowest_core_rank, 1);
  const PhaseRow* combine = Phase(e, "vector_recv", "combine");
  ASSERT_NE(combine, nullptr);
  EXPECT_EQ(combine->category, "container");  // it has children
  EXPECT_FALSE(combine->leaf);
  const PhaseRow* gmm1 = Phase(e, "cube", "gmm1");
  EXPECT_EQ(gmm1->category, "compute");
  EXPECT_DOUBLE_EQ(gmm1->share_of_wall, (0.5 + 0.25) / 2);
}

TEST(ExplainTest, CategoriesAreCountedOnLeavesPerGroup) {
  Explanation e = Explain(Fused(), Builtin(), nullptr);
  std::map<std::pair<std::string, std::string>, double> share;
  for (const CategoryRow& c : e.categories) share[{c.group, c.category}] = c.share_of_wall;
  EXPECT_DOUBLE_EQ((share[{"vector_recv", "wait"}]), 0.85);
  EXPECT_DOUBLE_EQ((share[{"vector_send", "wait"}]), (0.1 + 0.05) / 2);
  EXPECT_DOUBLE_EQ((share[{"vector_send", "communication"}]), (0.3 + 0.15) / 2);  // send_tokens
  // unpack_copy: rank 0 [80,100) on all three cores; rank 1 [80,100) and [180,200): 40 of 200.
  EXPECT_DOUBLE_EQ((share[{"vector_recv", "copy"}]), (0.2 + 0.2) / 2);
}

TEST(ExplainTest, TheDiagnosisNamesTheWaitDominatedRoleAndTheStragglers) {
  Explanation e = Explain(Fused(), Builtin(), nullptr);
  std::map<std::string, const ExplainFinding*> by_type;
  for (const ExplainFinding& f : e.findings) by_type.emplace(f.type, &f);
  ASSERT_TRUE(by_type.count("dominant_phase"));
  EXPECT_NE(by_type["dominant_phase"]->summary.find("wait_recv on the vector_recv cores (wait): 85.0%"),
            std::string::npos)
      << by_type["dominant_phase"]->summary;
  ASSERT_TRUE(by_type.count("wait_concentration"));
  EXPECT_NE(by_type["wait_concentration"]->summary.find("concentrated on the vector_recv cores"), std::string::npos);
  EXPECT_EQ(by_type["wait_concentration"]->ranks, std::vector<int>{1});
  ASSERT_TRUE(by_type.count("straggler_core"));
  EXPECT_EQ(by_type["straggler_core"]->cores, std::vector<std::string>{"AIV 3"});
  EXPECT_EQ(by_type["straggler_core"]->ranks, std::vector<int>{1});
  ASSERT_TRUE(by_type.count("straggler_rank"));
  EXPECT_EQ(by_type["straggler_rank"]->ranks, std::vector<int>{1});
}

TEST(ExplainTest, TheCriticalChildIsTheLongestChildOfEachParent) {
  Explanation e = Explain(Fused(), Builtin(), nullptr);
  bool found = false;
  for (const CriticalRow& c : e.critical)
    if (c.group == "cube" && c.parent == "moe") {
      found = true;
      EXPECT_EQ(c.child, "gmm1");
      EXPECT_EQ(c.times, 2);
      EXPECT_EQ(c.of, 2);
    }
  EXPECT_TRUE(found);
}

TEST(ExplainTest, SiblingTopLevelPhasesOfAGroupOverlap) {
  SpanSet s;
  s.spans = {{0, CoreKind::kAic, 0, "stage_a", 0, 50, -1}, {0, CoreKind::kAic, 1, "stage_b", 30, 80, -1}};
  ComputeParents(s);
  Explanation e = Explain(s, Builtin(), nullptr);
  ASSERT_EQ(e.overlaps.size(), 1u);
  EXPECT_EQ(e.overlaps[0].a, "stage_a");
  EXPECT_DOUBLE_EQ(e.overlaps[0].overlap_us, 20);
  EXPECT_DOUBLE_EQ(e.overlaps[0].share_of_a, 0.4);
}

TEST(ExplainTest, UnknownLabelsAreOtherNeverDropped) {
  SpanSet s;
  s.spans = {{0, CoreKind::kAiv, 0, "zzz_phase", 0, 10, -1}};
  Explanation e = Explain(s, Builtin(), nullptr);
  ASSERT_EQ(e.phases.size(), 1u);
  EXPECT_EQ(e.phases[0].category, "other");
}

TEST(ExplainTest, APhaseMapIsTriedBeforeTheBuiltInRules) {
  std::string path = ::testing::TempDir() + "/phase_map.json";
  std::ofstream(path) << R"({"categories": [{"regex": "^wait_recv$", "category": "sync"}], "straggler_ratio": 10})";
  auto rules = LoadPhaseRules(path);
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  Explanation e = Explain(Fused(), *rules, nullptr);
  EXPECT_EQ(Phase(e, "vector_recv", "wait_recv")->category, "sync");
  for (const ExplainFinding& f : e.findings) EXPECT_NE(f.type, "straggler_core");  // ratio 2.25 < 10
  std::ofstream(path) << R"({"categories": [{"regex": "(", "category": "x"}]})";
  auto bad = LoadPhaseRules(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad regex"), std::string::npos);
}

// Legacy dumps with known phase times (tests/data/collect/legacy, 50 MHz): AIC processing
// [100,600) ticks; AIV processing [110,500) holding send [120,220) and [300,350).
TEST(ExplainTest, LegacyDumpsGiveTheirKnownPhaseTimes) {
  std::string data = std::string(OPTRACE_TEST_DATA_DIR) + "/collect/legacy";
  auto r = optrace::testing::RunBinary({"explain", data, "--map", data + "/point_map.json", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["kernel_wall_us"].get<double>(), 10);
  std::map<std::pair<std::string, std::string>, nlohmann::json> rows;
  for (const auto& p : j["phases"]) rows[{p["group"], p["phase"]}] = p;
  EXPECT_DOUBLE_EQ((rows[{"cube", "processing"}]["union_us"].get<double>()), 10);
  EXPECT_NEAR((rows[{"vector_send", "processing"}]["union_us"].get<double>()), 7.8, 1e-9);
  EXPECT_EQ((rows[{"vector_send", "processing"}]["category"]), "container");
  EXPECT_NEAR((rows[{"vector_send", "send"}]["union_us"].get<double>()), 3.0, 1e-9);
  EXPECT_NEAR((rows[{"vector_send", "send"}]["share_of_wall"].get<double>()), 0.3, 1e-9);
  EXPECT_EQ((rows[{"vector_send", "send"}]["category"]), "communication");
}

// Coverage of [b, e) intervals on a grid of breakpoints: a different algorithm from the merge.
double CoverageOf(const std::vector<std::pair<double, double>>& ivs) {
  std::set<double> points;
  for (const auto& [b, e] : ivs) points.insert(b), points.insert(e);
  std::vector<double> p(points.begin(), points.end());
  double total = 0;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    double mid = (p[i] + p[i + 1]) / 2;
    for (const auto& [b, e] : ivs)
      if (b <= mid && mid < e) {
        total += p[i + 1] - p[i];
        break;
      }
  }
  return total;
}

// The demo's dumps (optrace demo), and its Chrome trace read back: the same tables, and every
// phase's union / share equals a computation from the trace's intervals.
TEST(ExplainTest, DemoDumpsAndTheirTraceGiveTheSameTablesAndTheIndependentUnions) {
  std::string dir = ::testing::TempDir() + "/explain_demo_" + std::to_string(::getpid());
  auto demo = optrace::testing::RunBinary({"demo", "-o", dir});
  ASSERT_EQ(demo.exit_code, 0) << demo.err;
  auto from_dumps = optrace::testing::RunBinary(
      {"explain", dir + "/dumps", "--map", dir + "/point_map.json", "--format", "json"});
  ASSERT_EQ(from_dumps.exit_code, 0) << from_dumps.err;
  auto from_trace = optrace::testing::RunBinary({"explain", dir + "/chrome_trace.json", "--format", "json"});
  ASSERT_EQ(from_trace.exit_code, 0) << from_trace.err;
  auto a = nlohmann::json::parse(from_dumps.out), b = nlohmann::json::parse(from_trace.out);
  ASSERT_EQ(a["phases"].size(), b["phases"].size());
  for (size_t i = 0; i < a["phases"].size(); ++i) {
    EXPECT_EQ(a["phases"][i]["phase"], b["phases"][i]["phase"]);
    EXPECT_NEAR(a["phases"][i]["union_us"].get<double>(), b["phases"][i]["union_us"].get<double>(), 1e-3);
  }
  EXPECT_EQ(a["categories"].size(), b["categories"].size());
  // The same dumps as the seed collector names them ("<label> [extra:n] #seq"): the same tables.
  auto legacy = optrace::testing::RunBinary({"collect", dir + "/dumps", "--map", dir + "/point_map.json", "--names",
                                          "legacy", "-o", dir + "/legacy_trace.json"});
  ASSERT_EQ(legacy.exit_code, 0) << legacy.err;
  auto from_legacy = optrace::testing::RunBinary({"explain", dir + "/legacy_trace.json", "--format", "json"});
  ASSERT_EQ(from_legacy.exit_code, 0) << from_legacy.err;
  auto c = nlohmann::json::parse(from_legacy.out);
  ASSERT_EQ(a["phases"].size(), c["phases"].size());
  for (size_t i = 0; i < a["phases"].size(); ++i) {
    EXPECT_EQ(a["phases"][i]["phase"], c["phases"][i]["phase"]);
    EXPECT_NEAR(a["phases"][i]["union_us"].get<double>(), c["phases"][i]["union_us"].get<double>(), 1e-3);
  }

  // Independent: the trace's X events, grouped by the cores' groups explain reported.
  std::ifstream in(dir + "/chrome_trace.json");
  nlohmann::json trace = nlohmann::json::parse(in);
  std::map<std::pair<int, int>, std::string> thread_names;
  for (const auto& ev : trace["traceEvents"])
    if (ev["ph"] == "M" && ev["name"] == "thread_name")
      thread_names[{ev["pid"].get<int>(), ev["tid"].get<int>()}] = ev["args"]["name"];
  std::map<std::pair<int, std::string>, std::string> group_of;
  for (const auto& c : a["cores"]) group_of[{c["rank"].get<int>(), c["core"].get<std::string>()}] = c["group"];
  std::map<int, std::pair<double, double>> extent;
  std::map<std::tuple<std::string, std::string, int>, std::vector<std::pair<double, double>>> ivs;
  for (const auto& ev : trace["traceEvents"]) {
    if (ev["ph"] != "X") continue;
    int rank = ev["pid"];
    std::string core = thread_names[{rank, ev["tid"].get<int>()}];
    double b0 = ev["ts"], e0 = b0 + ev["dur"].get<double>();
    auto [it, fresh] = extent.try_emplace(rank, b0, e0);
    if (!fresh) it->second.first = std::min(it->second.first, b0), it->second.second = std::max(it->second.second, e0);
    ivs[{group_of[{rank, core}], ev["name"].get<std::string>(), rank}].push_back({b0, e0});
  }
  int checked = 0;
  for (const auto& p : a["phases"]) {
    double share = 0, uni = 0;
    for (const auto& [rank, x] : extent) {
      double u = CoverageOf(ivs[{p["group"], p["phase"], rank}]);
      uni += u;
      share += u / (x.second - x.first);
    }
    EXPECT_NEAR(p["union_us"].get<double>(), uni / double(extent.size()), 2e-3) << p["phase"];
    EXPECT_NEAR(p["share_of_wall"].get<double>(), share / double(extent.size()), 1e-5) << p["phase"];
    ++checked;
  }
  EXPECT_GT(checked, 3);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace optrace::explain
