#include "analyze/summarize/summarize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "analyze/analyze_test_util.h"
#include "core/file_io.h"

namespace optrace::analyze {
namespace {

using testing::Analyze;
using testing::DataDir;
using testing::Sample;

std::string Num(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{:.3f}", v);
}

std::string OperatorCsv(const AnalysisResult& r) {
  std::string out =
      "rank,name,type,op_type,count,total_us,mean_us,p50_us,p90_us,max_us,aic_mac_time,aic_mte2_time,aiv_vec_time,"
      "aiv_mte2_time,bound_stage,bound_family,dominant_core,first_row,last_row\n";
  for (const OperatorSummary& o : r.summaries.operators) {
    const auto& s = o.stats;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", o.rank, r.Str(o.name), r.Str(o.type),
                       OpTypeName(o.op_type), s.count, Num(s.total_us), Num(s.mean_us), Num(s.p50_us), Num(s.p90_us),
                       Num(s.max_us), Num(o.pipe_sums[2]), Num(o.pipe_sums[5]), Num(o.pipe_sums[7]),
                       Num(o.pipe_sums[8]), o.bound.bound_stage, o.bound.bound_family, o.bound.dominant_core,
                       o.first_row, o.last_row);
  }
  return out;
}

std::string HcclCsv(const AnalysisResult& r) {
  std::string out = "kind,comm_aiv_fused,rank,count,total_us,mean_us,p50_us,p90_us,max_us\n";
  for (const HcclSummary& h : r.summaries.hccl)
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", h.kind, h.comm_aiv_fused, h.rank, h.stats.count,
                       Num(h.stats.total_us), Num(h.stats.mean_us), Num(h.stats.p50_us), Num(h.stats.p90_us),
                       Num(h.stats.max_us));
  out += "kind,comm_aiv_fused,ranks,count,total_us,rank_avg_min_us,rank_avg_max_us,rank_skew_ratio\n";
  for (const HcclClassSummary& c : r.summaries.hccl_classes)
    out += fmt::format("{},{},{},{},{},{},{},{:.4f}\n", c.kind, c.comm_aiv_fused, c.rank_count, c.count,
                       Num(c.total_us), Num(c.rank_avg_min_us), Num(c.rank_avg_max_us), c.rank_skew_ratio);
  return out;
}

// Compares against tests/data/analyze/golden/<name>; OPTRACE_UPDATE_GOLDENS=1 rewrites it.
void ExpectGolden(const std::string& name, const std::string& actual) {
  std::filesystem::path p = DataDir() / "golden" / name;
  const char* update = std::getenv("OPTRACE_UPDATE_GOLDENS");
  if (update && std::string(update) == "1") {
    ASSERT_TRUE(WriteFileAtomic(p, actual).ok());
    return;
  }
  auto expected = ReadFileToString(p);
  ASSERT_TRUE(expected.ok()) << expected.status().message() << " (run with OPTRACE_UPDATE_GOLDENS=1 to create it)";
  EXPECT_EQ(*expected, actual) << "golden " << p << " differs; rerun with OPTRACE_UPDATE_GOLDENS=1 if intended";
}

TEST(SummarizeTest, OperatorAndHcclSummariesOfTwoRankLevel1MatchGolden) {
  AnalysisResult r = Analyze(Sample("tp_l1_text"));
  ExpectGolden("tp_l1_text_operator_summary.csv", OperatorCsv(r));
  ExpectGolden("tp_l1_text_hccl_summary.csv", HcclCsv(r));
}

TEST(SummarizeTest, OperatorAndHcclSummariesOfLevel2SampleMatchGolden) {
  AnalysisResult r = Analyze(Sample("st_l2"));
  ExpectGolden("st_l2_operator_summary.csv", OperatorCsv(r));
  ExpectGolden("st_l2_hccl_summary.csv", HcclCsv(r));
}

TEST(SummarizeTest, OperatorSummaryOfMsprofOpSummaryMatchesGolden) {
  AnalysisResult r = Analyze(Sample("msprof_minimal"));
  ExpectGolden("msprof_minimal_operator_summary.csv", OperatorCsv(r));
}

TEST(SummarizeTest, OperatorTotalsAddUpToEventDurations) {
  AnalysisResult r = Analyze(Sample("tp_l1_text"));
  for (const RankTable& t : r.ranks) {
    double events = 0, ops = 0;
    for (const Event& e : t.events) events += e.dur_ns / 1000.0;
    for (const OperatorSummary& o : r.summaries.operators)
      if (o.rank == t.rank) ops += o.stats.total_us;
    EXPECT_NEAR(events, ops, 1e-6 * events);
  }
}

PipeSums Sums(std::initializer_list<std::pair<Pipe, double>> v) {
  PipeSums s = EmptyPipeSums();
  RankTable t;
  PipelineFields f;
  for (auto [p, x] : v) t.SetPipe(f, p, x);
  AddPipe(s, t, t.pipes.View(t.pipes.Add(f)));
  return s;
}

