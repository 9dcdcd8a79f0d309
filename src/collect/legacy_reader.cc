#include "collect/legacy_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "collect/crc32.h"
#include "collect/native_reader.h"
#include "core/file_io.h"
#include "core/mapped_file.h"

namespace optrace::collect {
namespace {

// A written row's records: record i's combined id (point id | extra << 32) at word 1 + i, its
// timestamp at word cols - 2 - i.
void DecodeRowEvents(const char* row, int64_t cols, size_t count, std::vector<Event>& out) {
  auto word = [&](size_t c) {
    int64_t v;
    std::memcpy(&v, row + c * sizeof v, sizeof v);
    return v;
  };
  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t combined = static_cast<uint64_t>(word(1 + i));
    out[i] = Event{static_cast<uint32_t>(combined), static_cast<uint32_t>(combined >> 32),
                   word(static_cast<size_t>(cols) - 2 - i)};
  }
}

// Builds a Dump from legacy tensor rows given one at a time, in file order: the same rows, checks
// and messages whether the tensors are held whole (DecodeLegacyTensors) or read from the file a
// few rows at a time (ReadLegacyDumpFile).
class LegacyDumpBuilder {
 public:
  // defer: rows' events stay in the file (AddRow's file offsets are kept for LegacyRowEvents).
  LegacyDumpBuilder(std::string_view path, int rank, double clock_hz, DumpDetail detail, size_t tensor_count,
                    bool defer = false)
      : path_(path), clock_hz_(clock_hz), decode_(detail != DumpDetail::kLayout && !defer), defer_(defer),
        tensor_count_(tensor_count) {
    dump_.path = std::string(path);
    dump_.rank = rank;
    dump_.format = DumpFormat::kLegacy;
  }

  Status BeginTensor(size_t t, int64_t cols) {
    if (tensor_ != SIZE_MAX && kind_ == CoreKind::kUnknown) other_core_base_ += static_cast<uint32_t>(row_);
    tensor_ = t;
    row_ = 0;
    cols_ = cols;
    kind_ = CoreKind::kUnknown;
    if (tensor_count_ == 2) {
      kind_ = t == 0 ? CoreKind::kAic : CoreKind::kAiv;
    } else if (tensor_count_ == 1) {
      kind_ = CoreKind::kAiv;
    }
    if (cols < 3) {
      return BadInputError("{}: tensor {} has rows of {} words; a legacy profiling row needs at least 3 "
                           "(count, records, initial timestamp)", path_, t, cols);
    }
    dump_.slot_words = static_cast<uint32_t>(cols);
    return Status::Ok();
  }

  // One row of cols_ little-endian int64 words (any alignment), which starts at byte `file_offset`
  // of the file (kept when deferring).
  Status AddRow(const char* words, uint64_t file_offset = 0) {
    const int64_t r = row_++;
    const uint32_t slot = row_counter_++;
    auto word = [&](int64_t c) {
      int64_t v;
      std::memcpy(&v, words + static_cast<size_t>(c) * sizeof v, sizeof v);
      return v;
    };
    const int64_t cols = cols_;
    const int64_t max_records = (cols - 2) / 2;
    const int64_t w0 = word(0);
    if (w0 == 0) {
      ++dump_.never_written;
      dump_.never_written_slots.push_back(slot);
      return Status::Ok();
    }
    const int64_t count = w0 - 1;
    if (count < 0) {
      return BadInputError("{}: tensor {} row {}: word 0 = {} is a negative record count; the row is corrupt or "
                           "this is not a legacy profiling tensor: save the profiling output again",
                           path_, tensor_, r, w0);
    }
    if (count > max_records) {
      return BadInputError("{}: tensor {} row {}: count {} > capacity {} records (word 0 = {}); the row is corrupt "
                           "or PROF_SIZE differs from the tensor width {}: save the profiling output again with "
                           "the kernel's PROF_SIZE",
                           path_, tensor_, r, count, max_records, w0, cols);
    }
    any_written_ = true;
    CoreSeries c;
    c.kind = kind_;
    c.core_index = static_cast<uint32_t>(kind_ == CoreKind::kUnknown ? other_core_base_ + r : r);
    c.slot = slot;
    c.clock_hz = clock_hz_;
    c.start_ticks = word(cols - 1);
    c.capacity = static_cast<uint32_t>(max_records);
    if (defer_) rows_.push_back(DeferredRow{slot, file_offset, static_cast<uint32_t>(count), cols, tensor_end_});
    if (decode_) DecodeRowEvents(words, cols, static_cast<size_t>(count), c.events);
    dump_.cores.push_back(std::move(c));
    return Status::Ok();
  }

