#include "analyze/report/table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace optrace::analyze::report {
namespace {

TEST(TableTest, NumbersRoundToSixDecimalsInShortestForm) {
  EXPECT_EQ(FormatNumber(0.1 + 0.2), "0.3");
  EXPECT_EQ(FormatNumber(1234.5), "1234.5");
  EXPECT_EQ(FormatNumber(3.0), "3");
  EXPECT_EQ(FormatNumber(0.1234567), "0.123457");
  EXPECT_EQ(FormatNumber(-0.0000001), "0");
}

TEST(TableTest, LargeNumbersKeepTheirDigits) { EXPECT_EQ(FormatNumber(1736408883704643.0), "1736408883704643"); }

TEST(TableTest, CellsFormatByType) {
  EXPECT_EQ(FormatCell(Cell()), "");
  EXPECT_EQ(FormatCell(Cell(int64_t{-7})), "-7");
  EXPECT_EQ(FormatCell(Cell(std::string("x"))), "x");
  EXPECT_EQ(FormatCell(OptionalCell(std::nullopt)), "");
  EXPECT_EQ(FormatCell(OptionalCell(2.5)), "2.5");
}

TEST(TableTest, CsvQuotesFieldsWithSeparatorsQuotesAndNewlines) {
  Table t{"t", {"name", "shape"}, {}};
  t.rows.push_back({Cell(std::string("a,b")), Cell(std::string("\"81920,4096\""))});
  t.rows.push_back({Cell(std::string("line\nbreak")), Cell()});
  std::ostringstream out;
  WriteCsv(t, out);
  EXPECT_EQ(out.str(), "name,shape\n\"a,b\",\"\"\"81920,4096\"\"\"\n\"line\nbreak\",\n");
}

TEST(TableTest, ColumnLooksUpByName) {
  Table t{"t", {"a", "b"}, {}};
  EXPECT_EQ(t.Column("b"), 1u);
  EXPECT_FALSE(t.Column("c").has_value());
}

}  // namespace
}  // namespace optrace::analyze::report
