// Reduced from dispatch_ffn_combine_w4a8/op_kernel/utils/block_epilogue_w4a8post_pertoken_swiglu.hpp
// (CANN Open Software): the vector epilogue; the first cores only move data and leave early.
#pragma once
#include "dispatch_policy_custom.hpp"

namespace Catlass::Epilogue::Block {

template <uint32_t UB_STAGES_, class CType_>
class BlockEpilogue<EpilogueAtlasA2W4A8PostPerTokenDequantSwigluQuant<UB_STAGES_>, CType_> {
public:
    using DispatchPolicy = EpilogueAtlasA2W4A8PostPerTokenDequantSwigluQuant<UB_STAGES_>;
    using ArchTag = typename DispatchPolicy::ArchTag;

    CATLASS_DEVICE
    BlockEpilogue(Arch::Resource<ArchTag> &resource, uint32_t n) {}

    CATLASS_DEVICE
    void operator()(AscendC::GlobalTensor<float> const &gmC, uint32_t n)
    {
        uint32_t subblockIdx = get_block_idx() + get_subblockid() * get_block_num();
        if (subblockIdx < moveDataCoreNum) {
            return;
        }
        Dequant(gmC, n);
    }

    CATLASS_DEVICE
    void Finalize() {}

private:
    CATLASS_DEVICE
    void Dequant(AscendC::GlobalTensor<float> const &gmC, uint32_t n) {}

    uint32_t moveDataCoreNum;
};

}  // namespace Catlass::Epilogue::Block
