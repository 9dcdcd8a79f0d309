// Golden-file comparison for the report writer tests.
//
//   ExpectMatchesGolden("operator_summary.csv", text);
//
// Goldens live in tests/data/analyze/report/. OPTRACE_UPDATE_GOLDENS=1 rewrites them from the
// actual output (then review the diff and commit it).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace optrace::analyze::testing {

inline std::filesystem::path ReportGoldenDir() {
  return std::filesystem::path(OPTRACE_TEST_DATA_DIR) / "analyze" / "report";
}

inline void ExpectMatchesGolden(const std::string& name, const std::string& actual) {
  std::filesystem::path path = ReportGoldenDir() / name;
  const char* update = std::getenv("OPTRACE_UPDATE_GOLDENS");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing; run with OPTRACE_UPDATE_GOLDENS=1 to create it";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << path
                                    << " (OPTRACE_UPDATE_GOLDENS=1 rewrites it; review the diff)";
}

}  // namespace optrace::analyze::testing
