// Reduced from dispatch_ffn_combine_w4a8/op_kernel/utils/block_mmad_w4a4.hpp (CANN Open Software):
// the BlockMmad chosen by the MmadAtlasA2W4A4MatmulPerChannelDequant dispatch policy.
#pragma once
#include "dispatch_policy_custom.hpp"

namespace Catlass::Gemm::Block {

template <uint32_t PRELOAD_STAGES_, uint32_t L1_STAGES_, uint32_t L0A_STAGES_, uint32_t L0B_STAGES_,
          uint32_t L0C_STAGES_, bool ENABLE_UNIT_FLAG_, bool ENABLE_SHUFFLE_K_, class L1TileShape_, class L0TileShape_,
          class AType_, class BType_, class CType_, class BiasType_, class TileCopy_, class TileMmad_>
struct BlockMmad<MmadAtlasA2W4A4MatmulPerChannelDequant<PRELOAD_STAGES_, L1_STAGES_, L0A_STAGES_, L0B_STAGES_,
                                                        L0C_STAGES_, ENABLE_UNIT_FLAG_, ENABLE_SHUFFLE_K_>,
                 L1TileShape_, L0TileShape_, AType_, BType_, CType_, BiasType_, TileCopy_, TileMmad_> {
public:
    // Type Aliases
    using DispatchPolicy = MmadAtlasA2W4A4MatmulPerChannelDequant<PRELOAD_STAGES_, L1_STAGES_, L0A_STAGES_, L0B_STAGES_,
                                                                  L0C_STAGES_, ENABLE_UNIT_FLAG_, ENABLE_SHUFFLE_K_>;
    using ArchTag = typename DispatchPolicy::ArchTag;
    using L1TileShape = L1TileShape_;
    using ElementC = typename CType_::Element;

    CATLASS_DEVICE
    BlockMmad(Arch::Resource<ArchTag> &resource, uint32_t l1BufAddrStart = 0)
    {
        InitL1(resource, l1BufAddrStart);
    }

    CATLASS_DEVICE
    void operator()(AscendC::GlobalTensor<uint64_t> const &gmScale, LayoutScale const &layoutScale,
                    AscendC::GlobalTensor<ElementA> const &gmBlockA, LayoutA const &layoutA,
                    AscendC::GlobalTensor<ElementB> const &gmBlockB, LayoutB const &layoutB,
                    AscendC::GlobalTensor<ElementC> const &gmBlockC, LayoutC const &layoutC,
                    GemmCoord const &actualShape)
    {
        AscendC::Mmad(l0CTensor, l0ATensor, l0BTensor, mmadParams);
    }

    CATLASS_DEVICE
    void SynchronizeBlock()
    {
        AscendC::WaitFlag<AscendC::HardEvent::FIX_M>(EVENT_ID0);
    }

    CATLASS_DEVICE
    void Finalize(int32_t target, int32_t flag = 0)
    {
        Arch::CrossCoreSetFlag<0x2, PIPE_FIX>(flag);
    }

private:
    CATLASS_DEVICE
    void InitL1(Arch::Resource<ArchTag> &resource, uint32_t start) {}
};

}  // namespace Catlass::Gemm::Block
