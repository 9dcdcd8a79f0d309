// Fixed-width integer types for the device tier, from whichever toolchain compiles it.
// The AscendC compiler's kernel_operator.h already defines them; elsewhere <stdint.h>.
#ifndef OPTRACE_DEVICE_TYPES_H_
#define OPTRACE_DEVICE_TYPES_H_

#if defined(__CCE_KT_TEST__) || defined(__CCE_AICORE__) || defined(ASCENDC_CPU_DEBUG)
// Types come from kernel_operator.h, included by the AscendC backend before this header.
#else
#include <stdint.h>
#endif

#endif  // OPTRACE_DEVICE_TYPES_H_
