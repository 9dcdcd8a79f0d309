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

}  // namespace optrace::collect