TEST(SummarizeTest, BoundFamilyFollowsTheLargestStage) {
  Thresholds t;
  BoundInfo cube = ComputeBound(OpType::kAic, Sums({{Pipe::kAicMacTime, 80}, {Pipe::kAicMte2Time, 30}}), t);
  EXPECT_EQ(cube.bound_stage, "aic_mac_time");
  EXPECT_EQ(cube.bound_family, "cube");
  EXPECT_EQ(cube.dominant_core, "aic");
  BoundInfo vec = ComputeBound(OpType::kAiv, Sums({{Pipe::kAivVecTime, 10}, {Pipe::kAivMte2Time, 40}}), t);
  EXPECT_EQ(vec.bound_stage, "aiv_mte2_time");
  EXPECT_EQ(vec.bound_family, "aiv_mte");
  EXPECT_EQ(vec.dominant_core, "aiv");
  // AIC mte2 and AIV mte2 are never merged: close values in different families are "mixed".
  BoundInfo mixed = ComputeBound(OpType::kMixCv, Sums({{Pipe::kAicMte2Time, 50}, {Pipe::kAivMte2Time, 48}}), t);
  EXPECT_EQ(mixed.bound_family, "mixed");
  EXPECT_EQ(mixed.dominant_core, "mix");
}

TEST(SummarizeTest, BoundFamilyOfNonComputeOpTypes) {
  Thresholds t;
  EXPECT_EQ(ComputeBound(OpType::kCommunication, EmptyPipeSums(), t).bound_family, "communication");
  EXPECT_EQ(ComputeBound(OpType::kAicpu, EmptyPipeSums(), t).bound_family, "aicpu");
  EXPECT_EQ(ComputeBound(OpType::kDsa, EmptyPipeSums(), t).bound_family, "dsa");
  EXPECT_EQ(ComputeBound(OpType::kAic, EmptyPipeSums(), t).bound_family, "unknown");
  EXPECT_EQ(ComputeBound(OpType::kAic, EmptyPipeSums(), t).dominant_core, "none");
  // comm + AIV fused kernels: only the AIV stages count for the stage.
  BoundInfo fused = ComputeBound(OpType::kMixCommAiv, Sums({{Pipe::kAicMacTime, 90}, {Pipe::kAivMte3Time, 20}}), t);
  EXPECT_EQ(fused.bound_stage, "aiv_mte3_time");
  EXPECT_EQ(fused.bound_family, "comm_aiv_mix");
}

TEST(SummarizeTest, MissingPipelineFieldsStayMissingInSums) {
  AnalysisResult r = Analyze(Sample("tp_l0_text"));
  ASSERT_FALSE(r.summaries.operators.empty());
  for (const OperatorSummary& o : r.summaries.operators) {
    EXPECT_TRUE(std::isnan(o.pipe_sums[2])) << r.Str(o.name);
    EXPECT_EQ(o.pipe_event_count, 0u);
  }
  EXPECT_EQ(r.summaries.events_with_pipeline, 0u);
}

TEST(SummarizeTest, PipelineSumsKeepTheThirdDecimalOfLargeValues) {
  AnalysisResult r = Analyze(Sample("msprof_minimal"));
  ASSERT_EQ(r.summaries.operators.size(), 1u);
  // aiv_time(us) 38332.239 + 38315.953: a float sum gave 76648.191406.
  EXPECT_NEAR(r.summaries.operators[0].pipe_sums[1], 76648.192, 1e-6);
}

TEST(SummarizeTest, RankSummaryCountsBubblingStepsOfTheSyntheticRoot) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  ASSERT_EQ(r.summaries.ranks.size(), 8u);
  const RankSummary& r2 = r.summaries.ranks[2];
  EXPECT_EQ(r2.complete_step_count, 5);
  EXPECT_EQ(r2.bubbling_step_count, 4);
  EXPECT_DOUBLE_EQ(r2.bubble_recurrence_ratio, 0.8);
  EXPECT_TRUE(r2.recurring_bubble_pattern);
  EXPECT_EQ(r2.dominant_idle_pattern, "prelaunch");
  EXPECT_EQ(r.summaries.ranks[0].bubbling_step_count, 0);
}

TEST(SummarizeTest, StepLayerAndBlockClassesOfTheSyntheticRoot) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  ASSERT_EQ(r.summaries.step_classes.size(), 1u);  // identical shapes everywhere
  EXPECT_EQ(r.summaries.step_classes[0].members, 40);
  ASSERT_FALSE(r.summaries.layer_classes.empty());
  const LayerClassSummary& l = r.summaries.layer_classes[0];
  ASSERT_EQ(l.block_kinds.size(), 2u);
  EXPECT_EQ(l.block_kinds[0], BlockKind::kAttention);
  EXPECT_EQ(l.block_kinds[1], BlockKind::kMoe);
  EXPECT_FALSE(l.companion_layer);
}

