#include "analyze/diagnose/diagnose.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include <set>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::Analyze;
using testing::Sample;

const Finding* FindType(const AnalysisResult& r, const std::string& type) {
  for (const Finding& f : r.findings)
    if (f.type == type) return &f;
  return nullptr;
}

using testing::TempDir;

// A torch_npu root with one rank directory per entry of `csv_per_rank` (kernel_details.csv text).
void WriteRanks(const TempDir& tmp, const std::vector<std::string>& csv_per_rank) {
  for (size_t r = 0; r < csv_per_rank.size(); ++r) {
    std::string dir = "r" + std::to_string(r) + "_ascend_pt/";
    tmp.Write(dir + "profiler_info_" + std::to_string(r) + ".json", "{}");
    tmp.Write(dir + "ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv_per_rank[r]);
  }
}

const char kHeader[] = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
const char kHeaderNoStep[] = "Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";

// Ranks with steps matched by order (no Step Id, no markers: one whole-capture step each) and a
// skewed wall: the rank_step_skew evidence is each rank's matched step.
void WriteOrdinalSkewRoot(const TempDir& tmp) {
  WriteRanks(tmp, {std::string(kHeaderNoStep) +
                       "MatMul,MatMul,AI_CORE,1000.000,100\nAdd,Add,AI_VECTOR_CORE,1100.000,100\n",
                   std::string(kHeaderNoStep) +
                       "MatMul,MatMul,AI_CORE,5000.000,150\nAdd,Add,AI_VECTOR_CORE,5150.000,150\n"});
}

// Three ranks whose allreduce durations are 100, 100 and 108 us: 7.8% skew, no outlier rank.
void WriteCollectiveSkewRoot(const TempDir& tmp) {
  std::vector<std::string> ranks;
  for (int dur : {100, 100, 108})
    ranks.push_back(std::string(kHeader) + "1,MatMul,MatMul,AI_CORE,1000.000,50\n" +
                    "1,hcom_allReduce__1_0_1,hcom_allReduce_,HCCL,1050.000," + std::to_string(dur) + "\n");
  WriteRanks(tmp, ranks);
}

// One rank, two steps 2.9 ms apart: a heavy tail gap after step 1 and pre-launch gap before step 2.
void WriteGapRoot(const TempDir& tmp) {
  WriteRanks(tmp,
             {std::string(kHeader) + "1,MatMul,MatMul,AI_CORE,1000.000,100\n2,MatMul,MatMul,AI_CORE,4000.000,100\n"});
}

// One rank whose AI CPU operator runs 200 us with no other device work beside it.
void WriteAicpuRoot(const TempDir& tmp) {
  WriteRanks(tmp, {std::string(kHeader) + "1,MatMul,MatMul,AI_CORE,1000.000,100\n1,NonZero,NonZero,AI_CPU,1100.000,200\n"
                   "1,Add,Add,AI_VECTOR_CORE,1300.000,100\n"});
}

double Number(const Finding& f, const std::string& name) {
  for (auto& [k, v] : f.numbers)
    if (k == name) return v;
  return -1;
}

// The synthetic root plants a slow rank (5) and a recurring bubble (rank 2): exactly these two
// problems come out, beside the informational top-operator list.
TEST(DiagnoseTest, SyntheticRootYieldsExactlyThePlantedFindings) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  std::multiset<std::string> problems;
  int top_ops = 0;
  for (const Finding& f : r.findings) {
    if (f.type == "top_operator") ++top_ops;
    else problems.insert(f.type + "@" + std::to_string(f.rank));
  }
  EXPECT_EQ(problems, (std::multiset<std::string>{"slow_rank@5", "recurring_bubble_pattern@2"}));
  EXPECT_EQ(top_ops, 5);
  ASSERT_FALSE(r.findings.empty());
  for (size_t i = 1; i < r.findings.size(); ++i)  // the most severe first
    EXPECT_GE(r.findings[i - 1].severity, r.findings[i].severity);
  EXPECT_EQ(r.findings[0].id, "F001");
}

