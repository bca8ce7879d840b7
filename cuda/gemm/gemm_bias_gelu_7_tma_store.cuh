// GEMM+bias+GELU v7 "tma_store": v6 on HGEMM v14's kernels: the bias + GELU functor applied in
// the consumer warpgroups' registers (apply1 on the wgmma accumulator layout, the bias read as
// two fp16 per thread and column pair), rounded once, and stored through TMA while the next
// tile's wgmmas run. Nothing of the fused kernel is new but the functor's call site.
//
// Prediction (before a GPU run): fused / plain <= 1.02-1.03 at the squares (v5: 1.05-1.08).
// Measured (S35a, kernel timing, cold L2, interleaved): 0.94x / 0.97x cuBLASLt's GELU_BIAS at
// 2048³ / 4096³ (v5 0.92 / 0.95); fused / plain 1.086 / 1.039, not 1.02: the plain GEMM gained
// as much from the TMA store as the fused one, so the functor's tanh still costs ~4% a tile.
#pragma once
#include "gemm/gemm_bias_gelu_6_ws_tile_per_shape.cuh"
#include "gemm/hgemm_14_tma_store.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_tma_store(const half *A, const half *B, const half *bias, half *C, int M,
                               int N, int K, cudaStream_t stream) {
  return launch_ws_tma_store<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                  EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
