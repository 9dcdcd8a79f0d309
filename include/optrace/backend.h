// Picks the backend of the device library from the compiler's own macros, and fails closed:
//   nvcc (__CUDACC__)                                   -> backends/cuda.h
//   AscendC (__CCE_AICORE__, __CCE_KT_TEST__, ASCENDC_CPU_DEBUG; the emulator defines the
//            last one)                                   -> backends/ascendc.h
//   another accelerator compiler (HIP, OpenCL, SYCL)     -> #error
//   otherwise (g++ / clang++ host code)                  -> backends/host.h
// Each backend defines OPTRACE_FN, optrace::backend::Active, KernelBegin / KernelEnd and the
// OPTRACE_KERNEL_BEGIN / OPTRACE_KERNEL_END macros.
#ifndef OPTRACE_BACKEND_H_
#define OPTRACE_BACKEND_H_

#if defined(__CUDACC__) && (defined(__CCE_AICORE__) || defined(__CCE_KT_TEST__) || defined(ASCENDC_CPU_DEBUG))
#error "optrace: both CUDA and AscendC compiler macros are defined; cannot pick a trace backend"
#elif defined(__CUDACC__)
#include "optrace/backends/cuda.h"
#elif defined(__CCE_AICORE__) || defined(__CCE_KT_TEST__) || defined(ASCENDC_CPU_DEBUG)
#include "optrace/backends/ascendc.h"
#elif defined(__HIPCC__) || defined(__OPENCL_VERSION__) || defined(__SYCL_DEVICE_ONLY__)
#error "optrace: no trace backend for this accelerator compiler (supported: AscendC, CUDA, host)"
#else
#include "optrace/backends/host.h"
#endif

#endif  // OPTRACE_BACKEND_H_
