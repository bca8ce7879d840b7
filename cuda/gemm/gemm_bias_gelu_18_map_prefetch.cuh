// GEMM+bias+GELU v18 "map_prefetch": v15 on HGEMM v30's kernels: each CTA fetches its A, B and
// C tensor maps into the TMA unit at the kernel's start. Nothing of the fused kernel is new.
//
// Why: fused against cuBLASLt's GELU_BIAS at 256x4096² is the fusion sweep's widest gap, and
// there HGEMM v23's gap to cuBLAS is a fixed ~1.6-1.8 µs, not a per-k-tile one (HGEMM v30's
// header).
//
// Prediction (before a GPU run): HGEMM v30's gain at the M = 256 shapes, v15's figures elsewhere.
// Measured (S45f, an H100, v15 / v18 / cuBLASLt interleaved, µs): 256x4096² 22.1 / 21.8 / 21.5,
// 22.2 / 22.0 / 22.3; 2048³ 30.6 / 31.2 / 28.9. Level with v15, as HGEMM v30 with v23. Correct
// (`gpu_gemm gemm_gelu_paths`, the sanitizer's v18 line). A step, not best.
#pragma once
#include "gemm/gemm_bias_gelu_15_n64_mid_m.cuh"
#include "gemm/hgemm_30_map_prefetch.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_map_prefetch(const half *A, const half *B, const half *bias, half *C, int M,
                                  int N, int K, cudaStream_t stream) {
  return launch_ws_map_prefetch<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                     EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
