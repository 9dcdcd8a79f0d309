#include "core/csv_reader.h"

#include "core/csv_blocks.h"
#include "core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

namespace optrace {
namespace {

// Set bits of a mask with few of them (newlines in 64 bytes of CSV): std::popcount is a library
// call on baseline x86-64.
inline size_t SparseBitCount(uint64_t x) {
  size_t n = 0;
  for (; x; x &= x - 1) ++n;
  return n;
}

// Whether [p, end) holds an odd number of byte `c`. The per-word masks are XOR-folded (a
// popcount per word is a library call on baseline x86-64).
bool OddCount(const char* p, const char* end, char c) {
  uint64_t acc = 0;
  for (; end - p >= 8; p += 8) acc ^= ByteMask(LoadWord(p), c);
  acc ^= acc >> 32;
  acc ^= acc >> 16;
  acc ^= acc >> 8;
  bool odd = (acc >> 7) & 1;
  for (; p < end; ++p) odd ^= *p == c;
  return odd;
}

// Cuts [i, stop) at commas into `fields`, field after field, until a field that opens with a
// quote: returns its offset, or SIZE_MAX when the record ended.
size_t SplitUnquoted(const char* data, size_t i, size_t stop, std::vector<std::string_view>& fields) {
  size_t field = i;
  size_t p = i;
  for (;;) {
    // One bit per byte where a comma is, 64 bytes at a time; the last part of the record is
    // classified from a zero-padded copy (zeros are not commas), so one loop cuts every block.
    const size_t base = p;
    uint64_t commas;
    if (stop - p >= 64) {
      commas = ClassifyBlock(data + p).comma;
      p += 64;
    } else {
      char tail[64] = {};
      std::memcpy(tail, data + p, stop - p);
      commas = ClassifyBlock(tail).comma;
      p = stop;
    }
    while (commas) {
      size_t sep = base + static_cast<size_t>(__builtin_ctzll(commas));
      commas &= commas - 1;
      fields.emplace_back(data + field, sep - field);
      field = sep + 1;
      if (field == stop) {  // trailing comma: one last empty field
        fields.emplace_back();
        return SIZE_MAX;
      }
      if (data[field] == '"') return field;
    }
    if (p >= stop) {
      fields.emplace_back(data + field, stop - field);
      return SIZE_MAX;
    }
  }
}

// The read buffer for bytes [begin, end) of the file behind fd: the file's size (plus one byte,
// so the read that sees end of file needs no second buffer) when that is smaller than the
// default, never under 4 KiB. A cluster root holds thousands of small kernel_details.csv files:
// a 2 MiB buffer each (fresh pages, zeroed by the kernel) was most of the per-rank cost (issue
// 53.5). A file that grows while it is read still reads whole: the buffer only holds a window.
size_t BufferBytesFor(int fd, uint64_t begin, uint64_t end, size_t buffer_bytes) {
  constexpr size_t kMin = 4096;
  size_t cap = buffer_bytes < kMin ? kMin : buffer_bytes;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size >= 0) {
    uint64_t stop = std::min<uint64_t>(end, static_cast<uint64_t>(st.st_size));
    uint64_t want = (stop > begin ? stop - begin : 0) + 1;
    if (want < cap) cap = want < kMin ? kMin : static_cast<size_t>(want);
  }
  return cap;
}

}  // namespace

Result<CsvReader> CsvReader::Open(const std::filesystem::path& path, size_t buffer_bytes) {
  OPTRACE_ASSIGN_OR_RETURN(int fd, OpenRegularFile(path));
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  CsvReader r;
  r.fd_ = fd;
  r.origin_ = path.string();
  r.cap_ = BufferBytesFor(fd, 0, UINT64_MAX, buffer_bytes);
  r.buf_ = std::unique_ptr<char[]>(new char[r.cap_]);
  return r;
}