TEST(DiagnoseTest, SlowRankIsNamedWithTheWaitItCausedAndItsRows) {
  // Rank 5 launches 600 us late in each of 5 steps of ~64.5 ms: the others wait ~3 ms for it, 1%
  // of the wall: a low finding (its cost, not its count of late arrivals, sets the severity).
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  const Finding* f = FindType(r, "slow_rank");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 5);
  EXPECT_EQ(f->severity, Severity::kLow);
  EXPECT_NEAR(Number(*f, "caused_wait_ms"), 3.1, 0.2);
  EXPECT_NEAR(Number(*f, "caused_wait_share"), 3.1 / 322.9, 0.001);
  EXPECT_GT(Number(*f, "net_wait_ms"), 2.9);
  const RankTable& t = *r.FindRank(5);
  std::set<int64_t> steps;
  for (const Evidence& e : f->evidence) {
    if (e.rank != 5) continue;  // the waiting rank's row is beside it
    EXPECT_NE(e.file.find("node0_4005_"), std::string::npos) << e.file;
    EXPECT_EQ(e.row_first, e.row_last);
    const Event* ev = nullptr;
    for (const Event& x : t.events)
      if (x.row == e.row_first) ev = &x;
    ASSERT_NE(ev, nullptr);
    if (r.Str(ev->name) != "hcom_allReduce__358_0_1") continue;
    steps.insert(e.step_id);
    EXPECT_EQ(e.window_start_ns, t.AbsNs(ev->start_ns));
    EXPECT_EQ(e.window_end_ns, t.AbsNs(ev->end_ns()));
  }
  // The planted late allreduce of each step carries the most wait: its rows come first.
  EXPECT_EQ(steps, (std::set<int64_t>{10, 11, 12, 13, 14}));
}

TEST(DiagnoseTest, RecurringBubbleEvidenceIsTheIdleWindowOfEachBubblingStep) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  const Finding* f = FindType(r, "recurring_bubble_pattern");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->evidence.size(), 4u);
  std::set<int64_t> steps;
  for (const Evidence& e : f->evidence) {
    EXPECT_EQ(e.rank, 2);
    steps.insert(e.step_id);
    EXPECT_NEAR(double(e.window_end_ns - e.window_start_ns) / 1e3, 1500, 20);  // the planted 1.5 ms
    EXPECT_NE(e.file.find("node0_4002_"), std::string::npos);
    EXPECT_EQ(e.row_last, e.row_first + 1);  // the rows on both sides of the gap
  }
  EXPECT_EQ(steps, (std::set<int64_t>{10, 11, 12, 13}));
}

TEST(DiagnoseTest, TopOperatorsCarryBoundFamilyAndRowRanges) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  const Finding* f = FindType(r, "top_operator");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("FusedInferAttentionScore"), std::string::npos);
  EXPECT_NE(f->summary.find("bound: cube"), std::string::npos);
  ASSERT_EQ(f->evidence.size(), 8u);
  EXPECT_GT(f->evidence[0].row_first, 1u);
  EXPECT_GE(f->evidence[0].row_last, f->evidence[0].row_first);
}

TEST(DiagnoseTest, RaisedThresholdsSilenceTheFindings) {
  Rules rules = testing::BuiltinRules();
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  rules.thresholds.slow_rank_min_wait_share = 0.9;    // its waits are far below 90% of the wall
  rules.thresholds.recurring_bubble_min_ratio = 0.9;  // 80% of steps no longer enough
  Diagnose(r, rules);
  EXPECT_EQ(FindType(r, "slow_rank"), nullptr);
  EXPECT_EQ(FindType(r, "recurring_bubble_pattern"), nullptr);
}

TEST(DiagnoseTest, TwoRankSampleReportsCommunicationDominatedStepsOnceForBothRanks) {
  // TP-L1: the first allreduce waits ~79 ms of a ~137 ms step on both ranks: one finding (rolled
  // up), both ranks listed, the worst (rank 0, 78%) leading, each rank's step as evidence.
  AnalysisResult r = Analyze(Sample("tp_l1_text"));
  int comm = 0;
  for (const Finding& f : r.findings)
    if (f.type == "communication_dominated_step") {
      ++comm;
      EXPECT_EQ(f.ranks, (std::vector<int>{0, 1}));
      EXPECT_EQ(f.rank, 0);
      EXPECT_EQ(f.summary.rfind("Seen on 2 of 2 ranks (0,1). Worst, rank 0: ", 0), 0u) << f.summary;
      ASSERT_EQ(f.evidence.size(), 2u);
      for (int k = 0; k < 2; ++k) {
        EXPECT_EQ(f.evidence[k].rank, k);
        EXPECT_EQ(f.evidence[k].step_id, 50);
        EXPECT_EQ(f.evidence[k].row_first, 2u);
        EXPECT_EQ(f.evidence[k].row_last, 192u);
      }
    }
  EXPECT_EQ(comm, 1);
}

