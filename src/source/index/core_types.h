// Core types in AscendC code: which code runs on the cube core (AIC), which on the vector cores
// (AIV). Read from conditions (`if ASCEND_IS_AIV`, `g_coreType == AscendC::AIC`,
// `if constexpr (CORE_TYPE == AscendC::AIV)` with CORE_TYPE bound), preprocessor regions
// (`__DAV_C220_CUBE__`, `SPLIT_CORE_VEC`), specialisation arguments (`operator()<AscendC::AIC>`)
// and the kernel's declared task type (`KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY)`).
//
//   CoreCondition c = EvaluateCoreCondition("g_coreType == AscendC::AIV");  // body AIV, else AIC
//   unsigned k = TaskTypeCores("KERNEL_TYPE_MIX_AIC_1_2");                  // kCoreBoth
#pragma once

#include <string>
#include <string_view>

namespace optrace::source::index {

enum CoreMask : unsigned { kCoreNone = 0, kCoreAic = 1, kCoreAiv = 2, kCoreBoth = 3 };

unsigned FlipCore(unsigned c);  // AIC <-> AIV, others unchanged
std::string CoreName(unsigned c);  // "AIC", "AIV", "AIC+AIV", "-"

// The single core type a name or short text stands for: "AscendC::AIC", "AIV", "ASCEND_IS_AIC",
// "__DAV_C220_VEC__", "SPLIT_CORE_CUBE", "!ASCEND_IS_AIV" (negations flip). kCoreNone otherwise.
unsigned CoreOfText(std::string_view text);

// What a condition tells about core types. `body`: cores on which the controlled statement can
// run; `other`: cores on which the else branch can run. A condition decided for this
// instantiation (`AscendC::AIC == AscendC::AIV` once CORE_TYPE is bound) sets `decided` and
// `value`, and the branch that is never taken gets kCoreNone.
struct CoreCondition {
  unsigned body = kCoreBoth;
  unsigned other = kCoreBoth;
  bool decided = false;
  bool value = false;
};
CoreCondition EvaluateCoreCondition(std::string_view condition);

// Cores of a KERNEL_TYPE_* task type: AIV_ONLY -> AIV, AIC_ONLY -> AIC, MIX_* -> both;
// kCoreNone for anything else.
unsigned TaskTypeCores(std::string_view type);

// Names of AscendC cube-unit operations: code calling them runs on AIC.
bool IsCubeOperation(std::string_view name);

}  // namespace optrace::source::index
