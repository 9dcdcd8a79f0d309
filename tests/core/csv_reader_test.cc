#include "core/csv_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace optrace {
namespace {

std::vector<std::vector<std::string>> ReadAll(CsvReader& r) {
  std::vector<std::vector<std::string>> rows;
  CsvRecord rec;
  for (;;) {
    auto more = r.Next(rec);
    EXPECT_TRUE(more.ok()) << more.status().message();
    if (!more.ok() || !*more) break;
    rows.emplace_back(rec.fields.begin(), rec.fields.end());
  }
  return rows;
}

TEST(CsvReaderTest, SplitsPlainRowsWithLfAndCrlf) {
  auto r = CsvReader::FromString("a,b,c\r\n1,2,3\n4,,6", "t.csv");
  auto rows = ReadAll(r);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"4", "", "6"}));
}

TEST(CsvReaderTest, TripleQuotedShapeKeepsItsInnerQuotes) {
  auto r = CsvReader::FromString("Name,Input Shapes\nmm,\"\"\"81920,4096;8192,512\"\"\"\n", "k.csv");
  auto rows = ReadAll(r);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][1], "\"81920,4096;8192,512\"");
}

TEST(CsvReaderTest, QuotedFieldMaySpanLinesAndLineNumbersFollow) {
  auto r = CsvReader::FromString("h1,h2\n\"a;\r\nb\",x\nlast,y\n", "op.csv");
  CsvRecord rec;
  ASSERT_TRUE(*r.Next(rec));
  ASSERT_TRUE(*r.Next(rec));
  EXPECT_EQ(rec.line, 2u);
  EXPECT_EQ(rec.Field(0), "a;\r\nb");
  ASSERT_TRUE(*r.Next(rec));
  EXPECT_EQ(rec.line, 4u);
  EXPECT_EQ(rec.Field(0), "last");
}

TEST(CsvReaderTest, TrailingCommaGivesEmptyLastField) {
  auto r = CsvReader::FromString("block_id,sub_block_id,\n0,cube0,\n", "PipeUtilization.csv");
  auto rows = ReadAll(r);
  ASSERT_EQ(rows[0].size(), 3u);
  EXPECT_EQ(rows[1][2], "");
}

TEST(CsvReaderTest, UnclosedQuoteAtEndOfFileIsAnErrorWithLine) {
  auto r = CsvReader::FromString("a,b\n1,\"oops\n", "bad.csv");
  CsvRecord rec;
  ASSERT_TRUE(*r.Next(rec));
  auto more = r.Next(rec);
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.status().message().find("bad.csv: line 2: a quoted field is never closed"), std::string::npos);
}

TEST(CsvReaderTest, NumbersTolerateTabsAndMissingMarkers) {
  EXPECT_DOUBLE_EQ(*ParseCsvNumber("1736408883704643.212\t"), 1736408883704643.212);
  EXPECT_FALSE(ParseCsvNumber("N/A").has_value());
  EXPECT_FALSE(ParseCsvNumber("").has_value());
  EXPECT_FALSE(ParseCsvNumber("abc").has_value());
  EXPECT_DOUBLE_EQ(*ParseCsvNumber("1.73641057643165e+15"), 1.73641057643165e+15);
  EXPECT_EQ(*ParseCsvInt("4294967295"), 4294967295);
  EXPECT_EQ(*ParseCsvInt("12.0"), 12);
  EXPECT_TRUE(IsMissingCsvValue(" NA "));
}

TEST(CsvReaderTest, HeaderFindsColumnsByNameAndAlternatives) {
  auto r = CsvReader::FromString("Step Id,Name,Block Num\n", "k.csv");
  CsvRecord rec;
  ASSERT_TRUE(*r.Next(rec));
  CsvHeader h(rec);
  EXPECT_EQ(h.Find("Name"), 1u);
  EXPECT_EQ(h.FindAny({"Block Dim", "Block Num"}), 2u);
  EXPECT_FALSE(h.Find("Duration(us)").has_value());
}

TEST(CsvReaderTest, StreamsRecordsLargerThanTheBufferFromAFile) {
  auto path = std::filesystem::temp_directory_path() / ("optrace_csv_" + std::to_string(::getpid()) + ".csv");
  std::string big(10000, 'x');
  {
    std::ofstream f(path, std::ios::binary);
    f << "\xEF\xBB\xBF" << "a,b\n";
    for (int i = 0; i < 100; ++i) f << i << ",\"" << big << "\n" << i << "\"\r\n";
  }
  auto r = CsvReader::Open(path, 4096);
  ASSERT_TRUE(r.ok());
  auto rows = ReadAll(*r);
  std::filesystem::remove(path);
  ASSERT_EQ(rows.size(), 101u);
  EXPECT_EQ(rows[0][0], "a");  // BOM stripped
  EXPECT_EQ(rows[100][0], "99");
  EXPECT_EQ(rows[100][1], big + "\n99");
}

}  // namespace
}  // namespace optrace
