// InferShape / InferDataType of moe_dispatch_combine. profiling_data always gets its shape and
// dtype here (seed 000: REQUIRED outputs are never left to "maybe absent" branches).
#include "register/op_impl_registry.h"

namespace ge {

constexpr size_t kInputX = 0;
constexpr size_t kOutputY = 0;
constexpr size_t kOutputProfiling = 1;

// Infer has no GetBlockNum(): size the profiling output for the largest block count so it is
// never too small (seed 000: MAX_INFER_GETBLOCKNUM_UB), one AIC + 2 AIV slots per block.
constexpr int64_t MAX_INFER_GETBLOCKNUM_UB = 128;
constexpr int64_t MIX_AIC_1_2_SUBBLOCK_NUM = 2;
constexpr int64_t MIX_AIC_1_2_SLOTS_PER_GROUP = 1 + MIX_AIC_1_2_SUBBLOCK_NUM;
constexpr int64_t PROF_SIZE_PER_CORE = 2048;

graphStatus InferShapeMoeDispatchCombine(gert::InferShapeContext* context) {
  const gert::Shape* x = context->GetInputShape(kInputX);
  gert::Shape* y = context->GetOutputShape(kOutputY);
  gert::Shape* profiling = context->GetOutputShape(kOutputProfiling);
  if (x == nullptr || y == nullptr || profiling == nullptr) {
    return GRAPH_FAILED;
  }
  *y = *x;
  profiling->SetDimNum(1);
  profiling->SetDim(0, MAX_INFER_GETBLOCKNUM_UB * MIX_AIC_1_2_SLOTS_PER_GROUP * PROF_SIZE_PER_CORE);
  return GRAPH_SUCCESS;
}

graphStatus InferDataTypeMoeDispatchCombine(gert::InferDataTypeContext* context) {
  context->SetOutputDataType(kOutputY, context->GetInputDataType(kInputX));
  context->SetOutputDataType(kOutputProfiling, DT_INT64);
  return GRAPH_SUCCESS;
}

}  // namespace ge
