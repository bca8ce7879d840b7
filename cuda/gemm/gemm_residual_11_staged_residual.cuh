// GEMM+bias+residual v11 "staged_residual": v7 (HGEMM v14's kernels), with R staged in shared
// memory where the warp-specialized kernel runs: each consumer warpgroup copies its 64 x BN
// block of R by cp.async into its TMA store's staging halfway through the tile's main loop, and
// the store adds it from there (ldmatrix at the addresses the results take; ws_staged_operand.cuh)
// instead of reading R per element from global memory in the epilogue. Elsewhere v7's paths.
//
// Why: v7 measured 0.75x cuBLASLt's bias + residual and 1.34x our plain GEMM at 4096³ (S37:
// 253.7 vs 189.2 us), where R's 32 MB at the DRAM ceiling cost ~7 us: the per-element reads sit
// in the epilogue's critical path.
//
// Prediction (before a GPU run): residual / plain 1.03-1.05 at 4096³ (R's read under the main
// loop costs a little of its DRAM and L2 bandwidth; the add and an ldmatrix per 8 results are
// ~1% of a tile), ~0.95-0.98x cuBLASLt. Risk: the copy's 16 cp.async per thread and one more
// barrier halfway through the main loop show up in the wgmma issue.
// Measured (S37e, kernel timing, cold L2, interleaved with v7, HGEMM v14 and cuBLASLt's bias +
// residual): residual / plain 1.050 at 4096³ (v7 1.351), 1.022 at 8192³ (1.149), 1.086 at
// 2048³ (1.575), 1.045 at 1024x4096², 1.054 at 4096x11008x4096; 0.95-0.98x cuBLASLt at the
// squares (v7 0.65-0.87x), 1.01x at 4096x11008x4096. At 256 rows (v9's tile, not this kernel)
// the same as v7.
#pragma once
#include "gemm/bias_residual_epilogue.cuh"
#include "gemm/hgemm_14_tma_store.cuh"

namespace rlg {

template <int LOOP>
int launch_residual_staged(const half *A, const half *B, half *C, int M, int N, int K,
                           const EpiBiasResidual &epi, cudaStream_t stream) {
  const EpiBiasResidualStaged staged{epi};
  return path_or(
      [&](bool *done) {
        return try_ws_widths<WsWidths<true>>(A, B, C, M, N, K, staged, stream, done);
      },
      [&] { return launch_ws_tma_store<LOOP>(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
