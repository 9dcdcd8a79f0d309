// Must not compile in the device view of CANN 8.1: kernel_macros.h defines `inline` as
// `__inline__ __attribute__((always_inline))`, which cannot precede `namespace`.
#include "kernel_operator.h"

namespace user {
inline namespace v1 {
__aicore__ inline int Answer() { return 42; }
}  // namespace v1
}  // namespace user
