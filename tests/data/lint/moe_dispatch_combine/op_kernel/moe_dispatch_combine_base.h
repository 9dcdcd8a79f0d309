// Profiling configuration of the moe_dispatch_combine operator (seed 000: the *_base.h):
// set ENABLE_MOE_PROFILING to 0 and rebuild the kernel to switch device-side tracing off.
#ifndef MOE_DISPATCH_COMBINE_BASE_H
#define MOE_DISPATCH_COMBINE_BASE_H

#ifndef ENABLE_MOE_PROFILING
#define ENABLE_MOE_PROFILING 1
#endif
#ifndef PROF_SIZE_PER_CORE
#define PROF_SIZE_PER_CORE 2048
#endif
#ifndef ENABLE_MOE_PROFILING_BARRIER
#define ENABLE_MOE_PROFILING_BARRIER true
#endif

#include "kernel_operator.h"
#include "optrace/trace.h"

#endif  // MOE_DISPATCH_COMBINE_BASE_H
