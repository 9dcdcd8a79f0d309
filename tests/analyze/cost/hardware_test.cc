#include "analyze/cost/hardware.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analyze/analyze_test_util.h"
#include "testing/temp_tree.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace optrace::analyze {
namespace {

using testing::TempDir;

const std::vector<HardwarePeaks>& Table() {
  static const Rules rules = testing::BuiltinRules();
  return rules.hardware;
}

TEST(HardwareTest, BundledTableDerivesCubePeaksFromCoresAndClock) {
  auto h = HardwareByName(Table(), "Ascend910B3");
  ASSERT_TRUE(h.ok()) << h.status().message();
  // 16x16x16 MACs x 20 cube cores x 1800 MHz x 2 FLOPs.
  EXPECT_NEAR(h->cube_bf16_tflops, 4096.0 * 20 * 1800 * 2 / 1e6, 0.01);
  EXPECT_NEAR(h->cube_int8_tops, 2 * h->cube_bf16_tflops, 0.02);
  EXPECT_EQ(h->PeakTflops("bf16"), h->cube_bf16_tflops);
  EXPECT_EQ(h->PeakTflops("int8"), h->cube_int8_tops);
  EXPECT_TRUE(std::isnan(h->PeakTflops("fp32")));  // no public source: left unknown
  EXPECT_NE(h->source.find("--hardware-model"), std::string::npos);
}

TEST(HardwareTest, EveryBundledNumberCitesASource) {
  for (const HardwarePeaks& h : Table()) {
    for (const char* field : {"cube_core_count", "cube_freq_mhz"})
      EXPECT_TRUE(h.sources.count(field)) << h.name << " " << field;
  }
  EXPECT_GE(Table().size(), 6u);
}

TEST(HardwareTest, Ascend910AIsInTheTableWithoutABf16Peak) {
  auto h = HardwareByName(Table(), "Ascend910A");
  ASSERT_TRUE(h.ok()) << h.status().message();
  // 16x16x16 MACs x 32 AI cores x 1000 MHz x 2 (CANN 8.1.RC1 platform_config/Ascend910A.ini).
  EXPECT_NEAR(h->cube_fp16_tflops, 262.14, 0.01);
  EXPECT_NEAR(h->vector_fp16_tflops, 128.0 * 32 * 1000 * 2 / 1e6, 0.01);
  EXPECT_TRUE(std::isnan(h->PeakTflops("bf16")));  // 910A has no BF16 cube
}

TEST(HardwareTest, ANameAndAnAliasFindThePartCaseInsensitively) {
  EXPECT_TRUE(HardwareByName(Table(), "ascend910b4").ok());
  auto alias = HardwareByName(Table(), "910B2");
  ASSERT_TRUE(alias.ok());
  EXPECT_EQ(alias->name, "Ascend910B2");
}

TEST(HardwareTest, ACoreCountPastAnyIntIsAnErrorNotACast) {
  // 1e300 was cast to int (undefined behaviour; fuzz_plan_rules, UBSan).
  for (const char* v : {"1e300", "-1", "2.5", "4294967297"}) {
    auto t = ParseHardwareTable(
        "hw.json", fmt::format(R"({{"schema_version": 1, "hardware": [{{"name": "X", "cube_core_count": {}}}]}})", v));
    ASSERT_FALSE(t.ok()) << v;
    EXPECT_NE(t.status().message().find("'cube_core_count' must be a whole number from 0 to 100000"), std::string::npos)
        << t.status().message();
  }
}

TEST(HardwareTest, AFamilyAliasNamingSeveralPartsIsRefused) {
  auto h = HardwareByName(Table(), "910C");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("names several parts"), std::string::npos) << h.status().message();
}

TEST(HardwareTest, AnUnknownNameListsTheKnownParts) {
  auto h = HardwareByName(Table(), "H100");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("Ascend910B1"), std::string::npos) << h.status().message();
  EXPECT_NE(h.status().message().find("--hardware-profile"), std::string::npos);
}

TEST(HardwareTest, AProfileFileGivesThePeaksItNames) {
  TempDir tmp;
  auto p = tmp.Write("hw.json", R"({"name": "lab-npu", "cube_bf16_tflops": 100, "hbm_bandwidth_gbps": 1000})");
  auto h = LoadHardwareProfile(p);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->cube_bf16_tflops, 100);
  EXPECT_EQ(h->hbm_bandwidth_gbps, 1000);
  EXPECT_TRUE(std::isnan(h->cube_fp16_tflops));
  EXPECT_NE(h->source.find("hw.json"), std::string::npos);
}

