// Reduced from dispatch_ffn_combine_w4a8/op_kernel/dispatch_ffn_combine_w4_a8_kernel.hpp (CANN Open Software):
// a catlass kernel whose operator() is specialised for the cube (GMM) and the vector cores (dispatch/combine).
#pragma once
#include "catlass/catlass.hpp"
#include "utils/dispatch_policy_custom.hpp"
#include "utils/block_mmad_w4a4.hpp"
#include "utils/block_mmad_preload_fixpipe_quant.hpp"
#include "utils/block_epilogue_w4a8post_pertoken_swiglu.hpp"

namespace Catlass::Gemm::Kernel {

template <class BlockMmad_, class BlockScheduler_, class ElementGroupList_, class BlockEpilogue1_>
class DispatchFFNCombineW4A8Kernel {
public:
    using BlockMmad = BlockMmad_;
    using ArchTag = typename BlockMmad::ArchTag;
    using ElementC = typename BlockMmad::ElementC;
    using BlockScheduler = BlockScheduler_;
    using BlockEpilogue1 = BlockEpilogue1_;

    /// Parameters structure
    struct Params {
        GM_ADDR ptrA;
        GM_ADDR ptrWorkspace;
        uint32_t expertPerRank;
        uint32_t EP;

        CATLASS_DEVICE
        Params(GM_ADDR ptrA_, GM_ADDR ptrWorkspace_) : ptrA(ptrA_), ptrWorkspace(ptrWorkspace_) {}
    };

    CATLASS_DEVICE
    DispatchFFNCombineW4A8Kernel(Params const &params)
    {
        initBuffer(params);
    }

    template <int32_t CORE_TYPE = g_coreType>
    CATLASS_DEVICE void operator()(Params const &params);

    template <>
    CATLASS_DEVICE void operator()<AscendC::AIC>(Params const &params)
    {
        MoeTracing(TRACE_POINT("dispatch-gmm1 aic", "B"));
        GMM1(params);
        MoeTracing(TRACE_POINT("dispatch-gmm1 aic", "E"));
    }

    template <>
    CATLASS_DEVICE void operator()<AscendC::AIV>(Params const &params)
    {
        MoeTracing(TRACE_POINT("dispatch-combine aiv", "B"));
        DispatchAndCombine(params);
        MoeTracing(TRACE_POINT("dispatch-combine aiv", "E"));
    }

private:
    CATLASS_DEVICE void initBuffer(Params const &params)
    {
        gmC.SetGlobalBuffer(reinterpret_cast<__gm__ ElementC *>(params.ptrWorkspace));
    }

    CATLASS_DEVICE
    void GMM1(Params const &params)
    {
        BlockScheduler blockScheduler;
        BlockMmad blockMmad(resource);
        for (uint32_t groupIdx = 0; groupIdx < params.expertPerRank; ++groupIdx) {
            blockMmad(gmS[groupIdx], layoutScale, gmA[groupIdx], layoutA, gmB[groupIdx], layoutB, gmC[groupIdx],
                      layoutC, actualBlockShape);
            if constexpr (BlockMmad::DispatchPolicy::ASYNC) {
                blockMmad.SynchronizeBlock();
            }
            blockMmad.Finalize(groupIdx, SYNCFLAGC2V);
        }
    }

    CATLASS_DEVICE
    void DispatchAndCombine(Params const &params)
    {
        uint32_t coreIdx = AscendC::GetBlockIdx();
        AscendC::SyncAll<true>();
        if (coreIdx == 0) {
            GetCumsumForMMAIV(params);
        }
        BlockEpilogue1 blockEpilogue1(resource, params.EP);
        blockEpilogue1(gmC, params.EP);
        blockEpilogue1.Finalize();
    }

    CATLASS_DEVICE
    void GetCumsumForMMAIV(Params const &params)
    {
        AscendC::SyncAll<true>();
    }

    Arch::Resource<ArchTag> resource;
    AscendC::GlobalTensor<ElementC> gmC;
};

}  // namespace Catlass::Gemm::Kernel
