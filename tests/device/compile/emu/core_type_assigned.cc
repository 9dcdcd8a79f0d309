// Must not compile: g_coreType is a constexpr of each device half, not a variable.
#include "kernel_operator.h"

__aicore__ inline void Pretend() { g_coreType = AscendC::AIV; }