TEST(DiagnoseTest, EightRankPatternIsOneFindingListingTheRanks) {
  AnalysisResult r = Analyze(Sample("synthetic_8rank"));
  std::map<std::string, int> per_type;
  for (const Finding& f : r.findings) {
    ++per_type[f.type];
    if (f.ranks.size() > 1) {
      EXPECT_NE(f.summary.find("ranks ("), std::string::npos) << f.summary;
      EXPECT_TRUE(std::is_sorted(f.ranks.begin(), f.ranks.end()));
    }
  }
  for (const char* t : {"communication_dominated_step", "recurring_bubble_pattern", "prelaunch_gap_heavy",
                        "tail_gap_heavy", "aicpu_on_critical_path"})
    EXPECT_LE(per_type[t], 1) << t;
  EXPECT_EQ(per_type["recurring_bubble_pattern"], 1);  // rank 2 only: a single rank stays as it was
  for (const Finding& f : r.findings) {
    if (f.type == "recurring_bubble_pattern") {
      EXPECT_EQ(f.ranks, (std::vector<int>{2}));
    }
  }
}

TEST(DiagnoseTest, RankListsCollapseRuns) {
  EXPECT_EQ(FormatRankList({3, 0, 1, 2, 5, 7, 8}), "0-3,5,7,8");
  EXPECT_EQ(FormatRankList({4}), "4");
  EXPECT_EQ(FormatRankList({}), "");
}

TEST(DiagnoseTest, TopOperatorsAreComputeOperators) {
  // TP-L1 spends most device time in allreduce; the top list still names compute kernels.
  AnalysisResult r = Analyze(Sample("tp_l1_text"));
  int n = 0;
  for (const Finding& f : r.findings) {
    if (f.type != "top_operator") continue;
    ++n;
    EXPECT_EQ(f.summary.find("hcom_"), std::string::npos) << f.summary;
    EXPECT_EQ(f.evidence.size(), 2u);  // one row range per rank
  }
  EXPECT_EQ(n, 5);
}

TEST(DiagnoseTest, RankStepSkewOfStepsMatchedByOrderCarriesEachRanksStep) {
  TempDir tmp;
  WriteOrdinalSkewRoot(tmp);
  AnalysisResult r = Analyze(tmp.path());
  ASSERT_EQ(r.cross_rank.alignment_method, "step_ordinal");
  const Finding* f = FindType(r, "rank_step_skew");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->evidence.size(), 2u);
  std::set<int> ranks;
  for (const Evidence& e : f->evidence) {
    ranks.insert(e.rank);
    EXPECT_NE(e.file.find("kernel_details.csv"), std::string::npos) << e.file;
    EXPECT_EQ(e.row_first, 2u);  // the step's rows: 2..3
    EXPECT_EQ(e.row_last, 3u);
    EXPECT_GT(e.window_end_ns, e.window_start_ns);
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1}));
}

TEST(DiagnoseTest, CollectiveSkewAboveTheThresholdIsAFindingPerKind) {
  TempDir tmp;
  WriteCollectiveSkewRoot(tmp);
  AnalysisResult r = Analyze(tmp.path());
  EXPECT_EQ(FindType(r, "slow_rank"), nullptr);  // no outlier: plain skew
  const Finding* f = FindType(r, "collective_rank_skew");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("allreduce"), std::string::npos) << f->summary;
  EXPECT_NEAR(Number(*f, "max_skew_ratio"), 8.0 / (308.0 / 3), 1e-9);
  EXPECT_EQ(Number(*f, "collectives_over"), 1);
  ASSERT_EQ(f->evidence.size(), 3u);  // the allreduce row on every rank
  for (const Evidence& e : f->evidence) {
    EXPECT_EQ(e.row_first, 3u);
    EXPECT_EQ(e.row_last, 3u);
    EXPECT_EQ(e.step_id, 1);
  }
}

