// A minimal pickle stack machine for the objects torch.save writes (protocols 2-4).
//
//   OPTRACE_ASSIGN_OR_RETURN(PyRef root, RunPickle(data_pkl, "rank0.pt/archive/data.pkl"));
//
// It builds plain values (None, bool, int, float, str, bytes, tuple, list, dict), globals,
// and the torch objects the collector needs: storages from persistent ids and tensors from
// torch._utils._rebuild_tensor_v2. Any other callable becomes an opaque object that names
// itself, so the caller can say what it found instead of tensors. Nothing is executed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace::collect {

struct PyObj;
using PyRef = std::shared_ptr<PyObj>;

struct PyObj {
  enum class Kind { kNone, kBool, kInt, kFloat, kStr, kBytes, kTuple, kList, kDict, kGlobal, kStorage, kTensor, kObject };
  Kind kind = Kind::kNone;
  int64_t i = 0;                // bool, int; storage numel; tensor storage offset
  double f = 0;
  std::string s;                // str, bytes; global "module.name"; storage type; object's callable
  std::string key;              // storage key
  std::vector<PyRef> items;     // tuple, list; dict as key, value, key, value...; tensor: {storage}
  std::vector<int64_t> shape;   // tensor
  std::vector<int64_t> stride;  // tensor
  uint32_t depth = 1;           // nesting: 1 + the deepest item (bounded by RunPickle, see kMaxPickleDepth)
};

// Deepest nesting of containers RunPickle accepts: a torch.save of profiling tensors nests 4
// (list -> tensor -> storage); a pickle 300,000 lists deep would overflow the stack when its
// objects are freed (each frees the next).
inline constexpr uint32_t kMaxPickleDepth = 256;

Result<PyRef> RunPickle(std::string_view data, std::string_view origin);

// "list", "tensor", "collections.Counter object", ...: for messages.
std::string DescribePy(const PyObj& o);

}  // namespace optrace::collect
