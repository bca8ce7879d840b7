// GEMM+bias+GELU v5 "warp_specialized": v4 on HGEMM v12's kernels: where v12 runs its persistent
// warp-specialized wgmma kernel (grids of a wave or more of 128x256 tiles), the same kernel with
// the bias+GELU functor, applied by each consumer warpgroup to 8 consecutive fp32 results of a
// row (Epi::apply through store_chunk: the bias read 16 bytes at a time) before the one
// rounding and the coalesced 16-byte store; elsewhere v4 (HGEMM v11's paths, the lean loop in
// its fused form). Plain GEMM and fused GEMM are one kernel with two epilogues; the functor
// runs while the producer warp already loads the next tile's k-tiles.
//
// Prediction (before any GPU run): fused / plain <= 1.02 at the squares (the functor's work is
// per output element, ~1% of a 4096³ tile's time, and overlaps nothing but the next tile's
// loads). Measured (S34a, S34c): 4096³ 198 us, 0.94x cuBLASLt's GELU_BIAS; 1.05-1.08x our plain
// GEMM at 1024-8192 rows, not 1.02: the tanh GELU of 128 values per thread costs ~4 us a tile
// with both consumer warpgroups off the tensor cores.
#pragma once
#include "gemm/gemm_bias_gelu_4_lean_loop.cuh"
#include "gemm/hgemm_12_warp_specialized.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_warp_specialized(const half *A, const half *B, const half *bias, half *C,
                                      int M, int N, int K, cudaStream_t stream) {
  return launch_warp_specialized<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                      EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