Result<CsvReader> CsvReader::OpenRange(const std::filesystem::path& path, uint64_t begin, uint64_t end,
                                       uint64_t first_line, size_t buffer_bytes) {
  OPTRACE_ASSIGN_OR_RETURN(CsvReader r, Open(path, buffer_bytes));
  if (const size_t fit = BufferBytesFor(r.fd_, begin, end, buffer_bytes); fit < r.cap_) {
    r.cap_ = fit;
    r.buf_ = std::unique_ptr<char[]>(new char[r.cap_]);
  }
  if (begin > 0 && ::lseek(r.fd_, static_cast<off_t>(begin), SEEK_SET) < 0)
    return IoError("{}: cannot seek to byte {}: {}", path.string(), begin, std::strerror(errno));
  r.consumed_ = begin;
  r.limit_ = end;
  r.line_ = first_line;
  r.first_ = begin == 0;  // a BOM can only open the file
  return r;
}

CsvReader CsvReader::FromString(std::string text, std::string origin) {
  CsvReader r;
  r.origin_ = std::move(origin);
  r.cap_ = text.size() + 1;
  r.buf_ = std::unique_ptr<char[]>(new char[r.cap_]);
  std::memcpy(r.buf_.get(), text.data(), text.size());
  r.end_ = text.size();
  r.eof_ = true;
  return r;
}

CsvReader::CsvReader(CsvReader&& o) noexcept { *this = std::move(o); }

CsvReader& CsvReader::operator=(CsvReader&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
    origin_ = std::move(o.origin_);
    buf_ = std::move(o.buf_);
    cap_ = o.cap_;
    begin_ = o.begin_;
    end_ = o.end_;
    eof_ = o.eof_;
    first_ = o.first_;
    consumed_ = o.consumed_;
    line_ = o.line_;
    limit_ = o.limit_;
  }
  return *this;
}

CsvReader::~CsvReader() {
  if (fd_ >= 0) ::close(fd_);
}

