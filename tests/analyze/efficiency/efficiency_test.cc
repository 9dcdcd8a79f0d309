#include "analyze/efficiency/efficiency.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::TempDir;

const char kHeader[] =
    "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim,Input Shapes,"
    "Input Data Types,Output Shapes\n";

// Two identical steps on one rank: a bf16 matmul of 2 x 1024 x 4096 x 2048 FLOPs for 1000 us, an Add
// for 50 us, a Slice (no cost model) for 10 us and an allreduce for 100 us; wall 1160 us a step.
std::string Step(int step, double t0) {
  auto row = [&](const char* name, const char* type, const char* core, double start, double dur, const char* in,
                 const char* dt, const char* out) {
    return fmt::format("{},{},{},{},{:.3f},{},0,20,\"{}\",{},\"{}\"\n", step, name, type, core, t0 + start, dur, in,
                       dt, out);
  };
  return row("aclnnMm_MatMulV2", "MatMulV2", "AI_CORE", 0, 1000, "1024,2048;2048,4096", "DT_BF16;DT_BF16",
             "1024,4096") +
         row("aclnnAdd_Add", "Add", "AI_VECTOR_CORE", 1000, 50, "1024,4096;1024,4096", "DT_BF16;DT_BF16",
             "1024,4096") +
         row("aclnnSlice_Slice", "Slice", "AI_VECTOR_CORE", 1050, 10, "1024,4096;2;2", "DT_BF16;INT64;INT64",
             "1024,2048") +
         row("hcom_allReduce__1_0_1", "hcom_allReduce_", "HCCL", 1060, 100, "N/A", "N/A", "N/A");
}

AnalysisResult CraftedRoot(const TempDir& tmp) {
  tmp.Write("r0_ascend_pt/profiler_info_0.json", "{}");
  tmp.Write("r0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            std::string(kHeader) + Step(1, 1000) + Step(2, 5000));
  return testing::Analyze(tmp.path());
}

HardwarePeaks LabHardware() {
  HardwarePeaks h;
  h.name = "lab";
  h.cube_bf16_tflops = 100;
  h.vector_fp16_tflops = 10;
  h.hbm_bandwidth_gbps = 1000;
  return h;
}

constexpr double kMatmulFlops = 2.0 * 1024 * 4096 * 2048;  // 17.18 GFLOP
constexpr double kMatmulBytes = (1024.0 * 2048 + 2048.0 * 4096 + 1024.0 * 4096) * 2;

const OperatorEfficiency* Find(const AnalysisResult& r, const Efficiency& eff, const std::string& type) {
  for (const OperatorEfficiency& o : eff.operators)
    if (r.Str(o.type) == type) return &o;
  return nullptr;
}

TEST(EfficiencyTest, AchievedTflopsAndPeakShareEqualTheHandComputation) {
  TempDir tmp;
  AnalysisResult r = CraftedRoot(tmp);
  EfficiencyOptions opt;
  opt.hardware = LabHardware();
  Efficiency eff = ComputeEfficiency(r, opt);
  const OperatorEfficiency* mm = Find(r, eff, "MatMulV2");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->calls, 2u);
  EXPECT_DOUBLE_EQ(mm->cost.flops, kMatmulFlops);
  EXPECT_DOUBLE_EQ(mm->cost.bytes, kMatmulBytes);
  EXPECT_NEAR(mm->achieved_tflops, kMatmulFlops / 1000e-6 / 1e12, 1e-9);  // 17.18 TFLOPS
  EXPECT_NEAR(mm->peak_share, kMatmulFlops / 1000e-6 / 1e12 / 100, 1e-12);
  EXPECT_NEAR(mm->achieved_gbps, kMatmulBytes / 1000e-6 / 1e9, 1e-9);
}

