#include "core/csv_writer.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(CsvCell, PlainTextAndNumbersAreUnchanged) {
  EXPECT_EQ(CsvCell("MatMulV2"), "MatMulV2");
  EXPECT_EQ(CsvCell("-1.5"), "-1.5");
  EXPECT_EQ(CsvCell("+3e4"), "+3e4");
  EXPECT_EQ(CsvCell(""), "");
}

TEST(CsvCell, QuotesFieldsWithCommasQuotesAndNewlines) {
  EXPECT_EQ(CsvCell("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvCell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvCell("two\nlines"), "\"two\nlines\"");
}

TEST(CsvCell, AFormulaIsWrittenAsText) {
  // OWASP's CSV injection: = + - @ TAB CR start a formula in Excel, LibreOffice and Sheets.
  EXPECT_EQ(CsvCell("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
  EXPECT_EQ(CsvCell("+HYPERLINK(\"http://x\")"), "\"'+HYPERLINK(\"\"http://x\"\")\"");
  EXPECT_EQ(CsvCell("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(CsvCell("-2+3+cmd|' /C calc'!A0"), "'-2+3+cmd|' /C calc'!A0");
  EXPECT_EQ(CsvCell("\t=1"), "'\t=1");
  EXPECT_EQ(CsvCell("\r=1"), "\"'\r=1\"");
}

}  // namespace
}  // namespace optrace
