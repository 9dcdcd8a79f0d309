#include "core/csv_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>

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

// The reader's rules, one byte at a time: a record ends at the first '\n' after an even number
// of quotes; one trailing '\r' is dropped; blank records are skipped; a field that opens with a
// quote is unescaped ("" -> ") up to its closing quote and keeps any text after it up to the
// comma; other fields are cut at commas. Returns (line, fields) per record.
std::vector<std::pair<uint64_t, std::vector<std::string>>> ReferenceSplit(const std::string& text) {
  std::vector<std::pair<uint64_t, std::vector<std::string>>> out;
  size_t at = 0;
  uint64_t line = 1;
  while (at < text.size()) {
    size_t end = at;
    bool quoted = false;
    uint64_t newlines = 0;
    while (end < text.size() && !(text[end] == '\n' && !quoted)) {
      if (text[end] == '"') quoted = !quoted;
      if (text[end] == '\n') ++newlines;
      ++end;
    }
    const size_t next = end < text.size() ? end + 1 : end;
    if (end < text.size()) ++newlines;
    size_t stop = end;
    if (stop > at && text[stop - 1] == '\r') --stop;
    const uint64_t record_line = line;
    line += newlines;
    if (stop > at) {
      std::vector<std::string> fields;
      size_t i = at;
      for (;;) {
        std::string f;
        size_t sep = i;
        if (i < stop && text[i] == '"') {
          size_t r = i + 1;
          while (r < stop) {
            if (text[r] == '"') {
              if (r + 1 < stop && text[r + 1] == '"') {
                f += '"';
                r += 2;
                continue;
              }
              ++r;
              break;
            }
            f += text[r++];
          }
          sep = r;
        }
        while (sep < stop && text[sep] != ',') f += text[sep++];
        fields.push_back(f);
        if (sep >= stop) break;
        i = sep + 1;
        if (i == stop) {
          fields.emplace_back();
          break;
        }
      }
      out.push_back({record_line, fields});
    }
    at = next;
  }
  return out;
}

std::string RandomCsv(std::mt19937& rng, size_t records) {
  // Long records (the 64-byte blocks), quotes, doubled quotes and newlines inside quotes.
  static const std::string alphabet = "abc123,,,\"\"\n\r;. ";
  std::string text;
  size_t quotes = 0;
  for (size_t r = 0; r < records; ++r) {
    const size_t len = rng() % 240;
    for (size_t k = 0; k < len; ++k) {
      char c = alphabet[rng() % alphabet.size()];
      if (c == '\n' && quotes % 2 == 0 && rng() % 4) c = 'n';  // most newlines outside quotes end records
      quotes += c == '"';
      text += c;
    }
    if (quotes % 2 && rng() % 2) {
      text += '"';
      ++quotes;
    }
    text += rng() % 3 ? "\n" : "\r\n";
  }
  if (quotes % 2) text += '"';  // no quote left open at the end of the file
  return text;
}

TEST(CsvReaderTest, BlockScannerAgreesWithTheByteRulesOnRandomText) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const std::string text = RandomCsv(rng, 1 + rng() % 40);
    const auto expected = ReferenceSplit(text);
    auto r = CsvReader::FromString(text, "random.csv");
    CsvRecord rec;
    size_t n = 0;
    for (;; ++n) {
      auto more = r.Next(rec);
      ASSERT_TRUE(more.ok()) << more.status().message();
      if (!*more) break;
      ASSERT_LT(n, expected.size()) << "round " << round;
      EXPECT_EQ(rec.line, expected[n].first) << "round " << round << " record " << n;
      EXPECT_EQ(std::vector<std::string>(rec.fields.begin(), rec.fields.end()), expected[n].second)
          << "round " << round << " record " << n;
    }
    EXPECT_EQ(n, expected.size()) << "round " << round;
  }
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

// The inline fast path (up to 18 plain digits) and the general path meet at 18/19 digits; both
// give what std::from_chars gives, and every other form still goes the general way.
TEST(CsvReaderTest, ParseCsvIntAgreesAcrossItsFastAndGeneralPaths) {
  EXPECT_EQ(*ParseCsvInt(" 123\t"), 123);
  EXPECT_EQ(*ParseCsvInt("-7"), -7);
  EXPECT_EQ(*ParseCsvInt("-0"), 0);
  EXPECT_EQ(*ParseCsvInt("007"), 7);
  EXPECT_EQ(*ParseCsvInt("999999999999999999"), 999999999999999999);     // 18 digits: fast path
  EXPECT_EQ(*ParseCsvInt("-999999999999999999"), -999999999999999999);
  EXPECT_EQ(*ParseCsvInt("9223372036854775807"), INT64_MAX);             // 19 digits: general path
  EXPECT_EQ(*ParseCsvInt("+5"), 5);                                      // from_chars refuses '+'; the double path takes it
  EXPECT_EQ(*ParseCsvInt("1e3"), 1000);
  EXPECT_FALSE(ParseCsvInt("-").has_value());
  EXPECT_FALSE(ParseCsvInt("").has_value());
  EXPECT_FALSE(ParseCsvInt("12a").has_value());
  EXPECT_FALSE(ParseCsvInt("1.5").has_value());
  EXPECT_FALSE(ParseCsvInt("99999999999999999999").has_value());         // beyond int64
  EXPECT_FALSE(ParseCsvInt("N/A").has_value());
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

namespace optrace {
namespace {

// Issue 53.5: every file got a 2 MiB buffer (fresh pages the kernel zeroes): 3-4 ms of CPU per
// rank, 35 s for 16,000 two-row kernel_details.csv files. Memory now follows the file.
TEST(CsvReaderTest, ASmallFileGetsABufferOfItsOwnSizeNotTheDefault) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "optrace_csv_small_buffer.csv";
  std::ofstream(p, std::ios::binary) << "a,b\n1,2\n3,4\n";
  Result<CsvReader> r = CsvReader::Open(p);
  ASSERT_TRUE(r.ok());
  EXPECT_LE(r->buffer_bytes(), 4096u);
  EXPECT_EQ(ReadAll(*r).size(), 3u);
  Result<CsvReader> range = CsvReader::OpenRange(p, 4, 8, 2);
  ASSERT_TRUE(range.ok());
  EXPECT_LE(range->buffer_bytes(), 4096u);
  EXPECT_EQ(ReadAll(*range), (std::vector<std::vector<std::string>>{{"1", "2"}}));
}

TEST(CsvReaderTest, ALargeFileKeepsTheDefaultBufferAndARecordLargerThanItStillReads) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "optrace_csv_large_buffer.csv";
  const std::string wide(3u << 20, 'w');
  std::ofstream(p, std::ios::binary) << "h\n" << wide << "\nend\n";
  Result<CsvReader> r = CsvReader::Open(p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->buffer_bytes(), CsvReader::kDefaultBufferBytes);
  const auto rows = ReadAll(*r);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][0].size(), wide.size());
}

}  // namespace
}  // namespace optrace
