// Grouped matmul phase: for every local expert group, the owning AIC multiplies the gathered
// rows by the group's up-projection, its two AIVs apply the activation epilogue, the AIC
// multiplies by the down-projection, the AIVs apply the dequant epilogue. AIC and AIVs hand
// over through mode-2 cross-core flags; stage (up / down) is traced as extraId and the
// group as index.
#ifndef MOE_DISPATCH_COMBINE_GEMM_GROUPED_MATMUL_H
#define MOE_DISPATCH_COMBINE_GEMM_GROUPED_MATMUL_H

#include "../common/moe_context.h"

namespace MoeDispatchCombineImpl {

constexpr float kDequantScale = 0.125f;

class GroupedMatmul {
 public:
  __aicore__ inline explicit GroupedMatmul(MoeContext& ctx) : ctx_(ctx) {}

  template <int32_t CORE_TYPE>
  __aicore__ inline void operator()();

 private:
  // out[row] = in[row] x W for `rows` rows; W (hidden x hidden) is held locally.
  __aicore__ inline void Multiply(uint32_t group, uint32_t stage, uint32_t rows, uint32_t inBase, uint32_t outBase) {
    const uint32_t h = ctx_.hidden;
    float w[kMaxHidden * kMaxHidden];
    MoeTracing(TRACE_POINT("gemm load-weight aic", "B"), stage, group);
    const uint64_t wBase = (static_cast<uint64_t>(group) * 2 + stage) * h * h;
    for (uint32_t i = 0; i < h * h; ++i) {
      w[i] = ctx_.weight.GetValue(wBase + i);
    }
    MoeTracing(TRACE_POINT("gemm load-weight aic", "E"), stage, group);
    MoeTracing(TRACE_POINT("gemm mmad aic", "B"), stage, group);
    const uint64_t rowBase = static_cast<uint64_t>(group) * ctx_.GroupCapacity();
    float a[kMaxHidden];
    for (uint32_t r = 0; r < rows; ++r) {  // tile loop: not traced
      const uint64_t row = (rowBase + r) * h;
      for (uint32_t k = 0; k < h; ++k) {
        a[k] = ctx_.wsFloat.GetValue(inBase + row + k);
      }
      for (uint32_t j = 0; j < h; ++j) {
        float acc = 0.0f;
        for (uint32_t k = 0; k < h; ++k) {
          acc += a[k] * w[k * h + j];
        }
        ctx_.wsFloat.SetValue(outBase + row + j, acc);
      }
    }
    MoeTracing(TRACE_POINT("gemm mmad aic", "E"), stage, group);
    MoeTracing(TRACE_POINT("gemm notify-aiv aic", "B"), stage, group);
    AscendC::CrossCoreSetFlag<2, PIPE_FIX>(kFlagMatmulDone);
    MoeTracing(TRACE_POINT("gemm notify-aiv aic", "E"), stage, group);
    MoeTracing(TRACE_POINT("gemm wait-epilogue aic", "B"), stage, group);
    AscendC::CrossCoreWaitFlag(kFlagEpilogueDone);
    MoeTracing(TRACE_POINT("gemm wait-epilogue aic", "E"), stage, group);
  }

