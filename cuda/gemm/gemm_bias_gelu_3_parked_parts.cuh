// GEMM+bias+GELU v3 "parked_parts": v2 on HGEMM v10's kernels (17..64 rows on the few-row wgmma
// tile, one kernel for the plain and the fused family, bias and GELU chosen at run time), and
// with the tanh form the parked epilogue in 4 row parts: a warp tile inside C is parked one
// fragment row (16 rows) at a time, each part applied and stored before the next is parked,
// so that its stores drain while the next part is parked. The erf form keeps the whole-tile
// park (bias_gelu_epilogue.cuh says why).
//
// Measured on the H200 (docs/perf-log.md, fused old v23-v25): the parts (PK, interleaved,
// fused / plain) 2048³ 1.030 / 1.032 / 1.031 -> 1.023 / 1.025 / 1.023, 4096³ 1.016 -> 1.010,
// 8192x4096x4096 1.016 -> 1.006; the few-row tile (old v24, WR5) fused / plain 1.022-1.031 at
// 17..64 x 4096², unfused / fused 1.140 at 64 rows; as one kernel with the plain GEMM (old v25,
// WR6) fused / plain 1.010-1.017 at 17..64 x 4096² (1.022-1.037 with a kernel per family).
#pragma once
#include "gemm/gemm_bias_gelu_2_wgmma_mid_m.cuh"
#include "gemm/hgemm_10_wgmma_few_rows.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_parked_parts(const half *A, const half *B, const half *bias, half *C, int M,
                                  int N, int K, cudaStream_t stream) {
  return launch_wgmma_few_rows(A, B, C, M, N, K, EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
