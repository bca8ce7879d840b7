// GEMM+bias+GELU v2 "wgmma_mid_m": v1 on HGEMM v9's kernels: 65..512 rows, where v1 would split
// K over a cluster, on the 128x64 wgmma tile over all of K, with the bias of a lane's 16
// columns loaded into registers before the main loop and bias+GELU applied to each value
// before the half2 store.
//
// Measured on the H200 (docs/perf-log.md, fused old v22): WG1 at 256 x 4096² fused / plain
// 1.024, unfused / fused 1.116 (128 rows 1.032 / 1.085, 512 rows 1.019 / 1.101); report Z,
// the fusion sweep: 25.8 us fused, 25.3 plain, 28.9 unfused (1.119), against cuBLASLt's 27.2
// and cuBLAS + our bias+GELU kernel's 31.5: the target at M = 256 met by the GEMM's speed.
#pragma once
#include "gemm/gemm_bias_gelu_1_fused.cuh"
#include "gemm/hgemm_09_wgmma_mid_m.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_wgmma_mid_m(const half *A, const half *B, const half *bias, half *C, int M,
                                 int N, int K, cudaStream_t stream) {
  return launch_wgmma_mid_m(A, B, C, M, N, K, EpiBiasGelu<KIND, false>{bias}, stream);
}

}  // namespace rlg
