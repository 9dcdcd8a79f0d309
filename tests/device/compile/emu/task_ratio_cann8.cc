// Must not compile with OPTRACE_EMU_CANN=801: CANN 8.1 has GetTaskRation only.
#include "kernel_operator.h"

__aicore__ inline int64_t Ratio() { return AscendC::GetTaskRatio(); }
