// Modelled on catlass's BlockMmad for MmadAtlasA2PreloadFixpipeQuant: another dispatch policy, never
// chosen by this operator.
#pragma once
#include "dispatch_policy_custom.hpp"

namespace Catlass::Gemm::Block {

template <bool ENABLE_UNIT_FLAG_, bool ENABLE_SHUFFLE_K_, class L1TileShape_, class L0TileShape_, class AType_,
          class BType_, class CType_, class BiasType_, class TileCopy_, class TileMmad_>
struct BlockMmad<MmadAtlasA2PreloadFixpipeQuant<ENABLE_UNIT_FLAG_, ENABLE_SHUFFLE_K_>, L1TileShape_, L0TileShape_,
                 AType_, BType_, CType_, BiasType_, TileCopy_, TileMmad_> {
public:
    using DispatchPolicy = MmadAtlasA2PreloadFixpipeQuant<ENABLE_UNIT_FLAG_, ENABLE_SHUFFLE_K_>;

    CATLASS_DEVICE
    BlockMmad(Arch::Resource<ArchTag> &resource, uint32_t l1BufAddrStart = 0) {}

    CATLASS_DEVICE
    void operator()(AscendC::GlobalTensor<uint64_t> const &gmScale, LayoutScale const &layoutScale,
                    AscendC::GlobalTensor<ElementA> const &gmBlockA, LayoutA const &layoutA,
                    AscendC::GlobalTensor<ElementB> const &gmBlockB, LayoutB const &layoutB,
                    AscendC::GlobalTensor<ElementC> const &gmBlockC, LayoutC const &layoutC,
                    GemmCoord const &actualShape)
    {
        FixpipeQuant();
    }

    CATLASS_DEVICE
    void SynchronizeBlock() {}

private:
    CATLASS_DEVICE
    void FixpipeQuant() {}
};

}  // namespace Catlass::Gemm::Block
