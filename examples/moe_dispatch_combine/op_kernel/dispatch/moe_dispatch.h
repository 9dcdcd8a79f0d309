// Dispatch phase: routes every local token to the rank that owns its expert and gathers the
// tokens each local expert group received. AIV roles: send cores copy tokens into the peers'
// windows then publish per-rank done flags; receive cores wait for every peer's flags and
// gather rows per expert group; compute cores derive route weights and run the shared expert
// meanwhile. AIC cores only wait for the gathered groups.
#ifndef MOE_DISPATCH_COMBINE_DISPATCH_MOE_DISPATCH_H
#define MOE_DISPATCH_COMBINE_DISPATCH_MOE_DISPATCH_H

#include "../common/moe_context.h"

namespace MoeDispatchCombineImpl {

class MoeDispatch {
 public:
  __aicore__ inline explicit MoeDispatch(MoeContext& ctx) : ctx_(ctx) {}

  template <int32_t CORE_TYPE>
  __aicore__ inline void operator()();

 private:
  __aicore__ inline void SendTokens() {
    MoeTracing(TRACE_POINT("dispatch send aiv", "B"));
    const WindowLayout win = ctx_.Window();
    const uint32_t senders = ctx_.RoleCount(AivRole::kSend);
    MoeTracing(TRACE_POINT("dispatch send-token", "B"));
    for (uint32_t t = ctx_.RoleIndex(); t < ctx_.tokens; t += senders) {
      const uint32_t expert = static_cast<uint32_t>(ctx_.expertIds.GetValue(t));
      const uint32_t dst = expert / ctx_.groups;
      const uint32_t group = expert % ctx_.groups;
      const uint64_t slot = static_cast<uint64_t>(ctx_.rankId) * ctx_.tokens + t;
      CopyRow(ctx_.WindowFloat(dst), win.rows + slot * ctx_.hidden, ctx_.x, static_cast<uint64_t>(t) * ctx_.hidden,
              ctx_.hidden);
      ctx_.WindowInt(dst).SetValue(win.meta + slot, static_cast<int32_t>(group + 1));
    }
    MoeTracing(TRACE_POINT("dispatch send-token", "E"));
    MoeTracing(TRACE_POINT("dispatch send-count", "B"));
    for (uint32_t dst = 0; dst < ctx_.rankNum; ++dst) {
      AscendC::GlobalTensor<int32_t> peer = ctx_.WindowInt(dst);
      peer.SetValue(win.sendDone + ctx_.rankId * kMaxCoreSlots + ctx_.RoleIndex(), 1);
      AscendC::DataCacheCleanAndInvalid<int32_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                        AscendC::DcciDst::CACHELINE_OUT>(peer);
    }
    MoeTracing(TRACE_POINT("dispatch send-count", "E"));
    MoeTracing(TRACE_POINT("dispatch send aiv", "E"));
  }

  __aicore__ inline void ReceiveTokens() {
    MoeTracing(TRACE_POINT("dispatch recv aiv", "B"));
    const WindowLayout win = ctx_.Window();
    const WorkspaceLayout ws = ctx_.Workspace();
    AscendC::GlobalTensor<int32_t> own = ctx_.WindowInt(ctx_.rankId);
    AscendC::GlobalTensor<float> ownRows = ctx_.WindowFloat(ctx_.rankId);
    MoeTracing(TRACE_POINT("dispatch recv-wait", "B"));
    const uint32_t senders = ctx_.RoleCount(AivRole::kSend);
    for (uint32_t src = 0; src < ctx_.rankNum; ++src) {
      for (uint32_t s = 0; s < senders; ++s) {
        WaitFlagSet(own, win.sendDone + src * kMaxCoreSlots + s);
      }
    }
    MoeTracing(TRACE_POINT("dispatch recv-wait", "E"));
    const uint32_t receivers = ctx_.RoleCount(AivRole::kRecv);
    for (uint32_t g = ctx_.RoleIndex(); g < ctx_.groups; g += receivers) {
      MoeTracing(TRACE_POINT("dispatch recv-gather", "B"), g);
      uint32_t count = 0;
      for (uint32_t slot = 0; slot < ctx_.GroupCapacity(); ++slot) {
        if (own.GetValue(win.meta + slot) != static_cast<int32_t>(g + 1)) {
          continue;
        }
        const uint64_t row = static_cast<uint64_t>(g) * ctx_.GroupCapacity() + count;
        CopyRow(ctx_.wsFloat, ws.groupIn + row * ctx_.hidden, ownRows, win.rows + slot * ctx_.hidden, ctx_.hidden);
        ctx_.wsInt.SetValue(ws.origin + row, static_cast<int32_t>(slot));
        ++count;
      }
      ctx_.wsInt.SetValue(ws.counts + g, static_cast<int32_t>(count));
      MoeTracing(TRACE_POINT("dispatch recv-gather", "E"), g);
    }
    MoeTracing(TRACE_POINT("dispatch recv aiv", "E"));
  }

