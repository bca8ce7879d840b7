// GEMM+bias+GELU v20 "producer_tail": v15 on HGEMM v32's kernels: the cluster's first meeting
// with a relaxed arrive and no last meeting, each producer waiting for its stages' releases
// instead. Nothing of the fused kernel is new.
//
// Why: as HGEMM v32 (a fixed cost wherever a CTA has one tile: 256x4096², the fusion sweep's
// widest gap to cuBLASLt's GELU_BIAS, and 2048³).
//
// Prediction (before a GPU run): HGEMM v32's gain over v23 at the one-tile shapes.
//
// Measured (S46a, H100, interleaved with v15 and cuBLASLt's GELU_BIAS, 1935-1980 MHz):
// 256x4096² 19.84 / 19.97 µs in two processes, v15 21.82 / 21.92 (-9%), cuBLASLt 20.93 /
// 21.06 (1.05x cuBLASLt); 2048³ 29.95 µs, v15 30.91 (-3%), cuBLASLt 28.99 (0.97x), 1.08x
// HGEMM v32's 27.71: at one tile per CTA the bias + GELU epilogue is wholly exposed.
#pragma once
#include "gemm/gemm_bias_gelu_15_n64_mid_m.cuh"
#include "gemm/hgemm_32_producer_tail.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_producer_tail(const half *A, const half *B, const half *bias, half *C,
                                   int M, int N, int K, cudaStream_t stream) {
  return launch_ws_producer_tail<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                      EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