TEST(HardwareTest, AProfileWithoutAnyPeakIsRefused) {
  TempDir tmp;
  auto h = LoadHardwareProfile(tmp.Write("hw.json", R"({"name": "x", "cube_core_count": 20})"));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("gives no peak"), std::string::npos) << h.status().message();
  auto bad = LoadHardwareProfile(tmp.Write("bad.json", "{name"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not valid JSON"), std::string::npos);
}

const char kIni[] =
    "[version]\nSoC_version=LabSoC\n\n[SoCInfo]\nai_core_cnt=20\ncube_core_cnt=20\nvector_core_cnt=40\n"
    "memory_size=68719476736\n\n[AICoreSpec]\ncube_freq=1800\ncube_m_size=16\ncube_k_size=16\ncube_n_size=16\n"
    "vec_calc_size=128\n\n[DtypeMKN]\nDT_INT8=16,32,16\n";

TEST(HardwareTest, ACannIniGivesCubeAndVectorPeaksAndSaysItIsTheAnalysisHost) {
  TempDir tmp;
  auto ini = tmp.Write("platform_config/LabSoC.ini", kIni);
  auto h = PeaksFromCannIni(Table(), ini);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->name, "LabSoC");
  EXPECT_NEAR(h->cube_fp16_tflops, 294.912, 1e-9);
  EXPECT_NEAR(h->cube_int8_tops, 589.824, 1e-9);
  EXPECT_NEAR(h->vector_fp16_tflops, 128.0 * 40 * 1800 * 2 / 1e6, 1e-9);
  EXPECT_EQ(h->hbm_gb, 64);
  EXPECT_TRUE(std::isnan(h->hbm_bandwidth_gbps));
  EXPECT_NE(h->source.find("LabSoC.ini"), std::string::npos);
  EXPECT_NE(h->provenance.find("not proven to be the capture host"), std::string::npos);
}

TEST(HardwareTest, TheScanTakesTheIniOfTheHostSocOrTheOnlyOne) {
  TempDir tmp;
  tmp.Write("pc/LabSoC.ini", kIni);
  std::vector<std::filesystem::path> dirs = {tmp.path() / "pc"};
  auto only = ScanCannPlatformConfig(Table(), dirs, "");
  ASSERT_TRUE(only.has_value());
  EXPECT_EQ(only->name, "LabSoC");
  std::string other = kIni;
  other.replace(other.find("LabSoC"), 6, "Ascend910B4");
  tmp.Write("pc/Ascend910B4.ini", other);
  EXPECT_FALSE(ScanCannPlatformConfig(Table(), dirs, "").has_value());  // two SoCs, the host's unknown
  auto host = ScanCannPlatformConfig(Table(), dirs, "Ascend910B4");
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->name, "Ascend910B4");
}

}  // namespace
}  // namespace optrace::analyze

namespace optrace::analyze {
namespace {

// Runs `f` with PATH = dir:<old PATH>, restoring PATH after.
template <typename F>
auto WithPathFirst(const std::string& dir, F f) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", (dir + ":" + saved).c_str(), 1);
  auto r = f();
  ::setenv("PATH", saved.c_str(), 1);
  return r;
}

TEST(HostSocFromNpuSmi, ReadsTheSocNpuSmiNames) {
  optrace::testing::TempTree t({{"bin/npu-smi", "#!/bin/sh\necho '| 0     910B3               | OK            |'\n"}});
  std::filesystem::permissions(t.path("bin/npu-smi"), std::filesystem::perms::owner_all);
  EXPECT_EQ(WithPathFirst(t.path("bin"), [] { return HostSocFromNpuSmi(); }), "Ascend910B3");
}

TEST(HostSocFromNpuSmi, AWedgedNpuSmiIsCutAtTheDeadline) {
  // popen("npu-smi info") had no deadline: a wedged driver held analyze forever (issue 53.9).
  optrace::testing::TempTree t({{"bin/npu-smi", "#!/bin/sh\nexec sleep 600\n"}});
  std::filesystem::permissions(t.path("bin/npu-smi"), std::filesystem::perms::owner_all);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(WithPathFirst(t.path("bin"), [] { return HostSocFromNpuSmi(std::chrono::milliseconds(300)); }), "");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

}  // namespace
}  // namespace optrace::analyze
