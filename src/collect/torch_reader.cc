#include "collect/torch_reader.h"

#include <cstdint>
#include <cstring>
#include <optional>

#include "collect/pickle.h"
#include "collect/zip_reader.h"

namespace optrace::collect {
namespace {

constexpr std::string_view kWantInt64 =
    "the legacy collector expects torch.save of a list of int64 tensors (one per core type) or one int64 tensor";

std::string EntryList(const ZipArchive& zip) {
  std::string out;
  size_t n = 0;
  for (const ZipEntry& e : zip.entries()) {
    if (n++ == 4) {
      out += ", ...";
      break;
    }
    out += (out.empty() ? "" : ", ") + e.name;
  }
  return out.empty() ? "nothing" : out;
}

Result<Int64Tensor> Materialize(ZipArchive& zip, std::string_view prefix, const PyObj& t, size_t index,
                                std::string_view path, std::string_view file_bytes, bool verify_crc) {
  const PyObj& storage = *t.items[0];
  if (storage.s != "torch.LongStorage") {
    return BadInputError("{}: tensor {} is stored as {}, not int64 (torch.LongStorage); {}; save the profiling "
                         "tensor without converting it",
                         path, index, storage.s, kWantInt64);
  }
  if (t.shape.empty() || t.shape.size() > 2) {
    return BadInputError("{}: tensor {} has {} dimensions; {} of shape [cores, PROF_SIZE]", path, index,
                         t.shape.size(), kWantInt64);
  }
  std::string name = fmt::format("{}data/{}", prefix, storage.key);
  const ZipEntry* entry = zip.Find(name);
  if (!entry) return BadInputError("{}: storage '{}' of tensor {} is missing from the zip; the file is incomplete", path, name, index);
  OPTRACE_ASSIGN_OR_RETURN(std::string_view raw, zip.Read(*entry, verify_crc));
  Int64Tensor out;
  out.shape = t.shape.size() == 2 ? t.shape : std::vector<int64_t>{1, t.shape[0]};
  std::vector<int64_t> stride = t.stride.size() == 2 ? t.stride : std::vector<int64_t>{0, t.stride.empty() ? 1 : t.stride[0]};
  const int64_t rows = out.shape[0], cols = out.shape[1];
  if (rows < 0 || cols < 0 || stride[0] < 0 || stride[1] < 0 || t.i < 0) {
    return BadInputError("{}: tensor {} has a negative size, stride or offset", path, index);
  }
  const uint64_t n_elems = raw.size() / 8;
  if (rows > 0 && cols > 0) {
    // Sizes come from the file: bound them before any arithmetic can overflow.
    const uint64_t ur = static_cast<uint64_t>(rows), uc = static_cast<uint64_t>(cols);
    if (ur > n_elems || uc > n_elems || ur * uc > n_elems || static_cast<uint64_t>(stride[0]) > n_elems ||
        static_cast<uint64_t>(stride[1]) > n_elems || static_cast<uint64_t>(t.i) > n_elems) {
      return BadInputError("{}: tensor {} [{} x {}] does not fit its storage '{}' of {} int64 values: the file is "
                           "truncated or corrupt",
                           path, index, rows, cols, name, n_elems);
    }
    uint64_t last = static_cast<uint64_t>(t.i) + static_cast<uint64_t>(rows - 1) * static_cast<uint64_t>(stride[0]) +
                    static_cast<uint64_t>(cols - 1) * static_cast<uint64_t>(stride[1]);
    if (last >= n_elems) {
      return BadInputError("{}: tensor {} [{} x {}] needs element {} but storage '{}' holds {} int64 values: the file "
                           "is truncated or corrupt",
                           path, index, rows, cols, last, name, n_elems);
    }
  }
  const size_t n = static_cast<size_t>(rows * cols);
  const char* base = raw.data();
  const bool contiguous = stride[1] == 1 && (stride[0] == cols || rows == 1);
  const bool in_file = raw.data() >= file_bytes.data() && raw.data() + raw.size() <= file_bytes.data() + file_bytes.size();
  if (contiguous && in_file) {
    out.bytes = base + t.i * 8;
    return out;
  }
  out.owned.reset(new int64_t[n]);
  if (contiguous) {
    if (n > 0) std::memcpy(out.owned.get(), base + t.i * 8, n * 8);
  } else {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        std::memcpy(&out.owned[static_cast<size_t>(r * cols + c)], base + (t.i + r * stride[0] + c * stride[1]) * 8, 8);
      }
    }
  }
  out.bytes = reinterpret_cast<const char*>(out.owned.get());
  return out;
}

}  // namespace

