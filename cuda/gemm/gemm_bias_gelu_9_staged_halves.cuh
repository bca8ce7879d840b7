// GEMM+bias+GELU v9 "staged_halves": v8 on HGEMM v16's kernels: the 128x256 tile's results
// through the functor and the TMA store half a tile at a time, for a fourth stage. Nothing of
// the fused kernel is new.
//
// Prediction (before a GPU run): fused / plain as v8's; the plain GEMM's gain, if any.
// Measured (S37): not timed on its own; HGEMM v16's +1-2% at the squares is the plain form's.
#pragma once
#include "gemm/gemm_bias_gelu_8_stream_k.cuh"
#include "gemm/hgemm_16_staged_halves.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_staged_halves(const half *A, const half *B, const half *bias, half *C,
                                   int M, int N, int K, cudaStream_t stream) {
  return launch_ws_staged_halves<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                      EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
