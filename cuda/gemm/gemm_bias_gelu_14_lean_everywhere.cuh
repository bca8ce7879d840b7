// GEMM+bias+GELU v14 "lean_everywhere": v13 on HGEMM v22's kernels: v20's lean wgmma
// descriptors at every tile width of the warp-specialized kernel. Nothing of the fused kernel
// is new.
//
// Why: the functor runs after the main loop, whose instructions v22 cuts; the fused form pays
// the same descriptor arithmetic as the plain one.
//
// Prediction (before a GPU run): HGEMM v22's gain (+0-1% at 4096³, +1-3% at the 128-wide
// shapes); v14 / v22 about v13 / v21 (1.03-1.04 on the H100: the SFU floor stays).
// Measured (S43a, the H200, two interleaved runs at 4096³, µs): v13 194.3 / 191.1, v14 189.4 /
// 189.5 (+2.6 / +0.8%), cuBLASLt's GELU_BIAS 188.7 / 187.8 (v14 0.996x / 0.991x); v14 / v22
// 1.034 / 1.036 (the SFU floor stays). Correct (the sanitizer's two v14 lines clean, S43b);
// best from S43.
#pragma once
#include "gemm/gemm_bias_gelu_13_half_in_ring.cuh"
#include "gemm/hgemm_22_lean_everywhere.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_lean_everywhere(const half *A, const half *B, const half *bias, half *C,
                                     int M, int N, int K, cudaStream_t stream) {
  return launch_ws_lean_everywhere<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                        EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