namespace {

// A torch.save file's zip and pickle, read: the tensors' descriptions, their bytes not yet touched.
struct ParsedTorch {
  ZipArchive zip;
  std::string prefix;  // "<archive>/"
  PyRef root;
  std::vector<const PyObj*> tensors;
  bool bare_tensor = false;
};

Result<ParsedTorch> ParseTorch(std::string_view bytes, std::string_view path) {
  OPTRACE_ASSIGN_OR_RETURN(ZipArchive zip, ZipArchive::Open(bytes, std::string(path)));
  const ZipEntry* pkl = nullptr;
  for (const ZipEntry& e : zip.entries()) {
    if (e.name.ends_with("/data.pkl") && e.name.find('/') == e.name.size() - 9) {
      pkl = &e;
      break;
    }
  }
  if (!pkl) {
    return BadInputError("{}: a zip file without <archive>/data.pkl (it holds {}): this is not a torch.save file; "
                         "give the .pt files the profiling script saved",
                         path, EntryList(zip));
  }
  std::string prefix = pkl->name.substr(0, pkl->name.size() - 8);
  ParsedTorch p{std::move(zip), std::move(prefix), nullptr, {}, false};
  if (const ZipEntry* bo = p.zip.Find(p.prefix + "byteorder")) {
    OPTRACE_ASSIGN_OR_RETURN(std::string_view order, p.zip.Read(*bo));
    if (order != "little") {
      return BadInputError("{}: storages are {}-endian; only little-endian torch files are read", path, order);
    }
  }
  const ZipEntry* pkl_entry = p.zip.Find(p.prefix + "data.pkl");
  OPTRACE_ASSIGN_OR_RETURN(std::string_view pickle, p.zip.Read(*pkl_entry));
  std::string origin = fmt::format("{}: {}", path, pkl_entry->name);
  OPTRACE_ASSIGN_OR_RETURN(p.root, RunPickle(pickle, origin));
  const PyObj& root = *p.root;
  if (root.kind == PyObj::Kind::kTensor) {
    p.bare_tensor = true;
    p.tensors.push_back(&root);
  } else if (root.kind == PyObj::Kind::kList || root.kind == PyObj::Kind::kTuple) {
    for (size_t i = 0; i < root.items.size(); ++i) {
      if (root.items[i]->kind != PyObj::Kind::kTensor) {
        return BadInputError("{}: the pickle holds a {} whose item {} is a {}; {}", path, DescribePy(root), i,
                             DescribePy(*root.items[i]), kWantInt64);
      }
      p.tensors.push_back(root.items[i].get());
    }
    if (p.tensors.empty()) return BadInputError("{}: the pickle holds an empty {}; {}", path, DescribePy(root), kWantInt64);
  } else {
    return BadInputError("{}: the pickle holds a {}; {}", path, DescribePy(root), kWantInt64);
  }
  return p;
}

}  // namespace

Result<TorchFile> ReadTorchFile(std::string_view bytes, std::string_view path, bool verify_crc) {
  OPTRACE_ASSIGN_OR_RETURN(ParsedTorch p, ParseTorch(bytes, path));
  TorchFile file;
  file.bare_tensor = p.bare_tensor;
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    OPTRACE_ASSIGN_OR_RETURN(Int64Tensor t, Materialize(p.zip, p.prefix, *p.tensors[i], i, path, bytes, verify_crc));
    file.tensors.push_back(std::move(t));
  }
  return file;
}

std::optional<std::vector<StoredTensor>> LocateStoredTensors(std::string_view bytes, std::string_view path) {
  Result<ParsedTorch> parsed = ParseTorch(bytes, path);
  if (!parsed.ok()) return std::nullopt;
  std::vector<StoredTensor> out;
  for (const PyObj* t : parsed->tensors) {
    const PyObj& storage = *t->items[0];
    if (storage.s != "torch.LongStorage" || t->shape.empty() || t->shape.size() > 2) return std::nullopt;
    const ZipEntry* entry = parsed->zip.Find(fmt::format("{}data/{}", parsed->prefix, storage.key));
    if (!entry || entry->method != 0) return std::nullopt;
    Result<uint64_t> data = parsed->zip.DataOffset(*entry);
    if (!data.ok()) return std::nullopt;
    StoredTensor s;
    s.entry_offset = *data;
    s.entry_size = entry->compressed_size;
    s.crc32 = entry->crc32;
    s.rows = t->shape.size() == 2 ? t->shape[0] : 1;
    s.cols = t->shape.back();
    const int64_t row_stride = t->stride.size() == 2 ? t->stride[0] : 0;
    const int64_t col_stride = t->stride.empty() ? 1 : t->stride.back();
    // Plain only: row after row, every value in the storage (what Materialize would view in place).
    if (s.rows <= 0 || s.cols <= 0 || t->i < 0 || col_stride != 1 || (s.rows > 1 && row_stride != s.cols)) {
      return std::nullopt;
    }
    const uint64_t n_elems = s.entry_size / 8;
    const uint64_t ur = static_cast<uint64_t>(s.rows), uc = static_cast<uint64_t>(s.cols);
    if (ur > n_elems || uc > n_elems || ur * uc > n_elems || static_cast<uint64_t>(t->i) > n_elems - ur * uc) {
      return std::nullopt;
    }
    s.first_byte = static_cast<uint64_t>(t->i) * 8;
    out.push_back(s);
  }
  return out;
}

}  // namespace optrace::collect
