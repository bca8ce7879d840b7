// GEMM+bias+GELU v6 "ws_tile_per_shape": v5 on HGEMM v13's kernels: the warp-specialized wgmma
// kernel at the tile width each shape asks for, with the bias+GELU functor at its coalesced
// store; elsewhere v5's paths. Nothing of the fused kernel is new: the width is the plain
// GEMM's choice, the functor the family's.
//
// Prediction (before a GPU run): fused / plain as v5's (1.05-1.08 at the squares, S34c) where
// both run 128x256; at 256 rows the GEMM's gain (HGEMM v13) with the same ratio. Checked (S34f,
// S35a), not timed apart: v7, the same widths with the TMA store, went straight to best.
#pragma once
#include "gemm/gemm_bias_gelu_5_warp_specialized.cuh"
#include "gemm/hgemm_13_ws_tile_per_shape.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_ws_tile_per_shape(const half *A, const half *B, const half *bias, half *C,
                                       int M, int N, int K, cudaStream_t stream) {
  return launch_ws_tile_per_shape<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                       EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
