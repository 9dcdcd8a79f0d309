// Combine phase: expert outputs travel back to the tokens' home ranks and are reduced with
// the route weight and the shared expert into y. AIV roles: send cores return the rows of
// their expert groups and publish done flags; receive cores wait for every peer and reduce;
// compute cores have no combine work. After the final SyncAll, AIC 0 clears this rank's
// window and counters so the next launch starts clean.
#ifndef MOE_DISPATCH_COMBINE_COMBINE_MOE_COMBINE_H
#define MOE_DISPATCH_COMBINE_COMBINE_MOE_COMBINE_H

#include "../common/moe_context.h"

namespace MoeDispatchCombineImpl {

class MoeCombine {
 public:
  __aicore__ inline explicit MoeCombine(MoeContext& ctx) : ctx_(ctx) {}

  template <int32_t CORE_TYPE>
  __aicore__ inline void operator()();

 private:
  __aicore__ inline void SendBack() {
    MoeTracing(TRACE_POINT("combine send aiv", "B"));
    const WindowLayout win = ctx_.Window();
    const WorkspaceLayout ws = ctx_.Workspace();
    const uint32_t senders = ctx_.RoleCount(AivRole::kSend);
    for (uint32_t g = ctx_.RoleIndex(); g < ctx_.groups; g += senders) {
      MoeTracing(TRACE_POINT("combine send-token", "B"), g);
      const uint32_t rows = static_cast<uint32_t>(ctx_.wsInt.GetValue(ws.counts + g));
      const uint64_t rowBase = static_cast<uint64_t>(g) * ctx_.GroupCapacity();
      for (uint32_t r = 0; r < rows; ++r) {
        const uint32_t slot = static_cast<uint32_t>(ctx_.wsInt.GetValue(ws.origin + rowBase + r));
        const uint32_t home = slot / ctx_.tokens;
        const uint32_t token = slot % ctx_.tokens;
        CopyRow(ctx_.WindowFloat(home), win.back + static_cast<uint64_t>(token) * ctx_.hidden, ctx_.wsFloat,
                ws.groupOut + (rowBase + r) * ctx_.hidden, ctx_.hidden);
      }
      MoeTracing(TRACE_POINT("combine send-token", "E"), g);
    }
    MoeTracing(TRACE_POINT("combine send-count", "B"));
    for (uint32_t dst = 0; dst < ctx_.rankNum; ++dst) {
      AscendC::GlobalTensor<int32_t> peer = ctx_.WindowInt(dst);
      peer.SetValue(win.combineDone + ctx_.rankId * kMaxCoreSlots + ctx_.RoleIndex(), 1);
      AscendC::DataCacheCleanAndInvalid<int32_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                        AscendC::DcciDst::CACHELINE_OUT>(peer);
    }
    MoeTracing(TRACE_POINT("combine send-count", "E"));
    MoeTracing(TRACE_POINT("combine send aiv", "E"));
  }

  __aicore__ inline void ReceiveAndReduce() {
    MoeTracing(TRACE_POINT("combine recv aiv", "B"));
    const WindowLayout win = ctx_.Window();
    const WorkspaceLayout ws = ctx_.Workspace();
    AscendC::GlobalTensor<int32_t> own = ctx_.WindowInt(ctx_.rankId);
    AscendC::GlobalTensor<float> ownRows = ctx_.WindowFloat(ctx_.rankId);
    MoeTracing(TRACE_POINT("combine recv-wait", "B"));
    const uint32_t senders = ctx_.RoleCount(AivRole::kSend);
    for (uint32_t src = 0; src < ctx_.rankNum; ++src) {
      for (uint32_t s = 0; s < senders; ++s) {
        WaitFlagSet(own, win.combineDone + src * kMaxCoreSlots + s);
      }
    }
    MoeTracing(TRACE_POINT("combine recv-wait", "E"));
    MoeTracing(TRACE_POINT("combine reduce", "B"));
    const uint32_t receivers = ctx_.RoleCount(AivRole::kRecv);
    for (uint32_t t = ctx_.RoleIndex(); t < ctx_.tokens; t += receivers) {
      const float weight = ctx_.wsFloat.GetValue(ws.routeWeight + t);
      for (uint32_t h = 0; h < ctx_.hidden; ++h) {
        const uint64_t i = static_cast<uint64_t>(t) * ctx_.hidden + h;
        ctx_.y.SetValue(i, weight * ownRows.GetValue(win.back + i) + ctx_.wsFloat.GetValue(ws.shared + i));
      }
    }
    MoeTracing(TRACE_POINT("combine reduce", "E"));
    MoeTracing(TRACE_POINT("combine recv aiv", "E"));
  }

  __aicore__ inline void Cleanup() {
    const WindowLayout win = ctx_.Window();
    const WorkspaceLayout ws = ctx_.Workspace();
    AscendC::GlobalTensor<int32_t> own = ctx_.WindowInt(ctx_.rankId);
    for (uint32_t i = win.meta; i < win.meta + ctx_.GroupCapacity(); ++i) {
      own.SetValue(i, 0);
    }
    for (uint32_t i = 0; i < ctx_.rankNum * kMaxCoreSlots; ++i) {
      own.SetValue(win.sendDone + i, 0);
      own.SetValue(win.combineDone + i, 0);
    }
    for (uint32_t g = 0; g < ctx_.groups; ++g) {
      ctx_.wsInt.SetValue(ws.counts + g, 0);
    }
    AscendC::DataCacheCleanAndInvalid<int32_t, AscendC::CacheLine::ENTIRE_DATA_CACHE,
                                      AscendC::DcciDst::CACHELINE_OUT>(own);
  }

  MoeContext& ctx_;  // not const: GlobalTensor::SetValue is not a const member
};

template <>
__aicore__ inline void MoeCombine::operator()<AscendC::AIC>() {
  MoeTracing(TRACE_POINT("combine aic", "B"));
  MoeTracing(TRACE_POINT("combine sync-all aic", "B"));
  AscendC::SyncAll<false>();
  MoeTracing(TRACE_POINT("combine sync-all aic", "E"));
  if (ctx_.blockIdx == 0) {
    MoeTracing(TRACE_POINT("combine cleanup aic", "B"));
    Cleanup();
    MoeTracing(TRACE_POINT("combine cleanup aic", "E"));
  }
  MoeTracing(TRACE_POINT("combine aic", "E"));
}

template <>
__aicore__ inline void MoeCombine::operator()<AscendC::AIV>() {
  MoeTracing(TRACE_POINT("combine aiv", "B"));
  if (ctx_.Role() == AivRole::kSend) {
    SendBack();
  } else if (ctx_.Role() == AivRole::kRecv) {
    ReceiveAndReduce();
  }
  MoeTracing(TRACE_POINT("combine sync-all aiv", "B"));
  AscendC::SyncAll<false>();
  MoeTracing(TRACE_POINT("combine sync-all aiv", "E"));
  MoeTracing(TRACE_POINT("combine aiv", "E"));
}

}  // namespace MoeDispatchCombineImpl

#endif  // MOE_DISPATCH_COMBINE_COMBINE_MOE_COMBINE_H
