// GEMM+bias+GELU v11 "halves_whole_tiles": v10 on HGEMM v18's kernels: v7's cooperative tile at
// v14's widths and schedule, the 128x256 tile's results through the functor and the TMA store
// half a tile at a time for a fourth stage, whole tiles only (no Stream-K cut). Nothing of the
// fused kernel is new: the functor is the family's, applied in registers as in v7.
//
// Why: HGEMM v18 measured 2-3.4% faster than v14 wherever the 128x256 tile runs (S38a), and v7
// is v14 with the functor. v10's pingpong schedule hid the functor (fused / plain 1.017 at
// 4096³) but its main loop is 16-20% slower, so the fused family follows the faster plain loop.
//
// Prediction (before a GPU run): fused / plain as v7's (1.03-1.04 at 4096³ and 8192³: the tanh
// still runs while the tensor cores wait), each 2-3% faster than v7 where the 128x256 tile runs,
// so ~1.00x cuBLASLt's GELU_BIAS at 4096³ (v7 0.97x).
// Measured (S39a, an H100, interleaved with v7, the plain twins and cuBLASLt): 1.5% faster than
// v7 at 4096³ (189.7 against 192.6 us; 0.98x cuBLASLt, v7 0.96x), 1.9% at 1024x4096² (0.96x),
// 1.9% at 2048³ (0.94x); fused / plain 1.039 at 4096³ and 1.078 at 2048³, as v7's (the SFU
// floor: docs/perf-log.md). Best from S39.
#pragma once
#include "gemm/gemm_bias_gelu_10_pingpong.cuh"
#include "gemm/hgemm_18_halves_whole_tiles.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_halves_whole_tiles(const half *A, const half *B, const half *bias, half *C,
                                        int M, int N, int K, cudaStream_t stream) {
  return launch_ws_halves_whole_tiles<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                           EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
