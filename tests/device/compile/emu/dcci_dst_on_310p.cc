// Must not compile with __NPU_ARCH__=2002: 310P has DataCacheCleanAndInvalid<T, CacheLine> only.
#include "kernel_operator.h"

__aicore__ inline void Clean(const AscendC::GlobalTensor<int64_t>& t) {
  AscendC::DataCacheCleanAndInvalid<int64_t, AscendC::CacheLine::ENTIRE_DATA_CACHE, AscendC::DcciDst::CACHELINE_OUT>(t);
}
