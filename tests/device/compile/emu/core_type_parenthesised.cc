// Must not compile: `if (ASCEND_IS_AIV)` is `if (constexpr(...))` on the device.
#include "kernel_operator.h"

__aicore__ inline int Role() {
  if (ASCEND_IS_AIV) {
    return 2;
  }
  return 1;
}