TEST(DiagnoseTest, CollectiveSkewThresholdComesFromTheRules) {
  TempDir tmp;
  WriteCollectiveSkewRoot(tmp);
  AnalysisResult r = Analyze(tmp.path());
  Rules rules = testing::BuiltinRules();
  EXPECT_DOUBLE_EQ(rules.thresholds.collective_skew_ratio, 0.05);  // data/analyze/diagnosis_rules.json
  rules.thresholds.collective_skew_ratio = 0.10;
  Diagnose(r, rules);
  EXPECT_EQ(FindType(r, "collective_rank_skew"), nullptr);
}

TEST(DiagnoseTest, HeavyTailAndPrelaunchGapsAreFindingsWithTheGapWindow) {
  TempDir tmp;
  WriteGapRoot(tmp);
  AnalysisResult r = Analyze(tmp.path());
  const Finding* tail = FindType(r, "tail_gap_heavy");
  const Finding* pre = FindType(r, "prelaunch_gap_heavy");
  ASSERT_NE(tail, nullptr);
  ASSERT_NE(pre, nullptr);
  ASSERT_EQ(tail->evidence.size(), 1u);
  ASSERT_EQ(pre->evidence.size(), 1u);
  EXPECT_EQ(tail->evidence[0].step_id, 1);
  EXPECT_EQ(pre->evidence[0].step_id, 2);
  const RankTable& t = *r.FindRank(0);
  for (const Finding* f : {tail, pre}) {
    EXPECT_EQ(f->evidence[0].window_start_ns, t.AbsNs(100000));  // step 1 ends at 1100 us
    EXPECT_EQ(f->evidence[0].window_end_ns, t.AbsNs(3000000));   // step 2 starts at 4000 us
    EXPECT_NEAR(Number(*f, "max_gap_ms"), 2.9, 1e-9);
  }
}

TEST(DiagnoseTest, CommunicationThatRunsAloneBesideEnoughComputeIsExposed) {
  // Rank 0: the all-reduce runs after the matmul, alone; rank 1: the same all-reduce under the matmul.
  TempDir tmp;
  WriteRanks(tmp, {std::string(kHeader) + "1,MatMul,MatMul,AI_CORE,1000.000,400\n"
                       "1,hcom_allReduce__1,hcom_allReduce_,HCCL,1400.000,200\n",
                   std::string(kHeader) + "1,MatMul,MatMul,AI_CORE,1000.000,400\n"
                       "1,hcom_allReduce__1,hcom_allReduce_,HCCL,1100.000,200\n"});
  AnalysisResult r = Analyze(tmp.path());
  std::vector<int> ranks;
  for (const Finding& f : r.findings)
    if (f.type == "exposed_communication") ranks.push_back(f.rank);
  ASSERT_EQ(ranks, (std::vector<int>{0}));
  const Finding* f = FindType(r, "exposed_communication");
  EXPECT_NEAR(Number(*f, "exposed_ms"), 0.2, 1e-9);
  EXPECT_NEAR(Number(*f, "overlap_ratio"), 0.0, 1e-9);
  ASSERT_EQ(f->evidence.size(), 1u);
  EXPECT_NE(f->evidence[0].note.find("0.20 ms of 0.20 ms communication exposed"), std::string::npos)
      << f->evidence[0].note;
}

TEST(DiagnoseTest, AnOutlierStepIsNamedWithWhatWasDifferentInIt) {
  // Eight 0.2 ms steps; step 3 waits 5 ms between its two operators (a host pause), step 5's
  // MatMul takes 3 ms.
  std::string csv = kHeader;
  for (int k = 1; k <= 8; ++k) {
    double base = 1000 + k * 10000.0, mm = k == 5 ? 3000 : 100, add_at = base + (k == 3 ? 5100 : mm);
    csv += fmt::format("{},MatMul,MatMul,AI_CORE,{:.3f},{:.3f}\n", k, base, mm);
    csv += fmt::format("{},Add,Add,AI_VECTOR_CORE,{:.3f},100\n", k, add_at);
  }
  TempDir tmp;
  WriteRanks(tmp, {csv});
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "outlier_step");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->step_id, 3);
  EXPECT_NEAR(Number(*f, "outlier_steps"), 2, 1e-9);
  EXPECT_NE(f->summary.find("5.00 ms more idle device time than the median step"), std::string::npos) << f->summary;
  ASSERT_EQ(f->evidence.size(), 2u);
  EXPECT_NE(f->evidence[1].note.find("step 5: 3.10 ms wall"), std::string::npos) << f->evidence[1].note;
  EXPECT_NE(f->evidence[1].note.find("MatMul +2.90 ms"), std::string::npos) << f->evidence[1].note;
}

