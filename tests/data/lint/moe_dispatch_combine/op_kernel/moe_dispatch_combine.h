// MoeDispatchCombine: the kernel class of the moe_dispatch_combine operator.
//   dispatch (tokens -> expert ranks) -> grouped matmul (up, activation, down, dequant) ->
//   combine (expert outputs -> home ranks, weighted reduce with the shared expert).
// A mixed 1C2V kernel: Process() runs the AIC or the AIV half of every phase; each phase is
// a functor with operator()<AscendC::AIC> / operator()<AscendC::AIV> in its own directory.
#ifndef MOE_DISPATCH_COMBINE_H
#define MOE_DISPATCH_COMBINE_H

#include "moe_dispatch_combine_base.h"
#include "common/moe_context.h"
#include "dispatch/moe_dispatch.h"
#include "gemm/grouped_matmul.h"
#include "combine/moe_combine.h"

namespace MoeDispatchCombineImpl {

class MoeDispatchCombine {
 public:
  __aicore__ inline MoeDispatchCombine() {}

  // GM order (seed 000, gate G2): inputs, outputs, profiling_data last of the outputs, then
  // workspace and tiling.
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR expertIds, GM_ADDR weight, GM_ADDR windows, GM_ADDR y,
                              GM_ADDR workspace, GM_ADDR tiling) {
    AscendC::GlobalTensor<uint32_t> tilingGm;
    tilingGm.SetGlobalBuffer(reinterpret_cast<__gm__ uint32_t*>(tiling), kTilingFieldCount);
    ctx_.rankId = tilingGm.GetValue(kTilingRankId);
    ctx_.rankNum = tilingGm.GetValue(kTilingRankNum);
    ctx_.tokens = tilingGm.GetValue(kTilingTokens);
    ctx_.hidden = tilingGm.GetValue(kTilingHidden);
    ctx_.groups = tilingGm.GetValue(kTilingExpertGroups);
    ctx_.windowWords = tilingGm.GetValue(kTilingWindowWords);
    ctx_.blockNum = static_cast<uint32_t>(AscendC::GetBlockNum());
    if ASCEND_IS_AIC {
      ctx_.blockIdx = static_cast<uint32_t>(AscendC::GetBlockIdx());
    } else {
      ctx_.aivIdx = static_cast<uint32_t>(AscendC::GetBlockIdx());
      ctx_.blockIdx = ctx_.aivIdx / 2;
      ctx_.subBlockIdx = static_cast<uint32_t>(AscendC::GetSubBlockIdx());
    }
    const uint32_t th = ctx_.tokens * ctx_.hidden;
    ctx_.x.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), th);
    ctx_.expertIds.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(expertIds), ctx_.tokens);
    ctx_.weight.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(weight), ctx_.groups * 2 * ctx_.hidden * ctx_.hidden);
    ctx_.y.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), th);
    const uint32_t wsWords = ctx_.Workspace().words;
    ctx_.wsFloat.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(workspace), wsWords);
    ctx_.wsInt.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(workspace), wsWords);
    ctx_.windows = windows;
  }

  __aicore__ inline void Process() {
    if ASCEND_IS_AIC {
      Run<AscendC::AIC>();
    } else {
      Run<AscendC::AIV>();
    }
  }

 private:
  template <int32_t CORE_TYPE>
  __aicore__ inline void Run() {
    MoeTracing(TRACE_POINT("processing", "B"));
    MoeDispatch dispatch(ctx_);
    dispatch.template operator()<CORE_TYPE>();
    GroupedMatmul gemm(ctx_);
    gemm.template operator()<CORE_TYPE>();
    MoeCombine combine(ctx_);
    combine.template operator()<CORE_TYPE>();
    MoeTracing(TRACE_POINT("processing", "E"));
  }

  MoeContext ctx_;
};

}  // namespace MoeDispatchCombineImpl

#endif  // MOE_DISPATCH_COMBINE_H
