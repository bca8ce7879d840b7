// GEMM+bias+GELU v19 "exit_on_read": v18 on HGEMM v31's kernels: each consumer warpgroup's
// last TMA stores waited for until they have read the staging, not completed, before the CTA
// leaves. Nothing of the fused kernel is new.
//
// Why: as HGEMM v31 (a fixed cost at the one-tile-per-CTA shapes, 256x4096xK, where fused
// against cuBLASLt's GELU_BIAS is the fusion sweep's widest gap).
//
// Prediction (before a GPU run): HGEMM v31's gain over v30 at the M = 256 shapes and 2048³.
// Measured (S45f, an H100, v15 / v18 / v19 / cuBLASLt interleaved, µs): 256x4096² 22.1 / 21.8 /
// 22.3 / 21.5, 22.2 / 22.0 / 21.7 / 22.3; 2048³ 30.6 / 31.2 / 30.9 / 28.9. Level with v15 and v18.
// Correct (`gpu_gemm gemm_gelu_paths`, the sanitizer's v19 line). A step, not best.
#pragma once
#include "gemm/gemm_bias_gelu_15_n64_mid_m.cuh"
#include "gemm/hgemm_31_exit_on_read.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_exit_on_read(const half *A, const half *B, const half *bias, half *C, int M,
                                  int N, int K, cudaStream_t stream) {
  return launch_ws_exit_on_read<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                     EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
