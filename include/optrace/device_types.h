// Fixed-width integer types for the device tier, from whichever toolchain compiles it.
// The AscendC toolchain's kernel_operator.h defines them (the real one on the device, the
// emulator's in emu/include on the host); elsewhere <stdint.h>.
#ifndef OPTRACE_DEVICE_TYPES_H_
#define OPTRACE_DEVICE_TYPES_H_

#if defined(__CCE_KT_TEST__) || defined(__CCE_AICORE__) || defined(ASCENDC_CPU_DEBUG)
#include "kernel_operator.h"
#else
#include <stdint.h>
#endif

// Qualifies the constexpr functions of the device tier so that every compiler accepts them
// in device code: nvcc needs __host__ __device__, the AscendC compiler __aicore__.
#if defined(__CUDACC__)
#define OPTRACE_CONSTEXPR __host__ __device__ constexpr
#elif defined(__CCE_KT_TEST__) || defined(__CCE_AICORE__) || defined(ASCENDC_CPU_DEBUG)
#define OPTRACE_CONSTEXPR __aicore__ constexpr
#else
#define OPTRACE_CONSTEXPR constexpr
#endif

#endif  // OPTRACE_DEVICE_TYPES_H_
