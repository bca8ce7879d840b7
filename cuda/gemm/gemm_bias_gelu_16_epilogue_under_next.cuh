// GEMM+bias+GELU v16 "epilogue_under_next": v15 on HGEMM v24's kernels: the bias + GELU
// functor and the store of each tile run under the next tile's first two k-tiles of wgmmas,
// from the results packed to fp16 / bf16 after the tile's last wgmma.
//
// Why: the fused form's epilogue is the SFU's (32768 MUFU.TANH a 128x256 tile, ~2 k cycles),
// which the tensor cores waited for once a tile: fused / plain 1.03-1.04 at 4096³ (S42, S43)
// against issue 42's 1.02, and 0.98-1.00x cuBLASLt's GELU_BIAS.
//
// Cost: GELU applies to A.B + bias with A.B rounded to fp16 (bf16) first, not to the fp32 sum:
// one more rounding of the pre-activation (its error shows in `check`'s worst relative error).
//
// Prediction (before a GPU run): +2-3% over v15 at 4096³ and 8192³, fused / plain ~1.01;
// unchanged at 2048³ and wherever a CTA has one tile.
// Measured: not yet.
#pragma once
#include "gemm/gemm_bias_gelu_15_n64_mid_m.cuh"
#include "gemm/hgemm_24_epilogue_under_next.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_epilogue_under_next(const half *A, const half *B, const half *bias, half *C,
                                         int M, int N, int K, cudaStream_t stream) {
  return launch_ws_epilogue_under_next<kLoopLeanOpaqueLast>(
      A, B, C, M, N, K, EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