Status CsvReader::Refill() {
  if (eof_) return Status::Ok();
  size_t tail = end_ - begin_;
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, tail);
    consumed_ += begin_;
    begin_ = 0;
    end_ = tail;
  }
  if (end_ == cap_) {  // one record larger than the buffer: grow
    size_t ncap = cap_ * 2;
    std::unique_ptr<char[]> nbuf(new char[ncap]);
    std::memcpy(nbuf.get(), buf_.get(), end_);
    buf_ = std::move(nbuf);
    cap_ = ncap;
  }
  while (end_ < cap_) {
    ssize_t n = ::read(fd_, buf_.get() + end_, cap_ - end_);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("{}: read failed at byte {}: {}", origin_, consumed_ + end_, std::strerror(errno));
    }
    if (n == 0) {
      eof_ = true;
      break;
    }
    end_ += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<bool> CsvReader::Next(CsvRecord& rec) {
  rec.fields.clear();
  for (;;) {
    if (consumed_ + begin_ >= limit_) return false;  // the next range's record
    // Find the end of the next record: a '\n' outside quotes. Quote parity tells whether a
    // newline is inside a quoted field ("" escapes toggle twice and cancel out).
    char* data = buf_.get();
    size_t pos = begin_;
    bool in_quotes = false;
    size_t newlines = 0;
    size_t rec_end = SIZE_MAX;
    // 64 bytes at a time: a newline ends the record where the quotes before it are even.
    while (end_ - pos >= 64) {
      const BlockMasks m = ClassifyBlock(data + pos);
      const uint64_t inside = PrefixXor(m.quote) ^ (in_quotes ? ~uint64_t{0} : 0);
      const uint64_t ends = m.newline & ~inside;
      if (ends) {
        const int at = __builtin_ctzll(ends);
        newlines += SparseBitCount(m.newline & (~uint64_t{0} >> (63 - at)));
        rec_end = pos + static_cast<size_t>(at);
        pos = rec_end + 1;
        in_quotes = false;
        break;
      }
      newlines += SparseBitCount(m.newline);
      in_quotes = (inside >> 63) != 0;
      pos += 64;
    }
    while (rec_end == SIZE_MAX && pos < end_) {
      const char* nl = static_cast<const char*>(std::memchr(data + pos, '\n', end_ - pos));
      size_t seg_end = nl ? static_cast<size_t>(nl - data) : end_;
      if (OddCount(data + pos, data + seg_end, '"')) in_quotes = !in_quotes;
      if (!nl) {
        pos = end_;
        break;
      }
      ++newlines;
      pos = seg_end + 1;
      if (!in_quotes) {
        rec_end = seg_end;
        break;
      }
    }
    if (rec_end == SIZE_MAX) {
      if (!eof_) {
        OPTRACE_RETURN_IF_ERROR(Refill());
        continue;
      }
      if (begin_ >= end_) return false;
      if (in_quotes) {
        return BadInputError("{}: line {}: a quoted field is never closed before the end of the file", origin_,
                             line_);
      }
      rec_end = end_;  // last record without a final newline
      pos = end_;
    }
    if (first_) {
      first_ = false;
      if (rec_end - begin_ >= 3 && std::memcmp(data + begin_, "\xEF\xBB\xBF", 3) == 0) begin_ += 3;
    }
    size_t start = begin_;
    size_t stop = rec_end;
    if (stop > start && data[stop - 1] == '\r') --stop;
    rec.line = line_;
    rec.byte_offset = consumed_ + start;
    line_ += newlines;
    begin_ = pos;
    if (stop == start) continue;  // blank line

    // Split fields; quoted fields are unescaped in place (the result is never longer). Unquoted
    // fields (nearly all) are cut at the commas of a word-at-a-time scan.
    size_t i = start;
    for (;;) {
      if (i < stop && data[i] == '"') {
        size_t w = i;  // write position
        size_t r = i + 1;
        for (;;) {
          if (r >= stop) break;  // unterminated inside the record: keep what we have
          if (data[r] == '"') {
            if (r + 1 < stop && data[r + 1] == '"') {
              data[w++] = '"';
              r += 2;
              continue;
            }
            ++r;
            break;
          }
          data[w++] = data[r++];
        }
        // Text after the closing quote up to the separator is kept (lenient).
        size_t sep = r;
        while (sep < stop && data[sep] != ',') data[w++] = data[sep++];
        rec.fields.emplace_back(data + i, w - i);
        if (sep >= stop) break;
        i = sep + 1;
        if (i == stop) {  // trailing comma: one last empty field
          rec.fields.emplace_back();
          break;
        }
        continue;
      }
      // Unquoted fields up to the next field that opens with a quote (or the record's end).
      i = SplitUnquoted(data, i, stop, rec.fields);
      if (i == SIZE_MAX) break;
    }
    return true;
  }
}

CsvHeader::CsvHeader(const CsvRecord& header_record) {
  names_.reserve(header_record.fields.size());
  for (std::string_view f : header_record.fields) {
    std::string_view t = TrimCsvField(f);
    while (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
    names_.emplace_back(t);
  }
}

std::optional<size_t> CsvHeader::Find(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return i;
  }
  return std::nullopt;
}

std::optional<size_t> CsvHeader::FindAny(std::initializer_list<std::string_view> names) const {
  for (std::string_view n : names) {
    if (auto i = Find(n)) return i;
  }
  return std::nullopt;
}

bool IsMissingCsvValue(std::string_view field) {
  std::string_view t = TrimCsvField(field);
  return t.empty() || t == "N/A" || t == "NA" || t == "n/a" || t == "-" || t == "null" || t == "None";
}

std::optional<double> ParseCsvNumber(std::string_view field) {
  std::string_view t = TrimCsvField(field);
  if (t.empty()) return std::nullopt;
  if (t.front() == '+') t.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

namespace csv_detail {

std::optional<int64_t> ParseTrimmedCsvInt(std::string_view t) {
  if (t.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc() && p == t.data() + t.size()) return v;
  std::optional<double> d = ParseCsvNumber(t);
  if (d && std::floor(*d) == *d && std::fabs(*d) < 9.2e18) return static_cast<int64_t>(*d);
  return std::nullopt;
}

}  // namespace csv_detail
}  // namespace optrace
