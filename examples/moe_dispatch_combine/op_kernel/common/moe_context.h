// What every phase of moe_dispatch_combine sees: tiling, GM views, and this core's role.
//
// AIV roles follow the AIV index (GetBlockIdx() on a vector core, [0, 2 * blockDim)) as real
// dispatch kernels do: index % 3 == 0 sends, == 1 receives, == 2 computes (route weights and
// the shared expert). Local expert group g is owned by AIC g % blockDim, whose two AIVs run
// the group's epilogues.
#ifndef MOE_DISPATCH_COMBINE_COMMON_MOE_CONTEXT_H
#define MOE_DISPATCH_COMBINE_COMMON_MOE_CONTEXT_H

#include "../moe_dispatch_combine_base.h"
#include "../moe_dispatch_combine_tiling.h"

namespace MoeDispatchCombineImpl {

enum class AivRole : uint32_t { kSend = 0, kRecv = 1, kCompute = 2 };

// Cross-core flag ids (mode 2, AIC <-> its two AIVs).
constexpr uint16_t kFlagMatmulDone = 1;
constexpr uint16_t kFlagEpilogueDone = 2;

// Grouped-matmul stages, traced as extraId.
constexpr uint32_t kStageUpProj = 0;
constexpr uint32_t kStageDownProj = 1;

struct MoeContext {
  uint32_t rankId = 0;
  uint32_t rankNum = 1;
  uint32_t tokens = 0;
  uint32_t hidden = 0;
  uint32_t groups = 0;
  uint32_t windowWords = 0;
  uint32_t blockNum = 1;
  uint32_t blockIdx = 0;   // AIC: its index; AIV: the AI core (block) it belongs to
  uint32_t aivIdx = 0;     // AIV index in [0, 2 * blockNum)
  uint32_t subBlockIdx = 0;

  AscendC::GlobalTensor<float> x;          // [tokens][hidden]
  AscendC::GlobalTensor<int32_t> expertIds;  // [tokens]: global expert of each token
  AscendC::GlobalTensor<float> weight;     // [groups][2][hidden][hidden]: up and down projection
  AscendC::GlobalTensor<float> y;          // [tokens][hidden]
  AscendC::GlobalTensor<float> wsFloat;    // this rank's workspace, as float
  AscendC::GlobalTensor<int32_t> wsInt;    // the same words, as int32
  GM_ADDR windows = nullptr;               // rank r's window at windows + r * windowWords words

  __aicore__ inline uint32_t RoleCount(AivRole role) const {
    const uint32_t aivNum = 2 * blockNum;
    const uint32_t r = static_cast<uint32_t>(role);
    return aivNum > r ? (aivNum - r + 2) / 3 : 0;
  }
  __aicore__ inline AivRole Role() const { return static_cast<AivRole>(aivIdx % 3); }
  __aicore__ inline uint32_t RoleIndex() const { return aivIdx / 3; }

  __aicore__ inline WindowLayout Window() const { return WindowLayout(rankNum, tokens, hidden); }
  __aicore__ inline WorkspaceLayout Workspace() const { return WorkspaceLayout(rankNum, tokens, hidden, groups); }
  __aicore__ inline uint32_t GroupCapacity() const { return rankNum * tokens; }

  __aicore__ inline AscendC::GlobalTensor<float> WindowFloat(uint32_t rank) const {
    AscendC::GlobalTensor<float> t;
    t.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(windows) + static_cast<uint64_t>(rank) * windowWords,
                      windowWords);
    return t;
  }
  __aicore__ inline AscendC::GlobalTensor<int32_t> WindowInt(uint32_t rank) const {
    AscendC::GlobalTensor<int32_t> t;
    t.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(windows) + static_cast<uint64_t>(rank) * windowWords,
                      windowWords);
    return t;
  }
};

// Copies `count` floats from src[srcOffset] to dst[dstOffset] (scalar GM moves; the token rows
// here are a few dozen floats, below what a DataCopy through UB would pay off for). `dst` is a
// copy of the view (a pointer and a size): SetValue is not a const member.
__aicore__ inline void CopyRow(AscendC::GlobalTensor<float> dst, uint64_t dstOffset,
                               const AscendC::GlobalTensor<float>& src, uint64_t srcOffset, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    dst.SetValue(dstOffset + i, src.GetValue(srcOffset + i));
  }
}

// Spins until the int32 flag at `offset` of `flags` (written by another core or rank) is
// non-zero; the cache line is invalidated before every read so a stale copy is never used.
__aicore__ inline void WaitFlagSet(const AscendC::GlobalTensor<int32_t>& flags, uint64_t offset) {
  AscendC::GlobalTensor<int32_t> flag = flags[offset];
  while (true) {
    AscendC::DataCacheCleanAndInvalid<int32_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                      AscendC::DcciDst::CACHELINE_OUT>(flag);
    if (flag.GetValue(0) != 0) {
      return;
    }
  }
}

}  // namespace MoeDispatchCombineImpl

#endif  // MOE_DISPATCH_COMBINE_COMMON_MOE_CONTEXT_H