// Fast mode sums each block inside the class loop; full mode reads the block rows: the class
// summaries are the same either way, and with one thread or several.
TEST(SummarizeTest, BlockClassesAreTheSameWithBlockRowsAndThreads) {
  AnalysisResult fast = Analyze(Sample("synthetic_8rank"));
  AnalysisResult full = fast;
  const Rules rules = testing::BuiltinRules();
  Summarize(fast, rules, /*block_rows=*/false, /*threads=*/1);
  Summarize(full, rules, /*block_rows=*/true, /*threads=*/4);
  ASSERT_TRUE(fast.summaries.blocks.empty());
  ASSERT_EQ(full.summaries.blocks.size(), full.blocks.size());
  ASSERT_FALSE(fast.summaries.block_classes.empty());
  ASSERT_EQ(fast.summaries.block_classes.size(), full.summaries.block_classes.size());
  for (size_t i = 0; i < fast.summaries.block_classes.size(); ++i) {
    const BlockClassSummary& a = fast.summaries.block_classes[i];
    const BlockClassSummary& b = full.summaries.block_classes[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.wall_ms_sum, b.wall_ms_sum);
    EXPECT_EQ(a.comm_share_mean, b.comm_share_mean);
    EXPECT_FALSE(a.bound_family_member_histogram.empty());
    EXPECT_EQ(a.bound_family_member_histogram, b.bound_family_member_histogram);
    EXPECT_EQ(a.bound.bound_family, b.bound.bound_family);
    EXPECT_EQ(a.top_ops, b.top_ops);
    for (size_t k = 0; k < a.pipe_sums.size(); ++k)
      EXPECT_TRUE(a.pipe_sums[k] == b.pipe_sums[k] || (std::isnan(a.pipe_sums[k]) && std::isnan(b.pipe_sums[k])));
  }
  ASSERT_EQ(fast.summaries.operators.size(), full.summaries.operators.size());
  for (size_t i = 0; i < fast.summaries.operators.size(); ++i) {
    EXPECT_EQ(fast.summaries.operators[i].stats.total_us, full.summaries.operators[i].stats.total_us);
    EXPECT_EQ(fast.summaries.operators[i].stats.p90_us, full.summaries.operators[i].stats.p90_us);
  }
}

// Without layers the operator groups are shared out between threads (each thread adds its own
// groups' events in file order): every operator row is what one thread makes.
TEST(SummarizeTest, OperatorSummariesAreTheSameWithSharedOutGroups) {
  AnalysisResult one = Analyze(Sample("synthetic_8rank"));
  for (Step& s : one.steps) s.layers.clear();
  one.layers.clear();
  one.layer_classes.clear();
  one.blocks.clear();
  one.block_classes.clear();
  AnalysisResult four = one;
  const Rules rules = testing::BuiltinRules();
  Summarize(one, rules, /*block_rows=*/false, /*threads=*/1);
  Summarize(four, rules, /*block_rows=*/false, /*threads=*/4);
  ASSERT_GT(one.summaries.operators.size(), 8u);
  ASSERT_EQ(one.summaries.operators.size(), four.summaries.operators.size());
  EXPECT_EQ(one.summaries.events_total, four.summaries.events_total);
  EXPECT_EQ(one.summaries.events_with_pipeline, four.summaries.events_with_pipeline);
  for (size_t i = 0; i < one.summaries.operators.size(); ++i) {
    const OperatorSummary& a = one.summaries.operators[i];
    const OperatorSummary& b = four.summaries.operators[i];
    EXPECT_EQ(a.rank, b.rank) << i;
    EXPECT_EQ(a.name, b.name) << i;
    EXPECT_EQ(a.stats.count, b.stats.count) << i;
    EXPECT_EQ(a.stats.total_us, b.stats.total_us) << i;
    EXPECT_EQ(a.stats.p50_us, b.stats.p50_us) << i;
    EXPECT_EQ(a.stats.p90_us, b.stats.p90_us) << i;
    EXPECT_EQ(a.pipe_event_count, b.pipe_event_count) << i;
    EXPECT_EQ(a.first_row, b.first_row) << i;
    EXPECT_EQ(a.last_row, b.last_row) << i;
    EXPECT_EQ(a.bound.bound_family, b.bound.bound_family) << i;
    for (size_t k = 0; k < a.pipe_sums.size(); ++k)
      EXPECT_TRUE(a.pipe_sums[k] == b.pipe_sums[k] || (std::isnan(a.pipe_sums[k]) && std::isnan(b.pipe_sums[k])))
          << i << " field " << k;
  }
}

}  // namespace
}  // namespace optrace::analyze
