// Host side of moe_dispatch_combine: the OpDef and the tiling function (CANN custom-op layout).
// Not built by optrace's CMake (it needs the CANN toolkit); `optrace lint --op` checks it.
//
// Output order (seed 000, gate G2): the main output y, then profiling_data LAST, REQUIRED,
// int64 [MAX_INFER_GETBLOCKNUM_UB * (1 + MIX_AIC_1_2_SUBBLOCK_NUM) * PROF_SIZE_PER_CORE].
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/moe_dispatch_combine_tiling.h"

namespace optiling {

static ge::graphStatus MoeDispatchCombineTiling(gert::TilingContext* context) {
  const gert::StorageShape* xShape = context->GetInputShape(0);
  const gert::RuntimeAttrs* attrs = context->GetAttrs();
  const uint32_t rankId = static_cast<uint32_t>(*attrs->GetAttrPointer<int64_t>(0));
  const uint32_t rankNum = static_cast<uint32_t>(*attrs->GetAttrPointer<int64_t>(1));
  const uint32_t groups = static_cast<uint32_t>(*attrs->GetAttrPointer<int64_t>(2));
  const uint32_t tokens = static_cast<uint32_t>(xShape->GetStorageShape().GetDim(0));
  const uint32_t hidden = static_cast<uint32_t>(xShape->GetStorageShape().GetDim(1));
  if (hidden > MoeDispatchCombineImpl::kMaxHidden) {
    return ge::GRAPH_FAILED;
  }
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  const uint32_t blockDim = platform.GetCoreNumAic();
  context->SetBlockDim(blockDim);

  uint32_t* words = context->GetRawTilingData()->GetData<uint32_t>();
  const MoeDispatchCombineImpl::WindowLayout window(rankNum, tokens, hidden);
  const MoeDispatchCombineImpl::WorkspaceLayout workspace(rankNum, tokens, hidden, groups);
  words[MoeDispatchCombineImpl::kTilingRankId] = rankId;
  words[MoeDispatchCombineImpl::kTilingRankNum] = rankNum;
  words[MoeDispatchCombineImpl::kTilingTokens] = tokens;
  words[MoeDispatchCombineImpl::kTilingHidden] = hidden;
  words[MoeDispatchCombineImpl::kTilingExpertGroups] = groups;
  words[MoeDispatchCombineImpl::kTilingWindowWords] = window.words;
  context->GetRawTilingData()->SetDataSize(MoeDispatchCombineImpl::kTilingFieldCount * sizeof(uint32_t));

  size_t* workspaces = context->GetWorkspaceSizes(1);
  workspaces[0] = platform.GetLibApiWorkSpaceSize() + workspace.words * sizeof(uint32_t);
  return ge::GRAPH_SUCCESS;
}

}  // namespace optiling

namespace ge {
graphStatus InferShapeMoeDispatchCombine(gert::InferShapeContext* context);
graphStatus InferDataTypeMoeDispatchCombine(gert::InferDataTypeContext* context);
}  // namespace ge

namespace ops {

class MoeDispatchCombine : public OpDef {
 public:
  explicit MoeDispatchCombine(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Input("expert_ids").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
    this->Input("weight").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Input("windows").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("profiling_data").ParamType(REQUIRED).DataType({ge::DT_INT64}).Format({ge::FORMAT_ND});
    this->Attr("rank_id").AttrType(REQUIRED).Int();
    this->Attr("rank_num").AttrType(REQUIRED).Int();
    this->Attr("expert_groups").AttrType(REQUIRED).Int();

    this->SetInferShape(ge::InferShapeMoeDispatchCombine).SetInferDataType(ge::InferDataTypeMoeDispatchCombine);
    this->AICore().SetTiling(optiling::MoeDispatchCombineTiling);
    this->AICore().AddConfig("ascend910b");
    this->MC2().HcclGroup("group_ep");
  }
};

OP_ADD(MoeDispatchCombine);

}  // namespace ops
