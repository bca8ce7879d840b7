// GEMM+bias+GELU v17 "b_prefetch": v15 on HGEMM v28's kernels: each B box also prefetched into L2
// 8 k-tiles ahead of the ring, at every width. Nothing of the fused kernel is new.
//
// Why: fused against cuBLASLt's GELU_BIAS at 256x4096x4096 is the fusion sweep's widest gap
// (1.18x on the H200, S43a; v15 0.89-1.0x on an H100, S43d), and there the plain kernel's
// delivery of B, not the functor, sets the pace (HGEMM v28's header).
//
// Prediction (before a GPU run): HGEMM v28's gain at the M = 256 shapes, v15's figures elsewhere.
// Measured (S45a, an H100, v15 / v17 / cuBLASLt interleaved, µs): 256x4096² 22.3 / 24.1 / 21.4,
// 21.9 / 24.1 / 20.3 (8-10% slower, as HGEMM v28); 4096³ 187.7 / 189.7 / 185.4 (1% slower).
// Correct (`gpu_gemm gemm_gelu_paths`, the sanitizer's v17 line). A step, not best.
#pragma once
#include "gemm/gemm_bias_gelu_15_n64_mid_m.cuh"
#include "gemm/hgemm_28_b_prefetch.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_b_prefetch(const half *A, const half *B, const half *bias, half *C, int M,
                                int N, int K, cudaStream_t stream) {
  return launch_ws_b_prefetch<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                   EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
