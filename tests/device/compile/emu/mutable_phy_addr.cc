// Must not compile: GlobalTensor::GetPhyAddr() returns `const __gm__ T*`.
#include "kernel_operator.h"

__aicore__ inline __gm__ float* Base(AscendC::GlobalTensor<float>& t) { return t.GetPhyAddr(); }
