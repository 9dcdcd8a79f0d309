// Helpers shared by the analyze tests: sample roots, a fresh temp dir, running the pipeline.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "analyze/pipeline/pipeline.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze::testing {

inline std::filesystem::path DataDir() { return std::filesystem::path(OPTRACE_TEST_DATA_DIR) / "analyze"; }
inline std::filesystem::path Sample(const std::string& name) { return DataDir() / name; }

// A fresh directory under the system temp dir, removed at destruction.
class TempDir {
 public:
  TempDir() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("optrace_analyze_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path Write(const std::string& rel, const std::string& text) const {
    std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

inline Rules BuiltinRules() {
  auto r = LoadRules("");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return std::move(r).value();
}

// Runs discover..diagnose on `root` without writing stage files.
inline AnalysisResult Analyze(const std::filesystem::path& root) {
  AnalyzeOptions opt;
  opt.roots = {root};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : AnalysisResult();
}

}  // namespace optrace::analyze::testing
