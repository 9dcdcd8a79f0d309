#include "analyze/report/xlsx_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyze/report/zip_reader.h"

namespace optrace::analyze::report {
namespace {
namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path TempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("optrace_xlsx_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(XlsxWriterTest, WritesOneSheetPerTableWithHeaderAndValues) {
  Table ops{"operator_summary", {"name", "rank", "count", "total_us"}, {}};
  ops.rows.push_back({Cell(std::string("MatMulV2")), Cell(int64_t{0}), Cell(int64_t{3}), Cell(1234.5)});
  Table steps{"step_summary", {"rank", "wall_ms"}, {{Cell(int64_t{1}), Cell()}}};
  fs::path dir = TempDir("sheets");
  ASSERT_TRUE(WriteXlsx({&ops, &steps}, dir / "report.xlsx").ok());
  EXPECT_FALSE(fs::exists(dir / "report.xlsx.tmp"));
  auto files = analyze::testing::UnzipAll(Slurp(dir / "report.xlsx"));
  ASSERT_TRUE(files.count("xl/workbook.xml"));
  EXPECT_NE(files["xl/workbook.xml"].find("name=\"operator_summary\""), std::string::npos);
  EXPECT_NE(files["xl/workbook.xml"].find("name=\"step_summary\""), std::string::npos);
  ASSERT_TRUE(files.count("xl/worksheets/sheet1.xml"));
  const std::string& sheet = files["xl/worksheets/sheet1.xml"];
  EXPECT_NE(sheet.find("MatMulV2"), std::string::npos);  // constant-memory mode writes inline strings
  EXPECT_NE(sheet.find("total_us"), std::string::npos);
  EXPECT_NE(sheet.find("<v>1234.5</v>"), std::string::npos);
  fs::remove_all(dir);
}

TEST(XlsxWriterTest, SheetNamesAreCutAndCleanedForExcel) {
  EXPECT_EQ(XlsxSheetName("operator_efficiency_summary_with_a_long_tail"), "operator_efficiency_summary_wit");
  EXPECT_EQ(XlsxSheetName("a/b:c"), "a_b_c");
  EXPECT_EQ(XlsxSheetName(""), "sheet");
}

TEST(XlsxWriterTest, UnwritableDirectoryIsAnErrorNamingThePath) {
  Table t{"t", {"a"}, {}};
  Status s = WriteXlsx({&t}, "/nonexistent_dir_for_optrace/report.xlsx");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent_dir_for_optrace/report.xlsx"), std::string::npos);
}

}  // namespace
}  // namespace optrace::analyze::report
