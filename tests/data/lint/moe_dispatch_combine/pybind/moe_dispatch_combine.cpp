// torch binding of moe_dispatch_combine: same op name, one more return value (seed 000, mode B):
//   y, profiling = torch.ops.custom.moe_dispatch_combine(x, expert_ids, weight, windows, ...)
// profiling_data is always a real tensor (REQUIRED in the OpDef), passed last.
#include <torch/extension.h>

#include "pytorch_npu_helper.hpp"

namespace {

constexpr int64_t kMaxBlockNum = 128;  // matches MAX_INFER_GETBLOCKNUM_UB in the infer function
constexpr int64_t kSlotsPerBlock = 3;  // 1 AIC + 2 AIV
constexpr int64_t kProfSizePerCore = 2048;

std::tuple<at::Tensor, at::Tensor> moe_dispatch_combine(const at::Tensor& x, const at::Tensor& expert_ids,
                                                        const at::Tensor& weight, const at::Tensor& windows,
                                                        int64_t rank_id, int64_t rank_num, int64_t expert_groups) {
  at::Tensor y = at::empty_like(x);
  at::Tensor profiling_data =
      at::zeros({kMaxBlockNum * kSlotsPerBlock * kProfSizePerCore}, x.options().dtype(at::kLong));
  EXEC_NPU_CMD(aclnnMoeDispatchCombine, x, expert_ids, weight, windows, rank_id, rank_num, expert_groups, y,
               profiling_data);
  return std::make_tuple(y, profiling_data);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(custom, m) {
  m.def("moe_dispatch_combine(Tensor x, Tensor expert_ids, Tensor weight, Tensor windows, int rank_id, "
        "int rank_num, int expert_groups) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(custom, PrivateUse1, m) { m.impl("moe_dispatch_combine", &moe_dispatch_combine); }
