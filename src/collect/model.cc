#include "collect/model.h"

namespace optrace::collect {

const char* CoreKindName(CoreKind kind) {
  switch (kind) {
    case CoreKind::kAic: return "AIC";
    case CoreKind::kAiv: return "AIV";
    case CoreKind::kCudaBlock: return "block";
    case CoreKind::kHostThread: return "thread";
    case CoreKind::kUnknown: break;
  }
  return "core";
}

const char* CoreKindKey(CoreKind kind) {
  switch (kind) {
    case CoreKind::kAic: return "aic";
    case CoreKind::kAiv: return "aiv";
    case CoreKind::kCudaBlock: return "block";
    case CoreKind::kHostThread: return "thread";
    case CoreKind::kUnknown: break;
  }
  return "core";
}

}  // namespace optrace::collect
