#include "collect/legacy_reader.h"

#include "collect/native_reader.h"

namespace optrace::collect {

Result<Dump> DecodeLegacyTensors(const TorchFile& file, std::string_view path, int rank, double clock_hz,
                                 DumpDetail detail) {
  Dump dump;
  dump.path = std::string(path);
  dump.rank = rank;
  dump.format = DumpFormat::kLegacy;
  uint32_t row_counter = 0;
  uint32_t other_core_base = 0;
  bool any_written = false;
  for (size_t t = 0; t < file.tensors.size(); ++t) {
    const Int64Tensor& tensor = file.tensors[t];
    CoreKind kind = CoreKind::kUnknown;
    if (file.tensors.size() == 2) {
      kind = t == 0 ? CoreKind::kAic : CoreKind::kAiv;
    } else if (file.tensors.size() == 1) {
      kind = CoreKind::kAiv;
    }
    const int64_t cols = tensor.cols();
    if (cols < 3) {
      return BadInputError("{}: tensor {} has rows of {} words; a legacy profiling row needs at least 3 "
                           "(count, records, initial timestamp)", path, t, cols);
    }
    dump.slot_words = static_cast<uint32_t>(cols);
    const int64_t max_records = (cols - 2) / 2;
    for (int64_t r = 0; r < tensor.rows(); ++r, ++row_counter) {
      auto row = [&](int64_t c) { return tensor.At(r, c); };
      if (row(0) == 0) {
        ++dump.never_written;
        dump.never_written_slots.push_back(row_counter);
        continue;
      }
      const int64_t count = row(0) - 1;
      if (count < 0) {
        return BadInputError("{}: tensor {} row {}: word 0 = {} is a negative record count; the row is corrupt or "
                             "this is not a legacy profiling tensor: save the profiling output again",
                             path, t, r, row(0));
      }
      if (count > max_records) {
        return BadInputError("{}: tensor {} row {}: count {} > capacity {} records (word 0 = {}); the row is corrupt "
                             "or PROF_SIZE differs from the tensor width {}: save the profiling output again with "
                             "the kernel's PROF_SIZE",
                             path, t, r, count, max_records, row(0), cols);
      }
      any_written = true;
      CoreSeries c;
      c.kind = kind;
      c.core_index = static_cast<uint32_t>(kind == CoreKind::kUnknown ? other_core_base + r : r);
      c.slot = row_counter;
      c.clock_hz = clock_hz;
      c.start_ticks = row(cols - 1);
      c.capacity = static_cast<uint32_t>(max_records);
      if (detail == DumpDetail::kLayout) {
        dump.cores.push_back(std::move(c));
        continue;
      }
      c.events.resize(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        const uint64_t combined = static_cast<uint64_t>(row(1 + i));
        c.events[static_cast<size_t>(i)] =
            Event{static_cast<uint32_t>(combined), static_cast<uint32_t>(combined >> 32), row(cols - 2 - i)};
      }
      dump.cores.push_back(std::move(c));
    }
    if (kind == CoreKind::kUnknown) other_core_base += static_cast<uint32_t>(tensor.rows());
  }
  if (!any_written) {
    return BadInputError("{}: every row's record count (word 0) is zero: no core wrote its row. The tensor was most "
                         "likely saved before the device finished; synchronise first and save again",
                         path);
  }
  return dump;
}

Result<Dump> DecodeLegacyDump(std::string_view bytes, std::string_view path, int rank, double clock_hz,
                              DumpDetail detail) {
  OPTRACE_ASSIGN_OR_RETURN(TorchFile file, ReadTorchFile(bytes, path, detail == DumpDetail::kFull));
  return DecodeLegacyTensors(file, path, rank, clock_hz, detail);
}

}  // namespace optrace::collect
