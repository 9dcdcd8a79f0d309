// CsvReader: a streaming RFC 4180 reader for profiler exports, built for large files.
//
//   OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open("kernel_details.csv"));
//   CsvRecord rec;
//   OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
//   CsvHeader header(rec);                       // copies the names
//   auto dur = header.Find("Duration(us)");      // columns are found by name
//   while (true) {
//     OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
//     if (!more) break;
//     std::optional<double> d = ParseCsvNumber(rec.Field(*dur));   // "N/A" -> nullopt
//   }
//
// Handles the quirks of real Ascend exports (docs: FORMATS.md section 2): CRLF and LF,
// quoted fields with "" escapes and embedded newlines ("""1,2""" -> "1,2" with its quotes),
// a missing final newline, rows shorter or longer than the header, a UTF-8 BOM. Numbers
// tolerate surrounding spaces/tabs ("1736408883704643.212\t"); N/A, NA and "" are missing.
//
// Memory: a bounded buffer (grows only for a single record larger than it). Field views stay
// valid until the next call to Next().
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace {

struct CsvRecord {
  std::vector<std::string_view> fields;
  uint64_t line = 0;         // 1-based line number where the record starts
  uint64_t byte_offset = 0;  // offset of the record's first byte in the input

  size_t size() const { return fields.size(); }
  // The field at `index`, or "" for a short row.
  std::string_view Field(size_t index) const { return index < fields.size() ? fields[index] : std::string_view(); }
};

class CsvReader {
 public:
  static constexpr size_t kDefaultBufferBytes = 2u << 20;  // one 2 MiB page (see cli/large_block_new.cc)

  static Result<CsvReader> Open(const std::filesystem::path& path, size_t buffer_bytes = kDefaultBufferBytes);
  // The records of `path` that start in [begin, end): the last one may run past `end`. `begin`
  // must be a record start (or the caller checks afterwards that it was: position() of the reader
  // of the range before). Line numbers count from `first_line`. Lets several threads parse one
  // large file, each its own range.
  static Result<CsvReader> OpenRange(const std::filesystem::path& path, uint64_t begin, uint64_t end,
                                     uint64_t first_line, size_t buffer_bytes = kDefaultBufferBytes);
  // For tests and small inputs; `origin` names the input in messages.
  static CsvReader FromString(std::string text, std::string origin);

  CsvReader(CsvReader&&) noexcept;
  CsvReader& operator=(CsvReader&&) noexcept;
  ~CsvReader();

  // Reads the next record into `rec`. Returns false at the end of input. Blank lines are skipped.
  Result<bool> Next(CsvRecord& rec);

  const std::string& origin() const { return origin_; }
  uint64_t bytes_consumed() const { return consumed_; }
  // Offset of the first byte not yet returned in a record (after Next() returned false: where the
  // next range's first record starts), and the line number of that byte.
  uint64_t position() const { return consumed_ + begin_; }
  uint64_t line() const { return line_; }
  // The read buffer's size: the file's size when that is under the default (a cluster root reads
  // thousands of small files), larger only for a record that does not fit.
  size_t buffer_bytes() const { return cap_; }

 private:
  CsvReader() = default;
  Status Refill();  // moves the unparsed tail to the front and reads more

  int fd_ = -1;
  std::string origin_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  size_t begin_ = 0;  // first unparsed byte
  size_t end_ = 0;    // one past the last valid byte
  bool eof_ = false;
  bool first_ = true;      // BOM check pending
  uint64_t consumed_ = 0;  // bytes before buf_[begin_]
  uint64_t line_ = 1;
  uint64_t limit_ = UINT64_MAX;  // no record starts at or after this offset (OpenRange)
};

// Column lookup by header name (exact match after trimming spaces, tabs and quotes).
class CsvHeader {
 public:
  CsvHeader() = default;
  explicit CsvHeader(const CsvRecord& header_record);

  std::optional<size_t> Find(std::string_view name) const;
  // The first of several alternative names that exists ("Block Dim", "Block Num").
  std::optional<size_t> FindAny(std::initializer_list<std::string_view> names) const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
};

// Strips spaces, tabs and CR at both ends. Inline: readers call it for every field of every row.
inline std::string_view TrimCsvField(std::string_view f) {
  size_t b = 0, e = f.size();
  while (b < e && (f[b] == ' ' || f[b] == '\t' || f[b] == '\r')) ++b;
  while (e > b && (f[e - 1] == ' ' || f[e - 1] == '\t' || f[e - 1] == '\r')) --e;
  return f.substr(b, e - b);
}
// True for "", "N/A", "NA", "n/a", "-", "null" after trimming.
bool IsMissingCsvValue(std::string_view field);
// Trimmed decimal or scientific number; nullopt when missing or not a number.
std::optional<double> ParseCsvNumber(std::string_view field);

namespace csv_detail {
std::optional<int64_t> ParseTrimmedCsvInt(std::string_view trimmed);  // every form ParseCsvInt takes
}  // namespace csv_detail

// Trimmed integer (a "12.0" float with no fraction is accepted); nullopt otherwise. The common
// case, up to 18 plain digits with an optional '-', is parsed here (no overflow is possible);
// everything else by the general path, which gives the same value for these.
inline std::optional<int64_t> ParseCsvInt(std::string_view field) {
  const std::string_view t = TrimCsvField(field);
  const size_t sign = !t.empty() && t[0] == '-' ? 1 : 0;
  if (t.size() > sign && t.size() - sign <= 18) {
    uint64_t v = 0;
    size_t k = sign;
    for (; k < t.size(); ++k) {
      const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(t[k])) - '0';
      if (d > 9) break;
      v = v * 10 + d;
    }
    if (k == t.size()) return sign ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  }
  return csv_detail::ParseTrimmedCsvInt(t);
}

}  // namespace optrace
