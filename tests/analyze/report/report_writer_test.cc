#include "analyze/report/report_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

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
