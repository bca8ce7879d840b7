// GEMM+bias+GELU v8 "stream_k": v7 on HGEMM v15's kernels: the tiles of a partial last wave
// cut along K over every cluster, their partial sums added by the tile's owner before the bias
// + GELU functor (which runs once per output, on the whole sum). Nothing of the fused kernel is
// new: the schedule is the plain GEMM's, the functor the family's.
//
// Prediction (before a GPU run): fused / plain as v7's where both run whole tiles; where v15
// cuts, the plain GEMM's gain with the same ratio.
// Measured (S37): where v15 cuts, v15's loss; elsewhere v7's kernels.
#pragma once
#include "gemm/gemm_bias_gelu_7_tma_store.cuh"
#include "gemm/hgemm_15_stream_k.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_stream_k(const half *A, const half *B, const half *bias, half *C, int M,
                              int N, int K, cudaStream_t stream) {
  return launch_ws_stream_k<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                 EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