TEST(DiagnoseTest, ThePipelineStageThatBoundsTheStepIsNamed) {
  // MindSpeed's metadata layout: pp groups {0, 2} and {1, 3}, so ranks 2 and 3 are stage 1; their
  // matmuls take twice as long in every step.
  TempDir tmp;
  for (int rank = 0; rank < 4; ++rank) {
    int pp = rank % 2;
    std::string dir = "r" + std::to_string(rank) + "_ascend_pt/";
    tmp.Write(dir + "profiler_info_" + std::to_string(rank) + ".json", "{}");
    tmp.Write(dir + "profiler_metadata.json",
              fmt::format("{{\"parallel_group_info\": {{\"group_name_{}\": {{\"group_name\": \"pp\", "
                          "\"global_ranks\": [{}, {}]}}}}}}",
                          20 + pp, pp, pp + 2));
    std::string csv = kHeader;
    for (int k = 1; k <= 4; ++k) {
      double base = 1000 + k * 10000.0, mm = rank >= 2 ? 2000 : 1000;
      csv += fmt::format("{},MatMul,MatMul,AI_CORE,{:.3f},{:.3f}\n", k, base, mm);
      csv += fmt::format("{},hcom_send__1,hcom_send_,HCCL,{:.3f},100\n", k, base + mm);
    }
    tmp.Write(dir + "ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
  }
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "slow_pipeline_stage");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->ranks, (std::vector<int>{2, 3}));
  EXPECT_NE(f->summary.find("Pipeline stage 1 (ranks 2,3) bounds 4 of 4 steps: 2.00 ms compute per step, 2.00x"),
            std::string::npos)
      << f->summary;
  EXPECT_EQ(f->evidence.size(), 2u);
}

TEST(DiagnoseTest, AHotExpertRankIsNamedFromRoutedTokens) {
  // MindSpeed's EP group "exp" over 4 ranks; rank 1's GroupedMatmul gets 4096 rows per call, the
  // others 1024 (kernel_details.csv's quoted "Input Shapes" field).
  TempDir tmp;
  for (int rank = 0; rank < 4; ++rank) {
    std::string dir = "r" + std::to_string(rank) + "_ascend_pt/";
    tmp.Write(dir + "profiler_info_" + std::to_string(rank) + ".json", "{}");
    tmp.Write(dir + "profiler_metadata.json",
              "{\"parallel_group_info\": {\"group_name_7\": {\"group_name\": \"exp\", \"global_ranks\": [0, 1, 2, 3]}}}");
    std::string csv = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes\n";
    int tokens = rank == 1 ? 4096 : 1024;
    for (int k = 1; k <= 3; ++k)
      for (int c = 0; c < 2; ++c)
        csv += fmt::format("{},aclnnGroupedMatmulV4_GroupedMatmul_GroupedMatmul,GroupedMatmul,AI_CORE,{:.3f},{},"
                           "\"{},7168;8,7168,4096;8\"\n",
                           k, 1000 + k * 10000.0 + c * 1000, tokens / 8, tokens);
    tmp.Write(dir + "ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
  }
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "expert_load_imbalance");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 1);
  EXPECT_NE(f->summary.find("Expert-parallel group exp (group_name_7): rank 1 carries the most routed tokens in 3 of "
                            "3 steps"),
            std::string::npos)
      << f->summary;
  EXPECT_NEAR(Number(*f, "mean_peak_to_mean"), 4096.0 / (7 * 1024.0 / 4), 1e-9);
  ASSERT_EQ(f->evidence.size(), 4u);
  EXPECT_NE(f->evidence[1].note.find("rank 1: 8192.0 tokens per step over 6 grouped-matmul calls"), std::string::npos)
      << f->evidence[1].note;
}

TEST(DiagnoseTest, AicpuFallbackNamesItsDtypeAndTheWayBackToAiCore) {
  TempDir tmp;
  WriteRanks(tmp, {"Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Data Types\n"
                   "1,MatMul,MatMul,AI_CORE,1000.000,100,FLOAT16;FLOAT16\n"
                   "1,NonZero,NonZero,AI_CPU,1100.000,200,INT64\n"
                   "1,Add,Add,AI_VECTOR_CORE,1300.000,100,FLOAT16;FLOAT16\n"});
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "aicpu_on_critical_path");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("most with input dtypes INT64"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("cast to float16 / float32 / int32"), std::string::npos) << f->summary;
  EXPECT_NE(f->evidence[0].note.find("NonZero (input dtypes INT64)"), std::string::npos) << f->evidence[0].note;
}