  __aicore__ inline void ComputeLocal() {
    MoeTracing(TRACE_POINT("dispatch compute aiv", "B"));
    const WorkspaceLayout ws = ctx_.Workspace();
    const uint32_t computes = ctx_.RoleCount(AivRole::kCompute);
    MoeTracing(TRACE_POINT("dispatch route-weight", "B"));
    for (uint32_t t = ctx_.RoleIndex(); t < ctx_.tokens; t += computes) {
      float absMax = 0.0f;
      for (uint32_t h = 0; h < ctx_.hidden; ++h) {
        const float v = ctx_.x.GetValue(static_cast<uint64_t>(t) * ctx_.hidden + h);
        absMax = v > absMax ? v : (-v > absMax ? -v : absMax);
      }
      ctx_.wsFloat.SetValue(ws.routeWeight + t, 1.0f / (1.0f + absMax));
    }
    MoeTracing(TRACE_POINT("dispatch route-weight", "E"));
    MoeTracing(TRACE_POINT("dispatch shared-expert", "B"));
    for (uint32_t t = ctx_.RoleIndex(); t < ctx_.tokens; t += computes) {
      for (uint32_t h = 0; h < ctx_.hidden; ++h) {
        const uint64_t i = static_cast<uint64_t>(t) * ctx_.hidden + h;
        ctx_.wsFloat.SetValue(ws.shared + i, 0.5f * ctx_.x.GetValue(i));
      }
    }
    MoeTracing(TRACE_POINT("dispatch shared-expert", "E"));
    MoeTracing(TRACE_POINT("dispatch compute aiv", "E"));
  }

  MoeContext& ctx_;  // not const: GlobalTensor::SetValue is not a const member
};

template <>
__aicore__ inline void MoeDispatch::operator()<AscendC::AIC>() {
  MoeTracing(TRACE_POINT("dispatch aic", "B"));
  // While the vector cores route tokens, the cube core checks that every group it owns
  // (g % blockNum == blockIdx) has its weights in place: a non-finite weight would poison
  // every token routed to that expert.
  MoeTracing(TRACE_POINT("dispatch plan aic", "B"));
  const uint32_t matrix = ctx_.hidden * ctx_.hidden;
  for (uint32_t g = ctx_.blockIdx; g < ctx_.groups; g += ctx_.blockNum) {
    for (uint32_t i = 0; i < 2 * matrix; ++i) {
      const float w = ctx_.weight.GetValue(static_cast<uint64_t>(g) * 2 * matrix + i);
      if (!(w == w)) {
        ctx_.weight.SetValue(static_cast<uint64_t>(g) * 2 * matrix + i, 0.0f);
      }
    }
  }
  MoeTracing(TRACE_POINT("dispatch plan aic", "E"));
  MoeTracing(TRACE_POINT("dispatch sync-all aic", "B"));
  AscendC::SyncAll<false>();
  MoeTracing(TRACE_POINT("dispatch sync-all aic", "E"));
  MoeTracing(TRACE_POINT("dispatch aic", "E"));
}

template <>
__aicore__ inline void MoeDispatch::operator()<AscendC::AIV>() {
  MoeTracing(TRACE_POINT("dispatch aiv", "B"));
  switch (ctx_.Role()) {
    case AivRole::kSend:
      SendTokens();
      break;
    case AivRole::kRecv:
      ReceiveTokens();
      break;
    case AivRole::kCompute:
      ComputeLocal();
      break;
  }
  MoeTracing(TRACE_POINT("dispatch sync-all aiv", "B"));
  AscendC::SyncAll<false>();
  MoeTracing(TRACE_POINT("dispatch sync-all aiv", "E"));
  MoeTracing(TRACE_POINT("dispatch aiv", "E"));
}

}  // namespace MoeDispatchCombineImpl

#endif  // MOE_DISPATCH_COMBINE_DISPATCH_MOE_DISPATCH_H
