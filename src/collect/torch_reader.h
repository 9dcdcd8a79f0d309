// Reading the int64 tensors of a torch.save file without Python or torch (SPEC section 5).
//
//   OPTRACE_ASSIGN_OR_RETURN(TorchFile f, ReadTorchFile(bytes, "dumps/rank003.pt"));
//   for (const Int64Tensor& t : f.tensors) t.At(row, col);
//
// torch.save writes a zip: <archive>/data.pkl (a pickle, protocol 2) that describes the object,
// and <archive>/data/<key> (raw little-endian storage bytes) per storage. The pickle is run by a
// small stack machine that knows the few callables torch uses (_rebuild_tensor_v2,
// OrderedDict, persistent ids ('storage', torch.LongStorage, key, location, numel)).
// Accepted objects: a bare tensor, or a list/tuple of tensors. Views keep `bytes` alive-free:
// the tensors copy their elements out, so `bytes` may be dropped afterwards.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace::collect {

struct Int64Tensor {
  std::vector<int64_t> shape;  // 1-D tensors get shape {1, n}
  // Row-major little-endian values: a view into the file's bytes when the tensor is stored
  // uncompressed and contiguous (torch.save's layout, and any zip writer's: no copy of a dump's
  // tens of MiB, whatever the entry's alignment), else `owned`, a contiguous copy.
  const char* bytes = nullptr;
  std::unique_ptr<int64_t[]> owned;
  int64_t rows() const { return shape.size() == 2 ? shape[0] : 1; }
  int64_t cols() const { return shape.empty() ? 0 : shape.back(); }
  int64_t At(int64_t r, int64_t c) const {
    int64_t v;  // memcpy: the view need not be 8-byte aligned; it compiles to one load
    std::memcpy(&v, bytes + static_cast<size_t>(r * cols() + c) * sizeof(int64_t), sizeof v);
    return v;
  }
};

struct TorchFile {
  std::vector<Int64Tensor> tensors;
  bool bare_tensor = false;  // the pickle held one tensor, not a list
};

// The tensors may point into `bytes` (see Int64Tensor::data): keep them alive together.
// verify_crc = false: the stored tensors' zip CRC-32 is not checked (see DumpDetail::kLayout).
Result<TorchFile> ReadTorchFile(std::string_view bytes, std::string_view path, bool verify_crc = true);

// Where a tensor stored the plain way lies in its file (int64, an uncompressed zip entry, row after
// row): enough to read it piece by piece from the file, checking the entry's CRC-32 as the bytes go
// by, without the file in memory (collect's legacy reader; see legacy_reader.h).
struct StoredTensor {
  uint64_t entry_offset = 0;  // the storage entry's first byte in the file
  uint64_t entry_size = 0;    // its bytes, all covered by crc32
  uint32_t crc32 = 0;
  uint64_t first_byte = 0;    // the tensor's first value, from entry_offset
  int64_t rows = 0;           // 1-D tensors: one row
  int64_t cols = 0;
};

// The tensors of a torch.save file (`bytes` need hold only its zip directory, local headers and
// pickle: the storages are not read) when every one is stored the plain way; nullopt when one is
// not, or the file has any problem ReadTorchFile would report (read it whole with that instead).
std::optional<std::vector<StoredTensor>> LocateStoredTensors(std::string_view bytes, std::string_view path);

}  // namespace optrace::collect