TEST(DiagnoseTest, ExposedAicpuOperatorIsOnTheCriticalPath) {
  TempDir tmp;
  WriteAicpuRoot(tmp);
  AnalysisResult r = Analyze(tmp.path());
  const Finding* f = FindType(r, "aicpu_on_critical_path");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(Number(*f, "exposed_us"), 200, 1e-9);
  ASSERT_EQ(f->evidence.size(), 1u);
  EXPECT_EQ(f->evidence[0].row_first, 3u);  // the NonZero row
  EXPECT_NE(f->evidence[0].note.find("NonZero"), std::string::npos) << f->evidence[0].note;
}

TEST(DiagnoseTest, EveryFindingCarriesEvidence) {
  auto check = [](const AnalysisResult& r, const std::string& root) {
    for (const Finding& f : r.findings) EXPECT_FALSE(f.evidence.empty()) << root << ": " << f.type << " " << f.summary;
  };
  for (const char* s : {"synthetic_8rank", "tp_l1_text", "tp_l0_text", "tp_l1_db", "tp_l0_db", "st_l2", "msprof_minimal"})
    check(Analyze(Sample(s)), s);
  for (auto write : {WriteOrdinalSkewRoot, WriteCollectiveSkewRoot, WriteGapRoot, WriteAicpuRoot}) {
    TempDir tmp;
    write(tmp);
    AnalysisResult r = Analyze(tmp.path());
    EXPECT_FALSE(r.findings.empty());
    check(r, tmp.path().string());
  }
}

}  // namespace
}  // namespace optrace::analyze

namespace optrace::analyze {
namespace {

// Two ranks run the same 48 dispatch calls; rank 1's take 160 us instead of 100 us. Matmuls are
// equal. The collectives do not vote (no HCCL ops), only the operator comparison can see it.
void WriteDispatchRank(const testing::TempDir& tmp, int rank, double dispatch_us,
                       const std::string& op = "MoeDispatchCustom", const std::string& core = "AI_VECTOR_CORE") {
  std::string csv = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us)\n";
  double t = 1736405444000000.0;
  for (int i = 0; i < 48; ++i) {
    csv += fmt::format("1,{},{},{},{:.3f}\t,{:.3f},0\n", op, op, core, t, dispatch_us);
    t += 200;
    csv += fmt::format("1,MatMulV2,MatMulV2,AI_CORE,{:.3f}\t,{:.3f},0\n", t, 50.0 + (i % 3));
    t += 100;
  }
  tmp.Write(fmt::format("job/r{}_ascend_pt/profiler_info_{}.json", rank, rank), "{}");
  tmp.Write(fmt::format("job/r{}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", rank), csv);
}

TEST(DiagnoseTest, OperatorConsistentlySlowerOnOneRankIsAFinding) {
  testing::TempDir tmp;
  WriteDispatchRank(tmp, 0, 100);
  WriteDispatchRank(tmp, 1, 160);
  AnalysisResult r = testing::Analyze(tmp.path() / "job");
  const Finding* slow = nullptr;
  for (const Finding& f : r.findings)
    if (f.type == "slow_operator") slow = &f;
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->rank, 1);
  EXPECT_EQ(slow->ranks, (std::vector<int>{1}));
  EXPECT_NE(slow->summary.find("MoeDispatchCustom on rank 1, median 160.0 us vs 100.0 us over 48 calls (1.60x"),
            std::string::npos)
      << slow->summary;
  ASSERT_EQ(slow->evidence.size(), 1u);  // the matmul is not slower
  EXPECT_EQ(slow->evidence[0].row_first, 2u);
  EXPECT_EQ(slow->evidence[0].row_last, 96u);
}

TEST(DiagnoseTest, SlowOperatorIsMeasuredAgainstTheMedianOfTheOtherRanksOnly) {
  // Issue 29.9: the others' median now comes from one sorted array per operator; the rank under
  // test must be the one taken out (others of rank 3: 96, 100, 102, 104 -> 101).
  testing::TempDir tmp;
  const double us[] = {100, 104, 96, 200, 102};
  for (int r = 0; r < 5; ++r) WriteDispatchRank(tmp, r, us[r]);
  AnalysisResult r = testing::Analyze(tmp.path() / "job");
  const Finding* slow = nullptr;
  for (const Finding& f : r.findings)
    if (f.type == "slow_operator") slow = &f;
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->ranks, (std::vector<int>{3}));
  EXPECT_NE(slow->summary.find("median 200.0 us vs 101.0 us over 48 calls (1.98x"), std::string::npos) << slow->summary;
}