  Result<Dump> Finish() && {
    if (!any_written_) {
      return BadInputError("{}: every row's record count (word 0) is zero: no core wrote its row. The tensor was "
                           "most likely saved before the device finished; synchronise first and save again",
                           path_);
    }
    return std::move(dump_);
  }

  // Where each written row's records are, by slot (deferring).
  struct DeferredRow {
    uint32_t slot;
    uint64_t file_offset;
    uint32_t count;
    int64_t cols;
    uint64_t tensor_end;  // the file offset past the tensor's last row
  };
  // Deferring: where the current tensor's rows end in the file.
  void SetTensorEnd(uint64_t end) { tensor_end_ = end; }
  std::vector<DeferredRow> TakeRows() { return std::move(rows_); }

 private:
  Dump dump_;
  std::string_view path_;
  double clock_hz_;
  bool decode_;
  bool defer_;
  std::vector<DeferredRow> rows_;
  uint64_t tensor_end_ = 0;
  size_t tensor_count_;
  size_t tensor_ = SIZE_MAX;
  int64_t cols_ = 0;
  int64_t row_ = 0;
  CoreKind kind_ = CoreKind::kUnknown;
  uint32_t row_counter_ = 0;
  uint32_t other_core_base_ = 0;
  bool any_written_ = false;
};

// Reads [offset, offset + size) of the file into `block` (its memory reused), all of it or an error.
Status ReadAt(int fd, uint64_t offset, size_t size, std::string& block) {
  if (block.size() < size) block.resize(size);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, block.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError("read failed at byte {}", offset + done);  // the caller reads the file whole instead
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// The bytes of a storage entry read in blocks of whole rows: the CRC-32 over all of them, the
// tensor's rows to the builder. Any failure only means "read it whole": the caller does, and that
// read says what is wrong.
constexpr size_t kBlockBytes = size_t{64} << 10;

Status StreamTensor(int fd, const StoredTensor& t, size_t index, bool verify_crc, LegacyDumpBuilder& builder,
                    std::string& block) {
  uint32_t crc = 0;
  auto read = [&](uint64_t from, size_t n) -> Status {
    OPTRACE_RETURN_IF_ERROR(ReadAt(fd, t.entry_offset + from, n, block));
    if (verify_crc) crc = Crc32(crc, std::string_view(block.data(), n));
    return Status::Ok();
  };
  for (uint64_t at = 0; at < t.first_byte;) {  // before the tensor's first value
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kBlockBytes, t.first_byte - at));
    OPTRACE_RETURN_IF_ERROR(read(at, n));
    at += n;
  }
  OPTRACE_RETURN_IF_ERROR(builder.BeginTensor(index, t.cols));
  const uint64_t row_bytes = static_cast<uint64_t>(t.cols) * 8;
  builder.SetTensorEnd(t.entry_offset + t.first_byte + static_cast<uint64_t>(t.rows) * row_bytes);
  const uint64_t rows_per_block = std::max<uint64_t>(1, kBlockBytes / row_bytes);
  const uint64_t rows = static_cast<uint64_t>(t.rows);
  for (uint64_t r = 0; r < rows; r += rows_per_block) {
    const uint64_t n = std::min(rows_per_block, rows - r);
    OPTRACE_RETURN_IF_ERROR(read(t.first_byte + r * row_bytes, static_cast<size_t>(n * row_bytes)));
    for (uint64_t k = 0; k < n; ++k) {
      OPTRACE_RETURN_IF_ERROR(
          builder.AddRow(block.data() + k * row_bytes, t.entry_offset + t.first_byte + (r + k) * row_bytes));
    }
  }
  for (uint64_t at = t.first_byte + rows * row_bytes; at < t.entry_size;) {  // after its last value
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kBlockBytes, t.entry_size - at));
    OPTRACE_RETURN_IF_ERROR(read(at, n));
    at += n;
  }
  if (verify_crc && crc != t.crc32) return BadInputError("CRC-32 mismatch");
  return Status::Ok();
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// A streamed dump's events, read a core at a time from the file they were checked in. Cores are asked for in row order, so rows are read a block at a time, as the first pass did
// (one pread per row would be a syscall per core, a fifth of collect's CPU on this VM).
class LegacyRowEvents : public DeferredEvents {
 public:
  LegacyRowEvents(Fd fd, std::string path, std::vector<LegacyDumpBuilder::DeferredRow> rows)
      : fd_(std::move(fd)), path_(std::move(path)), rows_(std::move(rows)) {}