TEST(EfficiencyTest, TheReclaimRankingUsesTheSustainedRoofline) {
  TempDir tmp;
  AnalysisResult r = CraftedRoot(tmp);
  EfficiencyOptions opt;
  opt.hardware = LabHardware();
  Efficiency eff = ComputeEfficiency(r, opt);
  const OperatorEfficiency* mm = Find(r, eff, "MatMulV2");
  ASSERT_NE(mm, nullptr);
  // Compute roof: 17.18 GFLOP at 0.95 x 100 TFLOPS = 180.8 us > memory roof 29.4 MB at 1000 GB/s.
  EXPECT_EQ(mm->sustained_factor, 0.95);
  EXPECT_EQ(mm->bound, "compute");
  double attainable = kMatmulFlops / (95e12) * 1e6;
  EXPECT_NEAR(mm->attainable_us, attainable, 1e-9);
  EXPECT_NEAR(mm->reclaim_us, 2000 - 2 * attainable, 1e-6);
  // The Add is bytes-bound: 3 x 4 Mi elements x 2 bytes at 1000 GB/s.
  const OperatorEfficiency* add = Find(r, eff, "Add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->bound, "memory");
  EXPECT_NEAR(add->attainable_us, 3 * 1024.0 * 4096 * 2 / 1e12 * 1e6, 1e-9);  // 25.2 us
  EXPECT_EQ(eff.operators.front().type, mm->type);  // most to reclaim first
}

TEST(EfficiencyTest, MfuIsCubeFlopsOverStepWallTimesTheTheoreticalPeak) {
  TempDir tmp;
  AnalysisResult r = CraftedRoot(tmp);
  EfficiencyOptions opt;
  opt.hardware = LabHardware();
  Efficiency eff = ComputeEfficiency(r, opt);
  EXPECT_EQ(eff.mfu_dtype, "bf16");
  EXPECT_EQ(eff.mfu_peak_tflops, 100);
  ASSERT_FALSE(eff.mfu.empty());
  const MfuRow& rank = eff.mfu.front();
  EXPECT_EQ(rank.scope, "rank");
  EXPECT_EQ(rank.steps, 2);
  EXPECT_NEAR(rank.wall_ms, 2 * 1.160, 1e-9);
  EXPECT_DOUBLE_EQ(rank.cube_flops, 2 * kMatmulFlops);
  EXPECT_NEAR(rank.mfu, 2 * kMatmulFlops / (2 * 1160e-6) / 100e12, 1e-12);  // 14.8%
  EXPECT_NEAR(rank.modelled_compute_share, 1050.0 / 1060.0, 1e-12);
  bool step_class = false;
  for (const MfuRow& m : eff.mfu) step_class |= m.scope == "step_class" && m.steps == 2 && std::fabs(m.mfu - rank.mfu) < 1e-12;
  EXPECT_TRUE(step_class);
}

TEST(EfficiencyTest, UnmodelledOperatorsAreListedNeverEstimated) {
  TempDir tmp;
  AnalysisResult r = CraftedRoot(tmp);
  Efficiency eff = ComputeEfficiency(r, {});
  ASSERT_EQ(eff.unmodelled.size(), 1u);
  EXPECT_EQ(r.Str(eff.unmodelled[0].type), "Slice");
  EXPECT_EQ(eff.unmodelled[0].calls, 2u);
  EXPECT_NEAR(eff.unmodelled[0].total_us, 20, 1e-9);
  EXPECT_EQ(Find(r, eff, "Slice"), nullptr);
  EXPECT_EQ(eff.modelled_calls, 4u);
  EXPECT_EQ(eff.compute_calls, 6u);  // the allreduce is communication, not compute
}

TEST(EfficiencyTest, WithoutHardwareFlopsAreKeptAndNoMfuOrRooflineIsInvented) {
  TempDir tmp;
  AnalysisResult r = CraftedRoot(tmp);
  EfficiencyOptions opt;
  opt.hardware_note = "none given";
  Efficiency eff = ComputeEfficiency(r, opt);
  const OperatorEfficiency* mm = Find(r, eff, "MatMulV2");
  ASSERT_NE(mm, nullptr);
  EXPECT_DOUBLE_EQ(mm->cost.flops, kMatmulFlops);
  EXPECT_TRUE(std::isnan(mm->peak_share));
  EXPECT_TRUE(std::isnan(mm->reclaim_us));
  EXPECT_TRUE(mm->bound.empty());
  EXPECT_TRUE(std::isnan(eff.mfu.front().mfu));
  EXPECT_FALSE(std::isnan(eff.mfu.front().achieved_tflops));
}

TEST(EfficiencyTest, AVectorOpWithoutAMemoryRoofGetsNoRoofline) {
  TempDir tmp;
  AnalysisResult r = CraftedRoot(tmp);
  EfficiencyOptions opt;
  opt.hardware = LabHardware();
  opt.hardware->hbm_bandwidth_gbps = NAN;
  Efficiency eff = ComputeEfficiency(r, opt);
  const OperatorEfficiency* add = Find(r, eff, "Add");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(std::isnan(add->reclaim_us));
  const OperatorEfficiency* mm = Find(r, eff, "MatMulV2");
  EXPECT_EQ(mm->bound, "compute (no memory roof)");
}

TEST(EfficiencyTest, CostOfAnEventIsItsShapeInstance) {
  TempDir tmp;
  AnalysisResult r = CraftedRoot(tmp);
  Efficiency eff = ComputeEfficiency(r, {});
  int modelled = 0;
  for (const Event& e : r.ranks[0].events)
    if (const OpCost* c = eff.CostOf(e)) {
      ++modelled;
      if (r.Str(e.type) == "MatMulV2") {
        EXPECT_DOUBLE_EQ(c->flops, kMatmulFlops);
      }
    }
  EXPECT_EQ(modelled, 4);
}

}  // namespace
}  // namespace optrace::analyze