TEST(DiagnoseTest, AFusedCommunicationOperatorSlowerOnOneRankIsNamed) {
  // Issue 26.1: DispatchFFNCombine (mix_comm_aiv) 1.6x slower in 48 of 48 calls on rank 2 only.
  testing::TempDir tmp;
  for (int r = 0; r < 4; ++r) WriteDispatchRank(tmp, r, r == 2 ? 160 : 100, "DispatchFFNCombine", "MIX_AIV");
  AnalysisResult r = testing::Analyze(tmp.path() / "job");
  const Finding* slow = nullptr;
  for (const Finding& f : r.findings)
    if (f.type == "slow_operator") slow = &f;
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->ranks, (std::vector<int>{2}));
  EXPECT_NE(slow->summary.find("DispatchFFNCombine on rank 2, median 160.0 us vs 100.0 us over 48 calls"),
            std::string::npos)
      << slow->summary;
  EXPECT_NE(slow->evidence[0].note.find("fused communication + compute"), std::string::npos);
}

TEST(DiagnoseTest, EqualOperatorsOnAllRanksAreNoSlowOperator) {
  testing::TempDir tmp;
  WriteDispatchRank(tmp, 0, 100);
  WriteDispatchRank(tmp, 1, 110);  // 1.1x: below slow_operator_ratio
  AnalysisResult r = testing::Analyze(tmp.path() / "job");
  for (const Finding& f : r.findings) EXPECT_NE(f.type, "slow_operator") << f.summary;
}

// Level1 kernel_details carries OP State (real exports: "dynamic", "static", "N/A" for HCCL).
std::string OpStateCsv(const char* matmul_state) {
  std::string csv = "Step Id,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),aic_mac_time(us)\n";
  for (int s = 1; s <= 3; ++s) {
    int64_t t0 = 1700000000000000 + s * 10000;
    csv += fmt::format("{},MatMul,MatMul,{},AI_CORE,{}.0,800.0,400.0\n", s, matmul_state, t0);
    csv += fmt::format("{},Add,Add,static,AI_VECTOR_CORE,{}.0,200.0,N/A\n", s, t0 + 900);
    csv += fmt::format("{},hcom_allReduce__1_0_1,hcom_allReduce_,N/A,HCCL,{}.0,100.0,N/A\n", s, t0 + 1200);
  }
  return csv;
}

TEST(DiagnoseTest, OpStateIsCountedPerOperatorAndIsNoPipelineData) {
  TempDir tmp;
  WriteRanks(tmp, {OpStateCsv("dynamic")});
  AnalysisResult r = Analyze(tmp.path());
  std::map<std::string, std::pair<uint64_t, uint64_t>> calls;  // name -> dynamic, static
  double dynamic_us = 0, static_us = 0;
  for (const OperatorSummary& o : r.summaries.operators) {
    calls[std::string(r.strings.Get(o.name))] = {o.dynamic_calls, o.static_calls};
    dynamic_us += o.dynamic_us;
    static_us += o.static_us;
  }
  EXPECT_EQ(calls["MatMul"], (std::pair<uint64_t, uint64_t>{3, 0}));
  EXPECT_EQ(calls["Add"], (std::pair<uint64_t, uint64_t>{0, 3}));
  EXPECT_EQ(calls["hcom_allReduce__1_0_1"], (std::pair<uint64_t, uint64_t>{0, 0}));  // "N/A"
  EXPECT_DOUBLE_EQ(dynamic_us, 2400.0);
  EXPECT_DOUBLE_EQ(static_us, 600.0);
  // Only MatMul's rows carry aic_mac_time: the OP State alone is not pipeline data.
  EXPECT_EQ(r.summaries.events_with_pipeline, 3u);
  // Dynamic is what default binary kernels report: a view, never a finding by itself.
  for (const Finding& f : r.findings) EXPECT_EQ(f.summary.find("dynamic"), std::string::npos) << f.summary;
}

}  // namespace
}  // namespace optrace::analyze
