// Reduced from dispatch_ffn_combine_w4a8/op_kernel/dispatch_ffn_combine_w4_a8.h (CANN Open Software):
// Process() names the catlass pieces through local aliases and calls the kernel functor.
#ifndef DISPATCH_FFN_COMBINE_W4A8_H
#define DISPATCH_FFN_COMBINE_W4A8_H

#include "dispatch_ffn_combine_w4_a8_kernel.hpp"

namespace DispatchFFNCombineW4A8Impl {
#define TemplateMMA2AClass typename AType_, typename BType_, typename CType_, bool TB_, bool Nz_
#define TemplateMMA2ACFunc AType_, BType_, CType_, TB_, Nz_

using namespace AscendC;
template <TemplateMMA2AClass>
class DispatchFFNCombineW4A8 {
public:
    __aicore__ inline DispatchFFNCombineW4A8() {};
    __aicore__ inline void Init(GM_ADDR xGM, GM_ADDR weight1GM, GM_ADDR weight2GM, GM_ADDR outGM,
                                GM_ADDR workspaceGM, GM_ADDR tilingGM);
    __aicore__ inline void Process();

private:
    GM_ADDR xGM_;
    GM_ADDR workspaceGM_;
};

template <TemplateMMA2AClass>
__aicore__ inline void DispatchFFNCombineW4A8<TemplateMMA2ACFunc>::Init(GM_ADDR xGM, GM_ADDR weight1GM,
    GM_ADDR weight2GM, GM_ADDR outGM, GM_ADDR workspaceGM, GM_ADDR tilingGM)
{
    xGM_ = xGM;
    workspaceGM_ = workspaceGM;
}

template <TemplateMMA2AClass>
__aicore__ inline void DispatchFFNCombineW4A8<TemplateMMA2ACFunc>::Process()
{
    using ArchTag = Arch::AtlasA2;
    using L1TileShape = GemmShape<128, 256, 1024>;  // M, N, K
    constexpr uint32_t preloadStages = 1;
    constexpr uint32_t l1Stages = 2;
    using DispatchPolicy = Gemm::MmadAtlasA2W4A4MatmulPerChannelDequant<
        preloadStages,
        l1Stages, 2, 2, 1,
        false, false
    >;
    using L0TileShape = GemmShape<128, 256, 256>;
    using AType = Gemm::GemmType<AscendC::int4b_t, layout::RowMajor>;
    using BType = Gemm::GemmType<AscendC::int4b_t, layout::RowMajor>;
    using CType = Gemm::GemmType<float16_t, layout::RowMajor>;
    using TileCopyMmad = Gemm::Tile::QuantTileCopy<ArchTag, AType, BType, CType, void>;
    using BlockMmad = Gemm::Block::BlockMmad<DispatchPolicy, L1TileShape, L0TileShape, AType, BType, CType, void, TileCopyMmad>;
    constexpr uint32_t ubStages = 2;
    using EpilogueDispatchPolicy1 = Epilogue::EpilogueAtlasA2W4A8PostPerTokenDequantSwigluQuant<ubStages>;
    using BlockEpilogue1 = Epilogue::Block::BlockEpilogue<EpilogueDispatchPolicy1, CType>;
    using BlockScheduler = typename Gemm::Block::GemmIdentityBlockSwizzle<9, 1>;
    using ElementGroupList = int64_t;
    using MatmulKernel = Gemm::Kernel::DispatchFFNCombineW4A8Kernel<BlockMmad,
        BlockScheduler, ElementGroupList, BlockEpilogue1>;

    typename MatmulKernel::Params params{xGM_, workspaceGM_};
    //Call kernel
    MatmulKernel kernel(params);
    kernel(params);
}

} // DispatchFFNCombineW4A8Impl
#endif // DISPATCH_FFN_COMBINE_W4A8_H
