// GEMM+bias+GELU v10 "pingpong": v9 on HGEMM v17's kernels: at the whole-tile shapes each
// consumer warpgroup owns a tile, and its bias + GELU and TMA store run while the other
// warpgroup's wgmmas keep the tensor cores busy. Nothing of the fused kernel is new: the
// functor is the family's, the schedule the plain GEMM's.
//
// Why: v7 (v14's cooperative tile) measured fused / plain 1.039 at 4096³ and 1.086 at 2048³
// (S35a): the tanh GELU is SFU work (one MUFU.TANH per element) that both consumer warpgroups
// did at once while the tensor cores waited.
//
// Prediction (before a GPU run): fused / plain <= 1.02 at 4096³ and 8192³, ~1.05 at 2048³
// (one tile per warpgroup: the second epilogue has nothing to hide under); >= cuBLASLt's
// GELU_BIAS at 4096³ (v7 0.97x).
// Measured (S37, interleaved with v7, the plain GEMMs and cuBLASLt): fused / plain 1.017 at
// 4096³, 1.007 at 8192³, 1.071 at 2048³ (v7: 1.031, 1.021, 1.085), but 0.80x cuBLASLt at 4096³
// (v7 0.96x): HGEMM v17's main loop is 16-20% slower than v14's.
#pragma once
#include "gemm/gemm_bias_gelu_9_staged_halves.cuh"
#include "gemm/hgemm_17_pingpong.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_pingpong(const half *A, const half *B, const half *bias, half *C, int M,
                              int N, int K, cudaStream_t stream) {
  return launch_ws_pingpong<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                 EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
