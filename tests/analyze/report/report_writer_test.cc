#include "analyze/report/report_writer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analyze/analyze_test_util.h"
#include "analyze/report/golden.h"
#include "analyze/report/report_fixture.h"

namespace optrace::analyze::report {
namespace {
namespace fs = std::filesystem;
using analyze::testing::ExpectMatchesGolden;
using analyze::testing::MakeReportFixture;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ReportWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("optrace_report_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// Timings and byte counts change run to run (and with the page template): zero them.
nlohmann::ordered_json NormalizeManifest(nlohmann::ordered_json m) {
  for (auto& s : m["stages"]) s["seconds"] = 0;
  m["total_seconds"] = 0;
  for (auto& a : m["artifacts"]) {
    a["seconds"] = 0;
    a["bytes"] = 0;
  }
  return m;
}

TEST_F(ReportWriterTest, FastModeWritesTheWholeReportSet) {
  ReportOptions opt;
  opt.out_dir = dir_;
  opt.generator = "optrace test";
  auto written = WriteReport(MakeReportFixture(), opt);
  ASSERT_TRUE(written.ok()) << written.status().message();
  for (const char* f : {"report.md", "analysis_summary.json", "diagnosis_findings.json", "report.html",
                        "operator_summary.csv", "operator_class_summary.csv", "hccl_op_summary.csv",
                        "hccl_class_summary.csv", "step_summary.csv", "step_anatomy.csv", "rank_summary.csv",
                        "step_class_summary.csv", "layer_class_summary.csv", "block_class_summary.csv",
                        "cross_rank_step_summary.csv", "manifest.json"})
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  EXPECT_FALSE(fs::exists(dir_ / "report.xlsx"));
  EXPECT_FALSE(fs::exists(dir_ / "normalized_event_index.csv"));
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  EXPECT_EQ(written->artifacts.back().key, "manifest_json");
}

TEST_F(ReportWriterTest, ManifestMatchesGoldenWithTimingsNormalized) {
  ReportOptions opt;
  opt.out_dir = dir_;
  opt.generator = "optrace test";
  ASSERT_TRUE(WriteReport(MakeReportFixture(), opt).ok());
  auto manifest = nlohmann::ordered_json::parse(Slurp(dir_ / "manifest.json"));
  ExpectMatchesGolden("manifest.json", NormalizeManifest(manifest).dump(2) + "\n");
}

TEST_F(ReportWriterTest, ManifestListsStageTimingsAndReportStage) {
  ReportOptions opt;
  opt.out_dir = dir_;
  ASSERT_TRUE(WriteReport(MakeReportFixture(), opt).ok());
  auto m = nlohmann::json::parse(Slurp(dir_ / "manifest.json"));
  ASSERT_EQ(m["stages"].size(), 4u);  // discover, normalize, segment (fixture) + report
  EXPECT_EQ(m["stages"][1]["stage"], "normalize");
  EXPECT_DOUBLE_EQ(m["stages"][1]["seconds"].get<double>(), 0.2);
  EXPECT_EQ(m["stages"][3]["stage"], "report");
  EXPECT_EQ(m["counts"]["events"], 24);
}

// With a second thread the efficiency model is built beside the summary tables: every file is the
// same as when one thread builds them in turn.
TEST_F(ReportWriterTest, SecondThreadWritesTheSameFiles) {
  const AnalysisResult fixture = MakeReportFixture();
  std::map<std::string, std::string> files[2];
  for (int threads : {1, 2}) {
    ReportOptions opt;
    opt.out_dir = dir_ / fmt::format("threads_{}", threads);
    opt.generator = "optrace test";
    opt.threads = threads;
    ASSERT_TRUE(WriteReport(fixture, opt).ok());
    for (const auto& entry : fs::recursive_directory_iterator(opt.out_dir)) {
      if (!entry.is_regular_file()) continue;
      std::string rel = fs::relative(entry.path(), opt.out_dir).string();
      files[threads - 1][rel] = rel == "manifest.json"
                                    ? NormalizeManifest(nlohmann::ordered_json::parse(Slurp(entry.path()))).dump()
                                    : Slurp(entry.path());
    }
  }
  ASSERT_GT(files[0].size(), 10u);
  ASSERT_TRUE(files[0].count("report.html"));
  for (const auto& [name, text] : files[0]) {
    ASSERT_TRUE(files[1].count(name)) << name;
    EXPECT_EQ(files[1][name], text) << name;
  }
  EXPECT_EQ(files[1].size(), files[0].size());
}

TEST_F(ReportWriterTest, FullModeAddsWorkbookAndEventIndex) {
  ReportOptions opt;
  opt.out_dir = dir_;
  opt.full = true;
  auto written = WriteReport(MakeReportFixture(), opt);
  ASSERT_TRUE(written.ok()) << written.status().message();
  for (const char* f : {"report.xlsx", "normalized_event_index.csv", "layer_summary.csv", "block_summary.csv",
                        "collective_alignment.csv"})
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  auto summary = nlohmann::json::parse(Slurp(dir_ / "analysis_summary.json"));
  EXPECT_EQ(summary["identity"]["mode"], "full");
  EXPECT_EQ(summary["artifacts"]["report_xlsx"], "report.xlsx");
}

TEST_F(ReportWriterTest, FastRunRemovesTheFullModeArtifactsOfAnEarlierRun) {
  ReportOptions opt;
  opt.out_dir = dir_;
  opt.full = true;
  ASSERT_TRUE(WriteReport(MakeReportFixture(), opt).ok());
  std::ofstream(dir_ / "notes.txt") << "mine";  // not an artifact: left alone
  opt.full = false;
  ASSERT_TRUE(WriteReport(MakeReportFixture(), opt).ok());
  for (const char* f : {"report.xlsx", "normalized_event_index.csv", "layer_summary.csv", "block_summary.csv",
                        "collective_alignment.csv"})
    EXPECT_FALSE(fs::exists(dir_ / f)) << f;
  EXPECT_TRUE(fs::exists(dir_ / "notes.txt"));
  // Every artifact file in OUT is in manifest.json.
  auto m = nlohmann::json::parse(Slurp(dir_ / "manifest.json"));
  std::set<std::string> listed;
  for (const auto& a : m["artifacts"]) listed.insert(a["file"].get<std::string>());
  for (const auto& entry : fs::directory_iterator(dir_)) {
    std::string name = entry.path().filename().string();
    if (name == "notes.txt" || name == "manifest.json" || entry.is_directory()) continue;
    EXPECT_TRUE(listed.count(name)) << name;
  }
}

TEST_F(ReportWriterTest, EveryArtifactInTheSummaryMapExists) {
  ReportOptions opt;
  opt.out_dir = dir_;
  opt.full = true;
  ASSERT_TRUE(WriteReport(MakeReportFixture(), opt).ok());
  auto summary = nlohmann::json::parse(Slurp(dir_ / "analysis_summary.json"));
  for (const auto& [key, file] : summary["artifacts"].items())
    EXPECT_TRUE(fs::exists(dir_ / file.get<std::string>())) << key;
}

// Issue 29.12: 400k one-row steps took 17 s and 3.99 GB and wrote a 141 MB report.html. The
// documents are bounded (top-N with totals); every step is in the CSVs.
TEST_F(ReportWriterTest, ManyStepsGiveBoundedDocumentsAndCompleteCsvs) {
  analyze::testing::TempDir tmp;
  std::string csv = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us)\n";
  double t = 1736405444000000.0;
  for (int i = 0; i < 3000; ++i, t += 100)
    csv += fmt::format("{},MatMulV2,MatMulV2,AI_CORE,{:.3f}\t,{:.3f},0\n", i + 1, t, 50.0 + (i % 7));
  tmp.Write("job/r0_ascend_pt/profiler_info_0.json", "{}");
  tmp.Write("job/r0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
  AnalysisResult r = analyze::testing::Analyze(tmp.path() / "job");
  ASSERT_EQ(r.steps.size(), 3000u);
  ReportOptions opt;
  opt.out_dir = dir_;
  ASSERT_TRUE(WriteReport(r, opt).ok());

  std::string steps_csv = Slurp(dir_ / "step_summary.csv");
  EXPECT_EQ(std::count(steps_csv.begin(), steps_csv.end(), '\n'), 3001);

  std::string md = Slurp(dir_ / "report.md");
  size_t inv = md.find("## 8. Step Inventory"), next = md.find("## 9.", inv);
  ASSERT_NE(inv, std::string::npos);
  std::string section = md.substr(inv, next - inv);
  EXPECT_LE(std::count(section.begin(), section.end(), '\n'), 50);
  EXPECT_NE(section.find("The 40 heaviest of 3000 (step class, layers) groups"), std::string::npos) << section;

  auto summary = nlohmann::json::parse(Slurp(dir_ / "analysis_summary.json"));
  size_t step_class_rows = 0;
  for (const auto& m : summary["efficiency"]["mfu"]) step_class_rows += m["scope"] == "step_class";
  EXPECT_EQ(step_class_rows, 32u);
  EXPECT_EQ(summary["efficiency"]["mfu_rows_total"]["step_class"], 3000);

  std::string html = Slurp(dir_ / "report.html");
  EXPECT_NE(html.find("2000 heaviest of 3000 steps"), std::string::npos);
  EXPECT_LT(html.size(), 3'000'000u);
}

TEST_F(ReportWriterTest, OutputDirectoryThatIsAFileIsAnError) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  ReportOptions opt;
  opt.out_dir = dir_ / "file";
  auto written = WriteReport(MakeReportFixture(), opt);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find((dir_ / "file").string()), std::string::npos);
}

}  // namespace
}  // namespace optrace::analyze::report
