// Reduced from dispatch_ffn_combine_w4a8/op_kernel/utils/dispatch_policy_custom.hpp (CANN Open Software).
#pragma once

namespace Catlass::Gemm {
    template <bool ENABLE_UNIT_FLAG_ = false, bool ENABLE_SHUFFLE_K_ = false>
    struct MmadAtlasA2PreloadFixpipeQuant : public MmadAtlasA2 {
        static constexpr uint32_t STAGES = 2;
    };

    template <uint32_t PRELOAD_STAGES_, uint32_t L1_STAGES_, uint32_t L0A_STAGES_, uint32_t L0B_STAGES_,
        uint32_t L0C_STAGES_, bool ENABLE_UNIT_FLAG_, bool ENABLE_SHUFFLE_K_>
    struct MmadAtlasA2W4A4MatmulPerChannelDequant :
        public MmadAtlasA2PreloadAsyncWithCallback<
            PRELOAD_STAGES_,
            L1_STAGES_,
            L0A_STAGES_,
            L0B_STAGES_,
            L0C_STAGES_,
            ENABLE_UNIT_FLAG_,
            ENABLE_SHUFFLE_K_
        > {
    };
}

namespace Catlass::Epilogue {
    template <uint32_t UB_STAGES_>
    struct EpilogueAtlasA2W4A8PostPerTokenDequantSwigluQuant {
        using ArchTag = Arch::AtlasA2;
        static constexpr uint32_t UB_STAGES = UB_STAGES_;
    };
}
