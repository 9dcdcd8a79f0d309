// A small operator tree for plan/instrument tests: nested templates, a functor called through
// `x.template operator()<CORE_TYPE>()`, `if constexpr` core branches, a named lambda, a macro
// wrapping a call, an expert-group loop with `break`, an early `return` without braces, a
// `#if 0` region, and a helper called per element of a loop.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "source/plan/plan.h"

namespace optrace::testing {

inline std::vector<std::pair<std::string, std::string>> PlanFixtureFiles() {
  return {
      {"op_kernel/kern.cpp",
       "#include \"kern.h\"\n"
       "\n"
       "extern \"C\" __global__ __aicore__ void kern(GM_ADDR x, GM_ADDR prof) {\n"
       "  OPTRACE_KERNEL_BEGIN();\n"
       "  KernImpl::Kern op;\n"
       "  op.Init(x);\n"
       "  op.Process();\n"
       "  OPTRACE_KERNEL_END(prof);\n"
       "}\n"},
      {"op_kernel/kern.h",
       "#ifndef KERN_H\n"
       "#define KERN_H\n"
       "#include \"kernel_operator.h\"\n"
       "#include \"optrace/trace.h\"\n"
       "#include \"stage/stage.h\"\n"
       "\n"
       "#define RUN_TAIL(obj) obj.Execute()\n"
       "\n"
       "namespace KernImpl {\n"
       "class Kern {\n"
       " public:\n"
       "  __aicore__ inline void Init(GM_ADDR x) {\n"
       "    x_ = x;\n"
       "    for (uint32_t i = 0; i < 4; ++i) {\n"
       "      n_ += i;\n"
       "    }\n"
       "  }\n"
       "  __aicore__ inline void Process() {\n"
       "    if ASCEND_IS_AIC {\n"
       "      Run<AscendC::AIC>();\n"
       "    } else {\n"
       "      Run<AscendC::AIV>();\n"
       "    }\n"
       "  }\n"
       "\n"
       " private:\n"
       "  template <int32_t CORE_TYPE>\n"
       "  __aicore__ inline void Run() {\n"
       "    Stage stage(n_);\n"
       "    stage.template operator()<CORE_TYPE>();\n"
       "    Tail tail;\n"
       "    RUN_TAIL(tail);\n"
       "  }\n"
       "  GM_ADDR x_;\n"
       "  uint32_t n_ = 4;\n"
       "};\n"
       "}  // namespace KernImpl\n"
       "#endif\n"},
      {"op_kernel/stage/stage.h",
       "#ifndef STAGE_H\n"
       "#define STAGE_H\n"
       "#include \"kernel_operator.h\"\n"
       "\n"
       "namespace KernImpl {\n"
       "__aicore__ inline void CopyLine(uint32_t* dst, uint32_t n) {\n"
       "  for (uint32_t i = 0; i < n; ++i) {\n"
       "    dst[i] = i;\n"
       "  }\n"
       "}\n"
       "\n"
       "class Stage {\n"
       " public:\n"
       "  __aicore__ inline explicit Stage(uint32_t n) : n_(n) {}\n"
       "  template <int32_t CORE_TYPE>\n"
       "  __aicore__ inline void operator()() {\n"
       "    if constexpr (CORE_TYPE == AscendC::AIC) {\n"
       "      CubeWork();\n"
       "    } else {\n"
       "      VecWork();\n"
       "    }\n"
       "  }\n"
       "\n"
       " private:\n"
       "  __aicore__ inline void CubeWork() {\n"
       "    for (uint32_t groupIdx = 0; groupIdx < n_; ++groupIdx) {\n"
       "      if (groupIdx == 3) {\n"
       "        break;\n"
       "      }\n"
       "      Accumulate(groupIdx);\n"
       "    }\n"
       "    AscendC::SyncAll<false>();\n"
       "  }\n"
       "  __aicore__ inline void Accumulate(uint32_t groupIdx) {\n"
       "    for (uint32_t k = 0; k < n_; ++k) {\n"
       "      acc_ += k * groupIdx;\n"
       "    }\n"
       "    if (acc_ > 100) return;\n"
       "    AscendC::CrossCoreWaitFlag(1);\n"
       "  }\n"
       "  __aicore__ inline void VecWork() {\n"
       "    auto drain = [&](uint32_t count) {\n"
       "      for (uint32_t j = 0; j < count; ++j) {\n"
       "        acc_ += j;\n"
       "      }\n"
       "      AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(1);\n"
       "    };\n"
       "    drain(n_);\n"
       "#if 0\n"
       "    NeverCalled();\n"
       "#endif\n"
       "  }\n"
       "  __aicore__ inline void NeverCalled() {\n"
       "    for (uint32_t j = 0; j < 9; ++j) {\n"
       "      acc_ += j;\n"
       "    }\n"
       "  }\n"
       "  uint32_t n_;\n"
       "  uint32_t acc_ = 0;\n"
       "};\n"
       "\n"
       "class Tail {\n"
       " public:\n"
       "  __aicore__ inline void Execute() {\n"
       "    uint32_t line[8];\n"
       "    for (uint32_t r = 0; r < 8; ++r) {\n"
       "      if (r == 5) {\n"
       "        continue;\n"
       "      }\n"
       "      CopyLine(line, r);\n"
       "    }\n"
       "  }\n"
       "};\n"
       "}  // namespace KernImpl\n"
       "#endif\n"},
  };
}

inline const source::PlanSite* FindSite(const source::Plan& plan, const std::string& name) {
  for (const source::PlanSite& s : plan.sites)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace optrace::testing
