// GEMM+bias+GELU v4 "lean_loop" (best): v3 on HGEMM v11's kernels, the 256x128 tile's
// whole-tile shapes on the lean loop, in its fused form: the last k-step's stage offset gets a
// zero the compiler cannot fold (run_lean's OPAQUE_LAST). On the plain loop the fused kernel
// (255 registers) rebuilt each copy pass's 64-bit source in one of two scratch pairs that the
// previous cp.async had not yet read, and waited on them (NC1, NC2: long-scoreboard stalls
// 0.87 per issued instruction against the plain kernel's 0.70); the opaque offset moves ptxas
// off that register layout.
//
// Measured on the H200 (docs/perf-log.md, fused old v26 and v27): on the plain lean loop the
// fused kernel gained only 0.6-2.9% where the plain one gained 4.8-6.4% (VC: fused / plain
// 1.037-1.072 at the squares); with the opaque offset (VK, interleaved, one launch, cold)
// fused 0.3641 -> 0.3558 ms at 4096³, 2.8687 -> 2.8051 at 8192³, 0.0500 -> 0.0488 at 2048³
// (-2.2 to -2.4%), fused / plain 1.043 -> 1.019 at 4096³; NC3 long scoreboard 0.88 -> 0.26.
// Report AF's fusion sweep: fused / plain 1.016 / 1.029 / 1.020 / 1.016 / 1.008 at
// 1024x4096x4096 / 2048³ / 4096³ / 8192x4096x4096 / 8192³, 1.008-1.023 at M <= 256; unfused /
// fused 1.016-1.179.
#pragma once
#include "gemm/gemm_bias_gelu_3_parked_parts.cuh"
#include "gemm/hgemm_11_lean_loop.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_lean_loop(const half *A, const half *B, const half *bias, half *C, int M,
                               int N, int K, cudaStream_t stream) {
  return launch_lean_loop<kLoopLeanOpaqueLast>(A, B, C, M, N, K, EpiBiasGelu<KIND, true>{bias},
                                               stream);
}

}  // namespace rlg
