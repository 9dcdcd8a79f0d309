// Tiling data of moe_dispatch_combine, shared by the host side (which fills it) and the
// kernel (which reads it word by word from the tiling GM buffer), plus the GM layouts both
// sides derive from it. Sizes are in 32-bit words (float or int32 elements).
#ifndef MOE_DISPATCH_COMBINE_TILING_H
#define MOE_DISPATCH_COMBINE_TILING_H

#include "kernel_operator.h"

namespace MoeDispatchCombineImpl {

constexpr uint32_t kMaxHidden = 32;    // the kernel keeps one weight matrix in local memory
constexpr uint32_t kMaxCoreSlots = 64; // per-rank flag slots for send cores

// Field indices of the tiling buffer (uint32 words).
enum TilingField : uint32_t {
  kTilingRankId = 0,
  kTilingRankNum,
  kTilingTokens,        // tokens per rank
  kTilingHidden,        // hidden size (<= kMaxHidden)
  kTilingExpertGroups,  // local experts per rank; global expert e lives on rank e / groups
  kTilingWindowWords,   // words of one rank's communication window
  kTilingFieldCount,
};

// One rank's communication window (written by peers, read by its owner).
struct WindowLayout {
  uint32_t rows, meta, sendDone, back, combineDone, words;
  __aicore__ inline WindowLayout(uint32_t ranks, uint32_t tokens, uint32_t hidden) {
    rows = 0;                                      // [src rank][token][hidden] float
    meta = rows + ranks * tokens * hidden;         // [src rank][token] int32: local group + 1, 0 = none
    sendDone = meta + ranks * tokens;              // [src rank][send core] int32 flags
    back = sendDone + ranks * kMaxCoreSlots;       // [token][hidden] float: expert output back home
    combineDone = back + tokens * hidden;          // [src rank][send core] int32 flags
    words = combineDone + ranks * kMaxCoreSlots;
  }
};

// One rank's private workspace.
struct WorkspaceLayout {
  uint32_t counts, origin, groupIn, groupMid, groupOut, shared, routeWeight, words;
  __aicore__ inline WorkspaceLayout(uint32_t ranks, uint32_t tokens, uint32_t hidden, uint32_t groups) {
    const uint32_t capacity = ranks * tokens;      // rows a local group can receive
    counts = 0;                                    // [group] int32
    origin = counts + groups;                      // [group][row] int32: src rank * tokens + token
    groupIn = origin + groups * capacity;          // [group][row][hidden] float
    groupMid = groupIn + groups * capacity * hidden;
    groupOut = groupMid + groups * capacity * hidden;
    shared = groupOut + groups * capacity * hidden;  // [token][hidden] float: shared expert
    routeWeight = shared + tokens * hidden;          // [token] float
    words = routeWeight + tokens;
  }
};

}  // namespace MoeDispatchCombineImpl

#endif  // MOE_DISPATCH_COMBINE_TILING_H