  // The AIV half of one stage: wait for the AIC, transform this sub-block's rows, hand back.
  __aicore__ inline void Epilogue(uint32_t group, uint32_t stage) {
    const WorkspaceLayout ws = ctx_.Workspace();
    MoeTracing(TRACE_POINT("gemm wait-aic", "B"), stage, group);
    AscendC::CrossCoreWaitFlag(kFlagMatmulDone);
    MoeTracing(TRACE_POINT("gemm wait-aic", "E"), stage, group);
    const uint32_t rows = static_cast<uint32_t>(ctx_.wsInt.GetValue(ws.counts + group));
    const uint64_t rowBase = static_cast<uint64_t>(group) * ctx_.GroupCapacity();
    const uint32_t base = stage == kStageUpProj ? ws.groupMid : ws.groupOut;
    if (stage == kStageUpProj) {
      MoeTracing(TRACE_POINT("gemm activation", "B"), group);
    } else {
      MoeTracing(TRACE_POINT("gemm dequant", "B"), group);
    }
    for (uint32_t r = ctx_.subBlockIdx; r < rows; r += 2) {
      for (uint32_t j = 0; j < ctx_.hidden; ++j) {
        const uint64_t i = base + (rowBase + r) * ctx_.hidden + j;
        const float v = ctx_.wsFloat.GetValue(i);
        ctx_.wsFloat.SetValue(i, stage == kStageUpProj ? (v > 0.0f ? v : 0.0f) : v * kDequantScale);
      }
    }
    if (stage == kStageUpProj) {
      MoeTracing(TRACE_POINT("gemm activation", "E"), group);
    } else {
      MoeTracing(TRACE_POINT("gemm dequant", "E"), group);
    }
    MoeTracing(TRACE_POINT("gemm notify-aic", "B"), stage, group);
    AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(kFlagEpilogueDone);
    MoeTracing(TRACE_POINT("gemm notify-aic", "E"), stage, group);
  }

  MoeContext& ctx_;  // not const: GlobalTensor::SetValue is not a const member
};

template <>
__aicore__ inline void GroupedMatmul::operator()<AscendC::AIC>() {
  MoeTracing(TRACE_POINT("gemm aic", "B"));
  const WorkspaceLayout ws = ctx_.Workspace();
  for (uint32_t g = ctx_.blockIdx; g < ctx_.groups; g += ctx_.blockNum) {
    MoeTracing(TRACE_POINT("gemm group aic", "B"), g);
    MoeTracing(TRACE_POINT("gemm load-count aic", "B"), g);
    const uint32_t rows = static_cast<uint32_t>(ctx_.wsInt.GetValue(ws.counts + g));
    MoeTracing(TRACE_POINT("gemm load-count aic", "E"), g);
    MoeTracing(TRACE_POINT("gemm up-proj aic", "B"), g);
    Multiply(g, kStageUpProj, rows, ws.groupIn, ws.groupMid);
    MoeTracing(TRACE_POINT("gemm up-proj aic", "E"), g);
    MoeTracing(TRACE_POINT("gemm down-proj aic", "B"), g);
    Multiply(g, kStageDownProj, rows, ws.groupMid, ws.groupOut);
    MoeTracing(TRACE_POINT("gemm down-proj aic", "E"), g);
    MoeTracing(TRACE_POINT("gemm group aic", "E"), g);
  }
  MoeTracing(TRACE_POINT("gemm sync-all aic", "B"));
  AscendC::SyncAll<false>();
  MoeTracing(TRACE_POINT("gemm sync-all aic", "E"));
  MoeTracing(TRACE_POINT("gemm aic", "E"));
}

template <>
__aicore__ inline void GroupedMatmul::operator()<AscendC::AIV>() {
  MoeTracing(TRACE_POINT("gemm aiv", "B"));
  for (uint32_t g = ctx_.blockIdx; g < ctx_.groups; g += ctx_.blockNum) {
    MoeTracing(TRACE_POINT("gemm group aiv", "B"), g);
    Epilogue(g, kStageUpProj);
    Epilogue(g, kStageDownProj);
    MoeTracing(TRACE_POINT("gemm group aiv", "E"), g);
  }
  MoeTracing(TRACE_POINT("gemm sync-all aiv", "B"));
  AscendC::SyncAll<false>();
  MoeTracing(TRACE_POINT("gemm sync-all aiv", "E"));
  MoeTracing(TRACE_POINT("gemm aiv", "E"));
}

}  // namespace MoeDispatchCombineImpl

#endif  // MOE_DISPATCH_COMBINE_GEMM_GROUPED_MATMUL_H