  Status Load(CoreSeries& core) override {
    auto it = std::lower_bound(rows_.begin(), rows_.end(), core.slot,
                               [](const LegacyDumpBuilder::DeferredRow& r, uint32_t slot) { return r.slot < slot; });
    if (it == rows_.end() || it->slot != core.slot) return InternalError("{}: no row for slot {}", path_, core.slot);
    const uint64_t row_bytes = static_cast<uint64_t>(it->cols) * sizeof(int64_t);
    if (it->file_offset < block_at_ || it->file_offset + row_bytes > block_at_ + block_size_) {
      const uint64_t rows = std::max<uint64_t>(1, kBlockBytes / row_bytes);
      block_size_ = static_cast<size_t>(std::min(rows * row_bytes, it->tensor_end - it->file_offset));
      block_at_ = it->file_offset;
      if (!ReadAt(fd_.get(), block_at_, block_size_, block_).ok()) {
        block_size_ = 0;
        return IoError("{}: the file changed while it was read (row {} is no longer there); collect again", path_,
                       core.slot);
      }
    }
    DecodeRowEvents(block_.data() + (it->file_offset - block_at_), it->cols, it->count, core.events);
    return Status::Ok();
  }
  uint64_t EventCount() const override {
    uint64_t n = 0;
    for (const LegacyDumpBuilder::DeferredRow& r : rows_) n += r.count;
    return n;
  }

 private:
  Fd fd_;
  std::string path_;
  std::vector<LegacyDumpBuilder::DeferredRow> rows_;  // by slot
  std::string block_;  // rows [block_at_, block_at_ + block_size_) of the file
  uint64_t block_at_ = 0;
  size_t block_size_ = 0;
};

// The dump read a few rows at a time; nullopt when the file is not plainly stored or anything
// fails (the caller then reads it whole, which words the error).
std::optional<Dump> StreamLegacyDump(const std::filesystem::path& path, int rank, double clock_hz,
                                     DumpDetail detail, std::string& block) {
  const std::string name = path.string();
  std::optional<std::vector<StoredTensor>> tensors;
  {
    // The zip directory, local headers and pickle through a mapping: only their pages are touched,
    // and the mapping is gone before the storages are read.
    Result<MappedFile> file = MappedFile::Open(path, MappedFile::Access::kSparse);
    if (!file.ok()) return std::nullopt;
    tensors = LocateStoredTensors(file->bytes(), name);
    if (!file->CheckWhole().ok()) return std::nullopt;  // read whole, the error names the file
  }
  if (!tensors) return std::nullopt;
  Result<int> fd = OpenRegularFile(path);
  if (!fd.ok()) return std::nullopt;
  Fd owned(*fd);
  const bool defer = detail == DumpDetail::kDeferred;
  LegacyDumpBuilder builder(name, rank, clock_hz, detail, tensors->size(), defer);
  for (size_t i = 0; i < tensors->size(); ++i) {
    if (!StreamTensor(owned.get(), (*tensors)[i], i, detail != DumpDetail::kLayout, builder, block).ok()) {
      return std::nullopt;
    }
  }
  std::vector<LegacyDumpBuilder::DeferredRow> rows = builder.TakeRows();
  Result<Dump> dump = std::move(builder).Finish();
  if (!dump.ok()) return std::nullopt;
  if (defer) dump->deferred = std::make_shared<LegacyRowEvents>(std::move(owned), name, std::move(rows));
  return std::move(*dump);
}

}  // namespace

Result<Dump> DecodeLegacyTensors(const TorchFile& file, std::string_view path, int rank, double clock_hz,
                                 DumpDetail detail) {
  LegacyDumpBuilder builder(path, rank, clock_hz, detail, file.tensors.size());
  for (size_t t = 0; t < file.tensors.size(); ++t) {
    const Int64Tensor& tensor = file.tensors[t];
    OPTRACE_RETURN_IF_ERROR(builder.BeginTensor(t, tensor.cols()));
    const size_t row_bytes = static_cast<size_t>(tensor.cols()) * sizeof(int64_t);
    for (int64_t r = 0; r < tensor.rows(); ++r) {
      OPTRACE_RETURN_IF_ERROR(builder.AddRow(tensor.bytes + static_cast<size_t>(r) * row_bytes));
    }
  }
  return std::move(builder).Finish();
}

Result<Dump> DecodeLegacyDump(std::string_view bytes, std::string_view path, int rank, double clock_hz,
                              DumpDetail detail) {
  OPTRACE_ASSIGN_OR_RETURN(TorchFile file, ReadTorchFile(bytes, path, detail != DumpDetail::kLayout));
  return DecodeLegacyTensors(file, path, rank, clock_hz, detail);
}

Result<Dump> ReadLegacyDumpFile(const std::filesystem::path& path, int rank, double clock_hz, DumpDetail detail,
                                std::string& buffer) {
  if (std::optional<Dump> dump = StreamLegacyDump(path, rank, clock_hz, detail, buffer)) return std::move(*dump);
  OPTRACE_RETURN_IF_ERROR(ReadFileInto(path, buffer));
  return DecodeLegacyDump(buffer, path.string(), rank, clock_hz, detail);
}

}  // namespace optrace::collect
