// Must not compile: GlobalTensor::SetValue is not a const member in any CANN line.
#include "kernel_operator.h"

__aicore__ inline void Put(const AscendC::GlobalTensor<float>& dst) { dst.SetValue(0, 1.0f); }
