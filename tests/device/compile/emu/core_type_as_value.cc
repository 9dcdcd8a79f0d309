// Must not compile: ASCEND_IS_AIC is `constexpr(...)` in device builds, usable only as `if ASCEND_IS_AIC {`.
#include "kernel_operator.h"

__aicore__ inline bool IsCube() { return ASCEND_IS_AIC; }
